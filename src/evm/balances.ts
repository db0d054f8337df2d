import { decodeBytes32String, type Interface } from "ethers";

import { ErrorCode, TokenServiceError } from "../errors.js";
import { amountPair, type AmountPair } from "../units.js";
import type { EvmChain } from "./chain.js";
import { translateProviderError } from "./provider-errors.js";
import { ERC721_ENUMERABLE_INTERFACE_ID, ERC721_INTERFACE_ID, erc20Interface, erc721Interface } from "./token-abi.js";

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

/** Token symbols and decimals never change, so they are read once per chain connection. */
const metadataCache = new WeakMap<EvmChain, Map<string, Erc20Metadata>>();

export const MAX_LISTED_TOKEN_IDS = 1000;

function upstream(chain: EvmChain): string {
  return `the ${chain.info.chain}/${chain.info.network} node`;
}

async function call(chain: EvmChain, contract: string, iface: Interface, method: string, args: unknown[]): Promise<string> {
  try {
    return await chain.provider.call({ to: contract, data: iface.encodeFunctionData(method, args) });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "CALL_EXCEPTION") return "0x";
    throw translateProviderError(error, upstream(chain));
  }
}

function notAToken(contract: string, standard: string, field: string, noCode = false): TokenServiceError {
  const message = noCode
    ? `no contract is deployed at ${contract} (if it was just launched, wait for the launch transaction to be mined)`
    : `${contract} is not an ${standard} token contract`;
  return new TokenServiceError(ErrorCode.NOT_A_TOKEN_CONTRACT, message, {
    field,
    details: { contractAddress: contract },
  });
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
    return amountPair(await chain.provider.getBalance(address), chain.info.nativeDecimals);
  } catch (error) {
    throw translateProviderError(error, upstream(chain));
  }
}

/**
 * Reads several ERC20 balances at once. Every call is issued in the same tick,
 * so a live JSON-RPC provider sends them as one batch.
 */
export async function readErc20Balances(
  chain: EvmChain,
  owner: string,
  contracts: string[],
  field = "erc20TokenContractAddresses",
): Promise<Erc20Balance[]> {
  let cache = metadataCache.get(chain);
  if (cache === undefined) {
    cache = new Map();
    metadataCache.set(chain, cache);
  }
  const known = cache;
  const reads = contracts.map(async (contract) => {
    const cached = known.get(contract);
    const [code, balanceData, symbolData, decimalsData] = await Promise.all([
      cached
        ? Promise.resolve("cached")
        : chain.provider.getCode(contract).catch((error) => Promise.reject(translateProviderError(error, upstream(chain)))),
      call(chain, contract, erc20Interface, "balanceOf", [owner]),
      cached ? Promise.resolve("") : call(chain, contract, erc20Interface, "symbol", []),
      cached ? Promise.resolve("") : call(chain, contract, erc20Interface, "decimals", []),
    ]);
    if (code === "0x") throw notAToken(contract, "ERC20", field, true);
    const balance = decodeUint(erc20Interface, "balanceOf", balanceData);
    let metadata = cached;
    if (metadata === undefined) {
      const symbol = decodeSymbol(symbolData);
      const decimals = decodeUint(erc20Interface, "decimals", decimalsData);
      if (symbol === undefined || decimals === undefined || decimals > 255n) throw notAToken(contract, "ERC20", field);
      metadata = { symbol, decimals: Number(decimals) };
      known.set(contract, metadata);
    }
    if (balance === undefined) throw notAToken(contract, "ERC20", field);
    return { contractAddress: contract, symbol: metadata.symbol, decimals: metadata.decimals, ...amountPair(balance, metadata.decimals) };
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
  if (code === "0x") throw notAToken(contract, "ERC721", field, true);
  if (!supports(isErc721Data)) throw notAToken(contract, "ERC721", field);
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
