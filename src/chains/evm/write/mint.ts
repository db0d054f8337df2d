import { getAddress, type TransactionReceipt } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import { isBatchMint, type BatchMintParams, type MintParams } from "../../../domain/mint-commands.js";
import type { EvmChain } from "../chain.js";
import { probeCode, type CodeProbe } from "../read/code-probe.js";
import { isUnansweredCall, translateProviderError } from "../provider-errors.js";
import { managedAuthority, requireManagedCaller } from "../read/access-manager.js";
import { ERC1155_INTERFACE_ID, ERC721_INTERFACE_ID, MINTER_ROLE, erc1155Interface, erc20Interface, erc721Interface } from "../token-abi.js";

export type { MintParams } from "../../../domain/mint-commands.js";

async function read(chain: EvmChain, to: string, data: string): Promise<string> {
  try {
    return await chain.provider.call({ to, data });
  } catch (error) {
    // A call that reverted answers as `call` does; one the node never judged (a rate limit, an outage) is no answer.
    if ((error as { code?: string }).code === "CALL_EXCEPTION" && !isUnansweredCall(error)) return "0x";
    throw translateProviderError(error, `the ${chain.info.chain}/${chain.info.network} node`);
  }
}

const isTrue = (data: string) => data.length >= 66 && BigInt(data.slice(0, 66)) === 1n;
/** A view answered with one 32-byte word (a function the contract lacks answers nothing). */
const answered = (data: string) => data.length >= 66;

/** The functions each form of mint calls, by full signature (the variants overload mint, mintWithId and airdrop). */
const MINT = {
  erc20: "mint(address,uint256)",
  erc721: "mint(address)",
  erc721Uri: "mint(address,string)",
  erc721WithId: "mintWithId(address,uint256)",
  erc721WithIdUri: "mintWithId(address,uint256,string)",
  erc1155: "mint(address,uint256,uint256,bytes)",
  erc1155Ids: "mintBatch(address,uint256[],uint256[],bytes)",
  erc20Airdrop: "airdrop(address[],uint256[])",
  erc721Airdrop: "airdrop(address[])",
  erc721AirdropUri: "airdrop(address[],string[])",
  erc721AirdropWithIds: "airdropWithIds(address[],uint256[])",
  erc721AirdropWithIdsUri: "airdropWithIds(address[],uint256[],string[])",
  erc1155Airdrop: "airdrop(address[],uint256[],uint256[],bytes)",
} as const;

function notAToken(params: MintParams): TokenServiceError {
  return new TokenServiceError(ErrorCode.NOT_A_TOKEN_CONTRACT, `${params.contractAddress} is not an ${params.type} token contract`, {
    field: "contractAddress",
  });
}

/** Who may mint: a role holder (AccessControl's MINTER_ROLE) or, on a token with one owner (Ownable), its owner alone. */
function checkMinter(sender: string, params: MintParams, reads: { hasRole: string; owner: string }): void {
  if (answered(reads.hasRole)) {
    if (isTrue(reads.hasRole)) return;
    throw new TokenServiceError(ErrorCode.NOT_A_MINTER, `${sender} does not hold the minter role on ${params.contractAddress}`, {
      field: "sender",
    });
  }
  if (answered(reads.owner)) {
    const owner = getAddress(`0x${reads.owner.slice(26, 66)}`);
    if (owner === sender) return;
    throw new TokenServiceError(
      ErrorCode.NOT_A_MINTER,
      `${sender} is not the owner of ${params.contractAddress}: the token has one owner (Ownable), ${owner}, who alone may mint`,
      { field: "sender", details: { owner } },
    );
  }
  throw new TokenServiceError(ErrorCode.NOT_A_MINTER, `${sender} does not hold the minter role on ${params.contractAddress}`, {
    field: "sender",
  });
}

function uriUnsupported(params: MintParams, field: string, needed: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.TOKEN_URI_UNSUPPORTED,
    `${params.contractAddress} keeps no URI per token (it was launched without token.options.uriStorage; its tokenURI is the base URI and the id): mint without ${field}`,
    { field, details: { function: needed } },
  );
}

