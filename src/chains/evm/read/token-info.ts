import { ZeroAddress, dataSlice, decodeBytes32String, getAddress, zeroPadValue } from "ethers";

import type { TokenStandard } from "../../../domain/asset-types.js";
import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { INTERFACE_IDS, erc1155Standard, erc20Standard, erc721Standard, probes } from "../standard-abi.js";
import { probeCode, type CodeProbe } from "./code-probe.js";
import { notAToken } from "./not-a-token.js";
import { codeAt, nodeOf, supportedInterfaces, view, viewCall } from "./view-call.js";

export /** A string view's answer: ABI-encoded, or the bytes32 some early tokens (MKR) return. */
function decodeText(data: string): string | undefined {
  if (data === "0x") return undefined;
  try {
    return erc20Standard.decodeFunctionResult("name", data)[0] as string;
  } catch {
    try {
      return decodeBytes32String(data.slice(0, 66));
    } catch {
      return undefined;
    }
  }
}

const TOKEN_INTERFACES = {
  erc721: INTERFACE_IDS.erc721,
  erc721Metadata: INTERFACE_IDS.erc721Metadata,
  erc721Enumerable: INTERFACE_IDS.erc721Enumerable,
  erc1155: INTERFACE_IDS.erc1155,
  erc1155MetadataUri: INTERFACE_IDS.erc1155MetadataUri,
  accessControl: INTERFACE_IDS.accessControl,
  erc2981: INTERFACE_IDS.erc2981,
  /** ERC-4906 (metadata updates): what OpenZeppelin's ERC721URIStorage declares. */
  erc4906: "0x49064906",
};

/**
 * Options no interface declares, found in the token's code (code-probe.ts): each names the functions that give it,
 * any one of which is enough, by standard.
 */
const FUNCTION_FEATURES: Record<string, Partial<Record<TokenStandard, readonly string[]>>> = {
  burnable: { ERC20: ["burn(uint256)"], ERC721: ["burn(uint256)"], ERC1155: ["burn(address,uint256,uint256)"] },
  mintable: {
    ERC20: ["mint(address,uint256)"],
    ERC721: ["mint(address)", "mint(address,string)", "mintWithId(address,uint256)", "mintWithId(address,uint256,string)"],
    ERC1155: ["mint(address,uint256,uint256,bytes)"],
  },
  batchMint: {
    ERC20: ["airdrop(address[],uint256[])"],
    ERC721: ["airdrop(address[])", "airdrop(address[],string[])"],
    ERC1155: ["airdrop(address[],uint256[],uint256[],bytes)"],
  },
  permit: { ERC20: ["permit(address,address,uint256,uint256,uint8,bytes32,bytes32)"] },
  votes: { ERC20: ["delegate(address)"] },
  supply: { ERC1155: ["totalSupply(uint256)"] },
};

export interface TokenInfo {
  type: TokenStandard;
  name?: string;
  symbol?: string;
  decimals?: number;
  totalSupply?: string;
  cap?: string;
  paused?: boolean;
  owner?: string;
  /** The AccessManager of a token with access "managed" (AccessManaged's `authority()`). */
  authority?: string;
  /** An ERC-1967 proxy's (docs/decisions/0065): how it upgrades, its implementation, a transparent proxy's ProxyAdmin. */
  upgradeable?: Upgradeability;
  features: string[];
}

export interface Upgradeability {
  kind: "uups" | "transparent";
  implementation: string;
  admin?: string;
}

/** EIP-1967's admin slot: bytes32(uint256(keccak256("eip1967.proxy.admin")) - 1). */
const EIP1967_ADMIN_SLOT = "0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103";

/**
 * How an ERC-1967 proxy upgrades, read from its slots: a ProxyAdmin in the admin slot is a transparent proxy's; without
 * one, an implementation that has `upgradeToAndCall` upgrades itself (UUPS). Undefined for any other contract (an
 * EIP-1167 clone, a proxy of neither kind).
 */
async function upgradeabilityOf(chain: EvmChain, contract: string, probe: CodeProbe | undefined): Promise<Upgradeability | undefined> {
  const implementation = probe?.implementation;
  if (implementation === undefined) return undefined;
  let slot: string;
  try {
    slot = await chain.provider.getStorage(contract, EIP1967_ADMIN_SLOT);
  } catch (error) {
    throw translateProviderError(error, nodeOf(chain));
  }
  const admin = getAddress(dataSlice(slot, 12));
  if (admin !== ZeroAddress) return { kind: "transparent", implementation, admin };
  return probe!.has("upgradeToAndCall(address,bytes)") === true ? { kind: "uups", implementation } : undefined;
}

