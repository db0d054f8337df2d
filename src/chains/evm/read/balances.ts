import { AbiCoder, JsonRpcApiProvider, decodeBytes32String, type Interface } from "ethers";

import { ErrorCode } from "../../../domain/errors.js";
import { LruMap } from "../../../domain/lru-map.js";
import { amountPair, type AmountPair } from "../../../domain/units.js";
import { balanceReaderArtifact } from "../artifacts.js";
import type { EvmChain } from "../chain.js";
import { isUnansweredCall, translateProviderError } from "../provider-errors.js";
import { notAToken } from "./not-a-token.js";
import {
  ERC1155_INTERFACE_ID,
  ERC721_ENUMERABLE_INTERFACE_ID,
  ERC721_INTERFACE_ID,
  erc1155Interface,
  erc20Interface,
  erc721Interface,
} from "../token-abi.js";

export interface Erc20Balance extends AmountPair {
  contractAddress: string;
  symbol: string;
  decimals: number;
}

export interface Erc721Balance {
  balance: string;
  tokenIds: string[];
  /** True when the holder has more tokens than were listed. */
  tokenIdsTruncated?: boolean;
  symbol?: string;
}

interface Erc20Metadata {
  symbol: string;
  decimals: number;
}

/**
 * Token symbols and decimals never change, so they are read once per chain connection and kept for the tokens read
 * lately: at most TOKEN_METADATA_ENTRIES a chain (about 150 bytes each), the least recently read let go first. A token
 * let go costs its next read two words more from the node (the reader contract asks them in the same call).
 */
const metadataCache = new WeakMap<EvmChain, LruMap<string, Erc20Metadata>>();
export const TOKEN_METADATA_ENTRIES = 1024;

/** How many tokens' metadata the chain's cache holds now (the service's `retained()`; tests of its bound). */
export function tokenMetadataEntries(chain: EvmChain): number {
  return metadataCache.get(chain)?.size ?? 0;
}

export const MAX_LISTED_TOKEN_IDS = 1000;

function upstream(chain: EvmChain): string {
  return `the ${chain.info.chain}/${chain.info.network} node`;
}

async function call(chain: EvmChain, contract: string, iface: Interface, method: string, args: unknown[]): Promise<string> {
  try {
    return await chain.provider.call({ to: contract, data: iface.encodeFunctionData(method, args) });
  } catch (error) {
    const code = (error as { code?: string }).code;
    // A call that reverted answers "0x"; one the node never judged (a rate limit, an outage) is no answer.
    if (code === "CALL_EXCEPTION" && !isUnansweredCall(error)) return "0x";
    throw translateProviderError(error, upstream(chain));
  }
}

function decodeUint(iface: Interface, method: string, data: string): bigint | undefined {
  if (data === "0x") return undefined;
  try {
    return iface.decodeFunctionResult(method, data)[0] as bigint;
  } catch {
    return undefined;
  }
}

function decodeSymbol(data: string): string | undefined {
  if (data === "0x") return undefined;
  try {
    return erc20Interface.decodeFunctionResult("symbol", data)[0] as string;
  } catch {
    // Some early tokens (MKR, for one) return the symbol as bytes32.
    try {
      return decodeBytes32String(data.slice(0, 66));
    } catch {
      return undefined;
    }
  }
}

export async function readNativeBalance(chain: EvmChain, address: string): Promise<AmountPair> {
  try {
    const balance = chain.rpc
      ? BigInt((await chain.rpc("eth_getBalance", [address, "latest"])) as string)
      : await chain.provider.getBalance(address);
    return amountPair(balance, chain.info.nativeDecimals);
  } catch (error) {
    throw translateProviderError(error, upstream(chain));
  }
}

const abi = AbiCoder.defaultAbiCoder();
const READER_ARGUMENTS = ["address", "address[]", "bool"];
const READER_RESULT = ["uint256", "tuple(uint256,bool,bytes,bool,bytes,bool,bytes)[]"];

/** What the reader contract saw at one token address; a call that reverted answers "0x", as `call` does. */
interface TokenRead {
  hasCode: boolean;
  balance: string;
  symbol: string;
  decimals: string;
}

/**
 * Tokens per reader call: its answer must stay under the 24,576 bytes a node lets creation code return (about 512
 * bytes a token with symbol and decimals, 384 without). Batches go out together: one JSON-RPC batch on a live node.
 */
