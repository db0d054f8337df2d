import type { Interface } from "ethers";

import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { INTERFACE_IDS, probes } from "../standard-abi.js";

/** The node, named in errors. */
export function nodeOf(chain: EvmChain): string {
  return `the ${chain.info.chain}/${chain.info.network} node`;
}

/**
 * One view call's raw answer: "0x" when the contract reverts (or has no such function), so that a probe's absence is an
 * answer, not an error; a node that fails is UPSTREAM_UNAVAILABLE or UPSTREAM_TIMEOUT.
 */
export async function viewCall(chain: EvmChain, to: string, data: string, blockTag?: number): Promise<string> {
  try {
    return await chain.provider.call({ to, data, ...(blockTag !== undefined ? { blockTag } : {}) });
  } catch (error) {
    if ((error as { code?: string }).code === "CALL_EXCEPTION") return "0x";
    throw translateProviderError(error, nodeOf(chain));
  }
}

/** A view's first result, decoded; undefined when the contract did not answer it, or answered something else. */
export async function view<T>(
  chain: EvmChain,
  to: string,
  iface: Interface,
  method: string,
  args: unknown[] = [],
  blockTag?: number,
): Promise<T | undefined> {
  const data = await viewCall(chain, to, iface.encodeFunctionData(method, args), blockTag);
  if (data === "0x") return undefined;
  try {
    return iface.decodeFunctionResult(method, data)[0] as T;
  } catch {
    return undefined;
  }
}

export async function codeAt(chain: EvmChain, address: string): Promise<string> {
  try {
    return await chain.provider.getCode(address);
  } catch (error) {
    throw translateProviderError(error, nodeOf(chain));
  }
}

const isTrue = (data: string) => data.length === 66 && BigInt(data) === 1n;

/** supportsInterface(id) answered exactly `true` (one word, 1). */
export async function supportsInterface(chain: EvmChain, contract: string, interfaceId: string): Promise<boolean> {
  return isTrue(await viewCall(chain, contract, probes.encodeFunctionData("supportsInterface", [interfaceId])));
}

/**
 * The interfaces of `ids` the contract declares, by ERC-165 as the standard says to detect it: only a contract that
 * answers true for ERC-165 itself and false for 0xffffffff is asked about the others.
 */
export async function supportedInterfaces<K extends string>(
  chain: EvmChain,
  contract: string,
  ids: Record<K, string>,
): Promise<Record<K, boolean>> {
  const keys = Object.keys(ids) as K[];
  const [erc165, invalid, ...answers] = await Promise.all([
    supportsInterface(chain, contract, INTERFACE_IDS.erc165),
    supportsInterface(chain, contract, INTERFACE_IDS.invalid),
    ...keys.map((key) => supportsInterface(chain, contract, ids[key])),
  ]);
  const declared = erc165 && !invalid;
  return Object.fromEntries(keys.map((key, index) => [key, declared && answers[index]!])) as Record<K, boolean>;
}