/**
 * What a token contract says of itself, every question asked at once (a live node gets them as one batch): its standard
 * by ERC-165 (ERC721, ERC1155) or, for an ERC20, which declares none, by totalSupply() and balanceOf() answering; its
 * name, symbol, decimals and supply; and the options found by ERC-165 and by probing views that only some tokens have.
 */
export async function readTokenInfo(chain: EvmChain, contract: string): Promise<TokenInfo> {
  // One read of the code serves both: whether there is a contract, and which functions it has.
  const contractCode = codeAt(chain, contract);
  const [code, functions, declared, name, symbol, decimals, totalSupply, zeroBalance, cap, paused, owner, authority] = await Promise.all([
    contractCode,
    probeCode(chain, contract, contractCode).catch(() => undefined),
    supportedInterfaces(chain, contract, TOKEN_INTERFACES),
    viewCall(chain, contract, erc20Standard.encodeFunctionData("name")).then(decodeText),
    viewCall(chain, contract, erc20Standard.encodeFunctionData("symbol")).then(decodeText),
    view<bigint>(chain, contract, erc20Standard, "decimals"),
    view<bigint>(chain, contract, erc20Standard, "totalSupply"),
    view<bigint>(chain, contract, erc20Standard, "balanceOf", [ZeroAddress]),
    view<bigint>(chain, contract, probes, "cap"),
    view<boolean>(chain, contract, probes, "paused"),
    view<string>(chain, contract, probes, "owner"),
    view<string>(chain, contract, probes, "authority"),
  ]);
  if (code === "0x") throw notAToken(contract, "a", true);
  const upgradeable = await upgradeabilityOf(chain, contract, functions);
  const type: TokenStandard | undefined = declared.erc1155
    ? "ERC1155"
    : declared.erc721
      ? "ERC721"
      : totalSupply !== undefined && zeroBalance !== undefined
        ? "ERC20"
        : undefined;
  if (type === undefined) throw notAToken(contract, "an ERC20, ERC721 or ERC1155", false);
  const features = [
    ...(declared.erc721Enumerable ? ["enumerable"] : []),
    ...(declared.erc721Metadata || declared.erc1155MetadataUri ? ["metadata"] : []),
    ...(declared.accessControl ? ["accessControl"] : []),
    ...(declared.erc2981 ? ["royalties"] : []),
    ...(cap !== undefined ? ["capped"] : []),
    ...(paused !== undefined ? ["pausable"] : []),
    ...(owner !== undefined ? ["ownable"] : []),
    ...(authority !== undefined ? ["managed"] : []),
    ...(type === "ERC721" && declared.erc4906 ? ["uriStorage"] : []),
    ...Object.entries(FUNCTION_FEATURES)
      .filter(([, byStandard]) => byStandard[type]?.some((signature) => functions?.has(signature) === true))
      .map(([feature]) => feature),
  ].sort();
  return {
    type,
    ...(name !== undefined ? { name } : {}),
    ...(symbol !== undefined ? { symbol } : {}),
    ...(type === "ERC20" && decimals !== undefined && decimals <= 255n ? { decimals: Number(decimals) } : {}),
    ...(type !== "ERC1155" && totalSupply !== undefined ? { totalSupply: totalSupply.toString() } : {}),
    ...(cap !== undefined ? { cap: cap.toString() } : {}),
    ...(paused !== undefined ? { paused } : {}),
    ...(owner !== undefined ? { owner: getAddress(owner) } : {}),
    ...(authority !== undefined ? { authority: getAddress(authority) } : {}),
    ...(upgradeable !== undefined ? { upgradeable } : {}),
    features,
  };
}

/**
 * Refuses an address that is not a token of `type`: ERC721 and ERC1155 by ERC-165; an ERC20 (which has no ERC-165 id)
 * by its totalSupply() and balanceOf() answering, and by declaring neither of the others.
 */
export async function requireTokenStandard(chain: EvmChain, contract: string, type: TokenStandard): Promise<void> {
  const [code, declared, supply, balance] = await Promise.all([
    codeAt(chain, contract),
    supportedInterfaces(chain, contract, { erc721: INTERFACE_IDS.erc721, erc1155: INTERFACE_IDS.erc1155 }),
    type === "ERC20" ? view<bigint>(chain, contract, erc20Standard, "totalSupply") : Promise.resolve(0n),
    type === "ERC20" ? view<bigint>(chain, contract, erc20Standard, "balanceOf", [ZeroAddress]) : Promise.resolve(0n),
  ]);
  if (code === "0x") throw notAToken(contract, "a", true);
  const is =
    type === "ERC721"
      ? declared.erc721
      : type === "ERC1155"
        ? declared.erc1155
        : supply !== undefined && balance !== undefined && !declared.erc721 && !declared.erc1155;
  if (!is) throw notAToken(contract, `an ${type}`, false);
}