const TOKENS_PER_READ_WITH_METADATA = 20;
const TOKENS_PER_READ = 50;
const SURELY_SMALL_BATCH = 5;

/** Chains whose node refused the reader's creation-code call: they are read contract by contract from then on. */
const readerRefused = new WeakSet<EvmChain>();

/**
 * The native balance and every token's raw answers in one `eth_call` that runs the reader contract's creation code
 * (never deployed, so any node that runs `eth_call` can answer). Undefined when the node refuses such a call.
 */
async function readAtOnce(
  chain: EvmChain,
  owner: string,
  contracts: string[],
  withMetadata: boolean,
): Promise<{ native: bigint; reads: TokenRead[] } | undefined> {
  if (readerRefused.has(chain)) return undefined;
  const data = balanceReaderArtifact.bytecode + abi.encode(READER_ARGUMENTS, [owner, contracts, withMetadata]).slice(2);
  let answer: string;
  try {
    // Asked directly of the node: ethers' call() would copy and re-encode the reader's code every read.
    answer = chain.rpc
      ? ((await chain.rpc("eth_call", [{ data }, "latest"])) as string)
      : chain.provider instanceof JsonRpcApiProvider
        ? ((await chain.provider.send("eth_call", [{ data }, "latest"])) as string)
        : await chain.provider.call({ data });
  } catch (error) {
    // An in-process node is never unreachable (but when its rpc-errors fault says so): whatever else it answers with
    // an error is a refusal of the reader.
    if (isUnansweredCall(error)) throw translateProviderError(error, upstream(chain));
    if (chain.rpc === undefined && (error as { code?: string }).code !== "CALL_EXCEPTION") {
      const translated = translateProviderError(error, upstream(chain));
      if (translated.code === ErrorCode.UPSTREAM_UNAVAILABLE || translated.code === ErrorCode.UPSTREAM_TIMEOUT) throw translated;
    }
    // The reader never reverts (every token call is guarded), but what creation code returns is capped (24,576
    // bytes, as a contract's code): tokens with huge answers overflow a batch. A refusal of a few tokens' batch is
    // the node refusing creation code altogether; a larger batch is read contract by contract this time only.
    if (contracts.length <= SURELY_SMALL_BATCH) readerRefused.add(chain);
    return undefined;
  }
  return withMetadata ? decodeWithMetadata(answer) : decodePacked(answer, contracts.length);
}

/** The packed answer: the holder's balance, then two words a token (flags, balance), sliced rather than ABI-decoded. */
function decodePacked(answer: string, count: number): { native: bigint; reads: TokenRead[] } | undefined {
  const word = (index: number) => answer.slice(2 + index * 64, 2 + (index + 1) * 64);
  if (answer.length !== 2 + (1 + count * 2) * 64) return undefined;
  return {
    native: BigInt(`0x${word(0)}`),
    reads: Array.from({ length: count }, (_, index) => {
      const flags = Number.parseInt(word(1 + index * 2), 16);
      return { hasCode: (flags & 1) === 1, balance: flags & 2 ? `0x${word(2 + index * 2)}` : "0x", symbol: "0x", decimals: "0x" };
    }),
  };
}

function decodeWithMetadata(answer: string): { native: bigint; reads: TokenRead[] } {
  const [native, rows] = abi.decode(READER_RESULT, answer) as unknown as [
    bigint,
    Array<[bigint, boolean, string, boolean, string, boolean, string]>,
  ];
  return {
    native,
    reads: rows.map(([codeSize, balanceOk, balance, symbolOk, symbol, decimalsOk, decimals]) => ({
      hasCode: codeSize > 0n,
      balance: balanceOk ? balance : "0x",
      symbol: symbolOk ? symbol : "0x",
      decimals: decimalsOk ? decimals : "0x",
    })),
  };
}

function metadataOf(chain: EvmChain): LruMap<string, Erc20Metadata> {
  let cache = metadataCache.get(chain);
  if (cache === undefined) {
    cache = new LruMap(TOKEN_METADATA_ENTRIES);
    metadataCache.set(chain, cache);
  }
  return cache;
}

/**
 * An ERC20's decimals, from the chain's cache or read once with its symbol (a write's answer echoes its amount at
 * them); undefined when the contract answers none or the node does not answer: the echo is left out, and the write's own
 * checks judge the contract.
 */