function batchUnsupported(params: BatchMintParams, needed: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.BATCH_MINT_UNSUPPORTED,
    `${params.contractAddress} has no ${needed}: batch mints need a token launched with token.options by a release with batch mints (an ERC20 with mintable, any ERC721 or ERC1155); the historic contracts of a launch without options have none. Mint one recipient per request instead`,
    { field: "recipients", details: { function: needed } },
  );
}

/** The call a batch mint makes: the token's airdrop of the batch's form, refused when the token has none. */
function batchMintData(params: BatchMintParams, functions: CodeProbe): string {
  const to = params.recipients.map((item) => item.to);
  if (params.type === "ERC20") {
    if (functions.has(MINT.erc20Airdrop) === false) throw batchUnsupported(params, MINT.erc20Airdrop);
    return erc20Interface.encodeFunctionData(MINT.erc20Airdrop, [to, params.recipients.map((item) => item.amount)]);
  }
  if (params.type === "ERC1155") {
    if (functions.has(MINT.erc1155Airdrop) === false) throw batchUnsupported(params, MINT.erc1155Airdrop);
    const ids = params.recipients.map((item) => item.tokenId);
    return erc1155Interface.encodeFunctionData(MINT.erc1155Airdrop, [to, ids, params.recipients.map((item) => item.amount), "0x"]);
  }
  const withIds = params.recipients[0]!.tokenId !== undefined;
  const withUri = params.recipients.findIndex((item) => item.uri !== undefined);
  const plain = withIds ? MINT.erc721AirdropWithIds : MINT.erc721Airdrop;
  const needed = withUri < 0 ? plain : withIds ? MINT.erc721AirdropWithIdsUri : MINT.erc721AirdropUri;
  if (functions.has(needed) === false) {
    // A token with the batch mint but no URIs: the URI is what it lacks.
    if (needed !== plain && functions.has(plain) === true) throw uriUnsupported(params, `recipients[${withUri}].uri`, needed);
    throw batchUnsupported(params, needed);
  }
  const ids = withIds ? [params.recipients.map((item) => item.tokenId!)] : [];
  const uris = withUri < 0 ? [] : [params.recipients.map((item) => item.uri ?? "")];
  return erc721Interface.encodeFunctionData(needed, [to, ...ids, ...uris]);
}

/** The call a mint makes, in the form the token has: the variants without uriStorage take no URI at all. */
function mintData(params: MintParams, functions: CodeProbe): string {
  if (isBatchMint(params)) return batchMintData(params, functions);
  if (params.type === "ERC20") return erc20Interface.encodeFunctionData(MINT.erc20, [params.to, params.amount]);
  if (params.type === "ERC1155") {
    if ("tokenIds" in params)
      return erc1155Interface.encodeFunctionData(MINT.erc1155Ids, [params.to, params.tokenIds, params.amounts, "0x"]);
    return erc1155Interface.encodeFunctionData(MINT.erc1155, [params.to, params.tokenId, params.amount, "0x"]);
  }
  if (params.uri !== undefined) {
    const needed = params.tokenId !== undefined ? MINT.erc721WithIdUri : MINT.erc721Uri;
    if (functions.has(needed) === false) throw uriUnsupported(params, "uri", needed);
    const args = params.tokenId !== undefined ? [params.to, params.tokenId, params.uri] : [params.to, params.uri];
    return erc721Interface.encodeFunctionData(needed, args);
  }
  if (params.tokenId === undefined) return erc721Interface.encodeFunctionData(MINT.erc721, [params.to]);
  // The variants have mintWithId(to, id); the historic ServiceERC721 only mintWithId(to, id, uri), where "" is no URI.
  if (functions.has(MINT.erc721WithId) === true) return erc721Interface.encodeFunctionData(MINT.erc721WithId, [params.to, params.tokenId]);
  return erc721Interface.encodeFunctionData(MINT.erc721WithIdUri, [params.to, params.tokenId, ""]);
}