export interface Allowance {
  allowance?: string;
  tokenId?: string;
  approved?: boolean;
  isApprovedForAll?: boolean;
}

/** What `owner` lets `spender` do with its tokens: an ERC20 allowance, an ERC721 token's approval, operator approval. */
export async function readAllowance(
  chain: EvmChain,
  query: { type: TokenStandard; contractAddress: string; owner: string; spender: string; tokenId?: bigint },
): Promise<Allowance> {
  const { type, contractAddress: contract, owner, spender, tokenId } = query;
  await requireTokenStandard(chain, contract, type);
  if (type === "ERC20") {
    const allowance = await view<bigint>(chain, contract, erc20Standard, "allowance", [owner, spender]);
    if (allowance === undefined) throw notAToken(contract, "an ERC20", false);
    return { allowance: allowance.toString() };
  }
  const iface = type === "ERC721" ? erc721Standard : erc1155Standard;
  const [forAll, approved] = await Promise.all([
    view<boolean>(chain, contract, iface, "isApprovedForAll", [owner, spender]),
    type === "ERC721" && tokenId !== undefined ? view<string>(chain, contract, erc721Standard, "getApproved", [tokenId]) : undefined,
  ]);
  const result: Allowance = { isApprovedForAll: forAll === true };
  if (type === "ERC721" && tokenId !== undefined) {
    if (approved === undefined) {
      throw new TokenServiceError(ErrorCode.NOT_TOKEN_OWNER, `token id ${tokenId} does not exist on ${contract}`, {
        field: "tokenId",
        details: { reason: "ERC721NonexistentToken" },
      });
    }
    result.tokenId = tokenId.toString();
    result.approved = approved.toLowerCase() === spender.toLowerCase();
  }
  return result;
}

/** An owner's ids are read in full, then paged: past this many, the listing is refused rather than read in part. */
export const MAX_OWNED_TOKEN_IDS = 10_000;
/** Calls in flight at once while reading ids (a live node gets them in batches). */
const CALLS_AT_ONCE = 200;
/** ERC1155 ids asked about in one balanceOfBatch call. */
const BALANCES_PER_CALL = 500;

async function inChunks<T, R>(items: T[], map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CALLS_AT_ONCE) {
    results.push(...(await Promise.all(items.slice(start, start + CALLS_AT_ONCE).map(map))));
  }
  return results;
}

function tooMany(owner: string, contract: string, count: bigint): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.TOO_MANY_TOKEN_IDS,
    `${owner} has ${count} token ids of ${contract} to read, more than the ${MAX_OWNED_TOKEN_IDS} one listing reads`,
    { field: "owner", details: { count: count.toString(), limit: MAX_OWNED_TOKEN_IDS } },
  );
}

export interface OwnedTokenIds {
  type: "ERC721" | "ERC1155";
  /** ERC721: balanceOf, the ids held. ERC1155: how many ids the owner holds a non-zero amount of. */
  balance: bigint;
  /** Every id the owner holds, ascending. */
  tokenIds: bigint[];
  /** ERC1155: the amount of each id in `tokenIds`, in the same order. */
  amounts?: bigint[];
  source: "enumerable" | "transfer-logs";
}

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every id `owner` holds on `contract` (ERC721 or ERC1155, told apart by ERC-165), ascending, all read at one block.
 * An ERC721Enumerable contract lists them (`tokenOfOwnerByIndex`, one call an id). Any other ERC721, and every ERC1155
 * (the standard has no enumeration), is searched through its transfer logs to the owner from `fromBlock`, each id found
 * checked at that block (`ownerOf`, or `balanceOfBatch` for the amounts): one log query from `fromBlock` to the block
 * read, which a live provider may refuse for a long range; pass a later `fromBlock`.
 */