export async function readErc20Decimals(chain: EvmChain, contract: string): Promise<number | undefined> {
  const cache = metadataOf(chain);
  const known = cache.get(contract);
  if (known !== undefined) return known.decimals;
  try {
    const [symbolData, decimalsData] = await Promise.all([
      call(chain, contract, erc20Interface, "symbol", []),
      call(chain, contract, erc20Interface, "decimals", []),
    ]);
    const decimals = decodeUint(erc20Interface, "decimals", decimalsData);
    if (decimals === undefined || decimals > 255n) return undefined;
    const symbol = decodeSymbol(symbolData);
    if (symbol !== undefined) cache.set(contract, { symbol, decimals: Number(decimals) });
    return Number(decimals);
  } catch {
    return undefined;
  }
}

/**
 * A token's balance from its raw answers and its metadata as known when the read began (`cached`: the cache may let it
 * go meanwhile, and the read then did not ask for it); not a token: NOT_A_TOKEN_CONTRACT.
 */
function erc20Balance(chain: EvmChain, contract: string, read: TokenRead, field: string, cached: Erc20Metadata | undefined): Erc20Balance {
  if (!read.hasCode) throw notAToken(contract, "an ERC20", true, field);
  let metadata = cached;
  if (metadata === undefined) {
    const symbol = decodeSymbol(read.symbol);
    const decimals = decodeUint(erc20Interface, "decimals", read.decimals);
    if (symbol === undefined || decimals === undefined || decimals > 255n) throw notAToken(contract, "an ERC20", false, field);
    metadata = { symbol, decimals: Number(decimals) };
    metadataOf(chain).set(contract, metadata);
  }
  // One word is a uint256 as it stands; anything else goes through the ABI decoder, as a token's odd answer may.
  const balance = read.balance.length === 66 ? BigInt(read.balance) : decodeUint(erc20Interface, "balanceOf", read.balance);
  if (balance === undefined) throw notAToken(contract, "an ERC20", false, field);
  return { contractAddress: contract, symbol: metadata.symbol, decimals: metadata.decimals, ...amountPair(balance, metadata.decimals) };
}

/**
 * The native balance and several ERC20 balances of `owner` in one node call whatever their number (the reader
 * contract run by `eth_call`); where a node refuses that, contract by contract in one batch.
 */
export async function readBalances(
  chain: EvmChain,
  owner: string,
  contracts: string[],
  field = "erc20TokenContractAddresses",
): Promise<{ native: AmountPair; tokens: Erc20Balance[] }> {
  if (contracts.length === 0) return { native: await readNativeBalance(chain, owner), tokens: [] };
  const cache = metadataOf(chain);
  const known = contracts.map((contract) => cache.get(contract));
  const withMetadata = known.some((metadata) => metadata === undefined);
  const size = withMetadata ? TOKENS_PER_READ_WITH_METADATA : TOKENS_PER_READ;
  const batches = Array.from({ length: Math.ceil(contracts.length / size) }, (_, index) =>
    contracts.slice(index * size, (index + 1) * size),
  );
  const answers = await Promise.all(batches.map((batch) => readAtOnce(chain, owner, batch, withMetadata)));
  if (answers.some((answer) => answer === undefined)) {
    const [native, tokens] = await Promise.all([readNativeBalance(chain, owner), readErc20Balances(chain, owner, contracts, field)]);
    return { native, tokens };
  }
  const reads = answers.flatMap((answer) => answer!.reads);
  return {
    native: amountPair(answers[0]!.native, chain.info.nativeDecimals),
    tokens: contracts.map((contract, index) => erc20Balance(chain, contract, reads[index]!, field, known[index])),
  };
}

/**
 * Reads several ERC20 balances contract by contract. Every call is issued in the same tick,
 * so a live JSON-RPC provider sends them as one batch.
 */