/** An ERC20 mint's total, checked against the cap where the token has one. */
async function checkCap(chain: EvmChain, params: MintParams): Promise<void> {
  const total = isBatchMint(params)
    ? (params.recipients as Array<{ amount: bigint }>).reduce((sum, item) => sum + item.amount, 0n)
    : (params as { amount: bigint }).amount;
  const [supplyData, capData] = await Promise.all([
    read(chain, params.contractAddress, erc20Interface.encodeFunctionData("totalSupply", [])),
    read(chain, params.contractAddress, erc20Interface.encodeFunctionData("cap", [])),
  ]);
  if (supplyData === "0x" || capData === "0x") return;
  const supply = BigInt(supplyData);
  const cap = BigInt(capData);
  if (supply + total > cap) {
    throw new TokenServiceError(ErrorCode.CAP_EXCEEDED, `minting ${total} would exceed the supply cap ${cap} (supply now ${supply})`, {
      field: isBatchMint(params) ? "recipients" : "amount",
      details: { cap: cap.toString(), totalSupply: supply.toString(), mintable: (cap - supply).toString() },
    });
  }
}

/** The ERC721 ids a mint chooses must not exist yet. */
async function checkIdsFree(chain: EvmChain, params: MintParams): Promise<void> {
  const chosen: Array<{ tokenId: bigint; field: string }> = isBatchMint(params)
    ? params.recipients.flatMap((item, index) =>
        "tokenId" in item && item.tokenId !== undefined ? [{ tokenId: item.tokenId, field: `recipients[${index}].tokenId` }] : [],
      )
    : "tokenId" in params && params.tokenId !== undefined
      ? [{ tokenId: params.tokenId, field: "tokenId" }]
      : [];
  const owners = await Promise.all(
    chosen.map(({ tokenId }) => read(chain, params.contractAddress, erc721Interface.encodeFunctionData("ownerOf", [tokenId]))),
  );
  const taken = owners.findIndex((owner) => owner !== "0x");
  if (taken < 0) return;
  const { tokenId, field } = chosen[taken]!;
  throw new TokenServiceError(ErrorCode.TOKEN_ID_TAKEN, `token id ${tokenId} already exists on ${params.contractAddress}`, { field });
}

/**
 * Checks what the chain would refuse, so the caller gets a typed error instead of a reverted transaction, and answers
 * the call to send: its form depends on the functions the token has (read from its code).
 */
export async function preflightMint(chain: EvmChain, sender: string, params: MintParams): Promise<string> {
  const at = params.contractAddress;
  // The code (an EIP-1967 proxy's or clone's implementation's) says which mint functions the token has.
  const [functions, hasRole, owner, isErc721, isErc1155, authority] = await Promise.all([
    probeCode(chain, at),
    read(chain, at, erc20Interface.encodeFunctionData("hasRole", [MINTER_ROLE, sender])),
    read(chain, at, erc20Interface.encodeFunctionData("owner", [])),
    read(chain, at, erc721Interface.encodeFunctionData("supportsInterface", [ERC721_INTERFACE_ID])),
    read(chain, at, erc721Interface.encodeFunctionData("supportsInterface", [ERC1155_INTERFACE_ID])),
    managedAuthority(chain, at),
  ]);
  if ((params.type === "ERC721") !== isTrue(isErc721) || (params.type === "ERC1155") !== isTrue(isErc1155)) throw notAToken(params);
  // A token with access "managed" has neither roles nor an owner: its AccessManager says who may call each function.
  const managed = authority !== undefined && !answered(hasRole) && !answered(owner);
  if (!managed) checkMinter(sender, params, { hasRole, owner });
  const data = mintData(params, functions);
  if (managed) await requireManagedCaller(chain, authority, sender, at, data, ErrorCode.NOT_A_MINTER);
  if (params.type === "ERC20") await checkCap(chain, params);
  if (params.type === "ERC721") await checkIdsFree(chain, params);
  return data;
}

/** The ids an ERC721 mint produced, in the order minted, read from its Transfer events (from the zero address). */
export function mintedTokenIds(receipt: TransactionReceipt, contractAddress: string): string[] {
  const ids: string[] = [];
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== contractAddress.toLowerCase()) continue;
    const parsed = erc721Interface.parseLog(log);
    if (parsed?.name === "Transfer" && BigInt(parsed.args[0]) === 0n) ids.push((parsed.args[2] as bigint).toString());
  }
  return ids;
}

/** The id an ERC721 mint produced, read from its Transfer event. */
export function mintedTokenId(receipt: TransactionReceipt, contractAddress: string): string | undefined {
  return mintedTokenIds(receipt, contractAddress)[0];
}