export async function readOwnedTokenIds(chain: EvmChain, contract: string, owner: string, fromBlock = 0): Promise<OwnedTokenIds> {
  let block: number;
  try {
    block = await chain.provider.getBlockNumber();
  } catch (error) {
    throw translateProviderError(error, nodeOf(chain));
  }
  const [code, declared] = await Promise.all([
    codeAt(chain, contract),
    supportedInterfaces(chain, contract, {
      erc721: INTERFACE_IDS.erc721,
      erc1155: INTERFACE_IDS.erc1155,
      enumerable: INTERFACE_IDS.erc721Enumerable,
    }),
  ]);
  if (code === "0x") throw notAToken(contract, "a", true);
  if (declared.erc1155) return readOwnedErc1155Ids(chain, contract, owner, fromBlock, block);
  if (!declared.erc721) throw notAToken(contract, "an ERC721 or ERC1155", false);
  const held = (await view<bigint>(chain, contract, erc721Standard, "balanceOf", [owner], block)) ?? 0n;
  let ids: Array<bigint | undefined>;
  if (declared.enumerable) {
    if (held > BigInt(MAX_OWNED_TOKEN_IDS)) throw tooMany(owner, contract, held);
    const indexes = Array.from({ length: Number(held) }, (_, index) => index);
    ids = await inChunks(indexes, (index) => view<bigint>(chain, contract, erc721Standard, "tokenOfOwnerByIndex", [owner, index], block));
  } else {
    // Transfer(from, to, tokenId): the receiver is the second indexed topic.
    const logs = await logsTo(chain, contract, [erc721Standard.getEvent("Transfer")!.topicHash, null], owner, fromBlock, block);
    // An ERC721 Transfer indexes the token id: four topics (an ERC20 Transfer, with the same signature, has three).
    const candidates = [...new Set(logs.filter((log) => log.topics.length === 4).map((log) => BigInt(log.topics[3]!)))];
    if (candidates.length > MAX_OWNED_TOKEN_IDS) throw tooMany(owner, contract, BigInt(candidates.length));
    const owners = await inChunks(candidates, (id) => view<string>(chain, contract, erc721Standard, "ownerOf", [id], block));
    ids = candidates.filter((_, index) => owners[index]?.toLowerCase() === owner.toLowerCase());
  }
  const tokenIds = [...new Set(ids.filter((id): id is bigint => id !== undefined))].sort(ascending);
  return { type: "ERC721", balance: held, tokenIds, source: declared.enumerable ? "enumerable" : "transfer-logs" };
}

/** ERC1155: the ids ever sent to `owner` (TransferSingle and TransferBatch logs), kept where its balance is not 0. */
async function readOwnedErc1155Ids(
  chain: EvmChain,
  contract: string,
  owner: string,
  fromBlock: number,
  block: number,
): Promise<OwnedTokenIds> {
  const single = erc1155Standard.getEvent("TransferSingle")!;
  const batch = erc1155Standard.getEvent("TransferBatch")!;
  // TransferSingle and TransferBatch(operator, from, to, …): the receiver is the third indexed topic.
  const logs = await logsTo(chain, contract, [[single.topicHash, batch.topicHash], null, null], owner, fromBlock, block);
  const received = new Set<bigint>();
  for (const log of logs) {
    let parsed;
    try {
      parsed = erc1155Standard.parseLog(log);
    } catch {
      continue; // not the standard's encoding: nothing to learn from it
    }
    if (parsed?.name === "TransferSingle") received.add(parsed.args.getValue("id") as bigint);
    else if (parsed?.name === "TransferBatch") for (const id of parsed.args.getValue("ids") as bigint[]) received.add(id);
  }
  const candidates = [...received].sort(ascending);
  if (candidates.length > MAX_OWNED_TOKEN_IDS) throw tooMany(owner, contract, BigInt(candidates.length));
  const chunks = Array.from({ length: Math.ceil(candidates.length / BALANCES_PER_CALL) }, (_, index) =>
    candidates.slice(index * BALANCES_PER_CALL, (index + 1) * BALANCES_PER_CALL),
  );
  const answers = await inChunks(chunks, (ids) =>
    view<bigint[]>(chain, contract, erc1155Standard, "balanceOfBatch", [ids.map(() => owner), ids], block),
  );
  const tokenIds: bigint[] = [];
  const amounts: bigint[] = [];
  chunks.forEach((ids, chunk) => {
    const balances = answers[chunk];
    if (balances === undefined || balances.length !== ids.length) throw notAToken(contract, "an ERC1155", false);
    ids.forEach((id, index) => {
      if (balances[index]! > 0n) {
        tokenIds.push(id);
        amounts.push(balances[index]!);
      }
    });
  });
  return { type: "ERC1155", balance: BigInt(tokenIds.length), tokenIds, amounts, source: "transfer-logs" };
}

/**
 * The logs of `contract` matching `topicsBefore` whose next indexed topic, the receiver, is `owner`, from `fromBlock`
 * to `block`.
 */
async function logsTo(
  chain: EvmChain,
  contract: string,
  topicsBefore: Array<string | string[] | null>,
  owner: string,
  fromBlock: number,
  block: number,
) {
  if (fromBlock > block) return [];
  try {
    return await chain.provider.getLogs({
      address: contract,
      topics: [...topicsBefore, zeroPadValue(owner, 32)],
      fromBlock,
      toBlock: block,
    });
  } catch (error) {
    throw translateProviderError(error, nodeOf(chain));
  }
}