export async function readErc20Balances(
  chain: EvmChain,
  owner: string,
  contracts: string[],
  field = "erc20TokenContractAddresses",
): Promise<Erc20Balance[]> {
  const cache = metadataOf(chain);
  const reads = contracts.map(async (contract) => {
    const metadata = cache.get(contract);
    const cached = metadata !== undefined;
    const [code, balance, symbol, decimals] = await Promise.all([
      cached
        ? Promise.resolve("cached")
        : chain.provider.getCode(contract).catch((error) => Promise.reject(translateProviderError(error, upstream(chain)))),
      call(chain, contract, erc20Interface, "balanceOf", [owner]),
      cached ? Promise.resolve("0x") : call(chain, contract, erc20Interface, "symbol", []),
      cached ? Promise.resolve("0x") : call(chain, contract, erc20Interface, "decimals", []),
    ]);
    return erc20Balance(chain, contract, { hasCode: code !== "0x", balance, symbol, decimals }, field, metadata);
  });
  return Promise.all(reads);
}

/** An ERC721 holder's balance and, when the contract is enumerable, its token ids. */
export async function readErc721Balance(chain: EvmChain, owner: string, contract: string, field = "tokenAddress"): Promise<Erc721Balance> {
  const [code, isErc721Data, enumerableData, balanceData, symbolData] = await Promise.all([
    chain.provider.getCode(contract).catch((error) => Promise.reject(translateProviderError(error, upstream(chain)))),
    call(chain, contract, erc721Interface, "supportsInterface", [ERC721_INTERFACE_ID]),
    call(chain, contract, erc721Interface, "supportsInterface", [ERC721_ENUMERABLE_INTERFACE_ID]),
    call(chain, contract, erc721Interface, "balanceOf", [owner]),
    call(chain, contract, erc721Interface, "symbol", []),
  ]);
  const supports = (data: string) => data !== "0x" && BigInt(data.slice(0, 66)) === 1n;
  if (code === "0x") throw notAToken(contract, "an ERC721", true, field);
  if (!supports(isErc721Data)) throw notAToken(contract, "an ERC721", false, field);
  const balance = decodeUint(erc721Interface, "balanceOf", balanceData) ?? 0n;
  const symbol = decodeSymbol(symbolData);
  const result: Erc721Balance = { balance: balance.toString(), tokenIds: [], ...(symbol !== undefined ? { symbol } : {}) };
  if (!supports(enumerableData)) return result;
  const listed = balance > BigInt(MAX_LISTED_TOKEN_IDS) ? MAX_LISTED_TOKEN_IDS : Number(balance);
  const ids = await Promise.all(
    Array.from({ length: listed }, (_, index) => call(chain, contract, erc721Interface, "tokenOfOwnerByIndex", [owner, index])),
  );
  result.tokenIds = ids.map((data) => (decodeUint(erc721Interface, "tokenOfOwnerByIndex", data) ?? 0n).toString());
  if (listed < balance) result.tokenIdsTruncated = true;
  return result;
}

export interface Erc1155Balances {
  /** The sum over the ids read. */
  balance: string;
  tokenBalances: Array<{ tokenId: string; balance: string }>;
}

/** An ERC1155 holder's balance of each id, in one balanceOfBatch call. */
export async function readErc1155Balances(
  chain: EvmChain,
  owner: string,
  contract: string,
  tokenIds: readonly bigint[],
  field = "tokenAddress",
): Promise<Erc1155Balances> {
  const [code, isErc1155Data, balancesData] = await Promise.all([
    chain.provider.getCode(contract).catch((error) => Promise.reject(translateProviderError(error, upstream(chain)))),
    call(chain, contract, erc1155Interface, "supportsInterface", [ERC1155_INTERFACE_ID]),
    call(chain, contract, erc1155Interface, "balanceOfBatch", [tokenIds.map(() => owner), tokenIds]),
  ]);
  if (code === "0x") throw notAToken(contract, "an ERC1155", true, field);
  let balances: bigint[] | undefined;
  try {
    balances = [...(erc1155Interface.decodeFunctionResult("balanceOfBatch", balancesData)[0] as bigint[])];
  } catch {
    balances = undefined;
  }
  const supports = isErc1155Data !== "0x" && isErc1155Data.length >= 66 && BigInt(isErc1155Data.slice(0, 66)) === 1n;
  if (!supports || balances === undefined || balances.length !== tokenIds.length) throw notAToken(contract, "an ERC1155", false, field);
  return {
    balance: balances.reduce((sum, value) => sum + value, 0n).toString(),
    tokenBalances: tokenIds.map((tokenId, index) => ({ tokenId: tokenId.toString(), balance: balances[index]!.toString() })),
  };
}
