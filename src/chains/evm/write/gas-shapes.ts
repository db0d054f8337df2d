import { LruMap } from "../../../domain/lru-map.js";
import type { EvmChain } from "../chain.js";

/**
 * The gas of a deployment, learnt once per chain and shape: deployments of one contract whose constructor arguments
 * have the same shape (string lengths, which 32-byte words are zero) run the same code, write the same slots from zero
 * to non-zero and copy as many bytes, so they need the same gas but for their calldata, whose cost is counted per byte
 * here. The shape also decides whether the constructor reverts, given the checks a launch's inputs passed (see
 * docs/decisions/0040-live-gas-estimates.md): a shape whose first estimate reverted is never learnt, so each of its
 * launches is estimated (and refused) by the node.
 */
interface Learnt {
  gas: bigint;
  calldataGas: bigint;
  /** The data's length: a shape is only reused for data as long as the data it was learnt from. */
  length: number;
  at: number;
}

/**
 * What was learnt is asked again after this long: a simulated chain's rules change only with a new Hardhat; a live
 * network's change at a hard fork, which the service cannot see coming, so the node is asked again within a minute.
 */
const LEARNT_FOR_MS = { simulated: 10 * 60_000, live: 60_000 };

/**
 * Shapes kept a chain, the least recently used let go first (each about 200 bytes): a service launching tokens of ever
 * new shapes (every length of name and symbol) holds the recent ones, and estimates the others as a first launch does.
 */
export const LEARNT_SHAPES = 512;
const learnt = new WeakMap<EvmChain, LruMap<string, Learnt>>();

/** How many shapes the chain's estimates are kept for now (the service's `retained()`). */
export function learntShapes(chain: EvmChain): number {
  return learnt.get(chain)?.size ?? 0;
}

/** EIP-2028: 4 gas per zero byte of calldata, 16 per other byte. */
export function calldataGas(data: string): bigint {
  let zeros = 0;
  const bytes = (data.length - 2) / 2;
  for (let index = 2; index < data.length; index += 2) if (data[index] === "0" && data[index + 1] === "0") zeros++;
  return BigInt(zeros * 4 + (bytes - zeros) * 16);
}

/**
 * The gas a send of this shape needs, if one of its shape was estimated on this chain. On the simulated chain, whose
 * rules are ours, the calldata's difference is counted as EIP-2028 prices it (tested equal to the node's estimate).
 * On a live network the node's rules may price calldata higher (EIP-7623's floor: 10 and 40 gas a byte, 2.5 times
 * EIP-2028's 4 and 16), so a difference is counted at 2.5 times, and never below what the node estimated: calldata
 * that costs less is not subtracted.
 */
export function knownGas(chain: EvmChain, shape: string, data: string, now = Date.now()): bigint | undefined {
  if (!reusesEstimates(chain)) return undefined;
  const known = learnt.get(chain)?.get(shape);
  if (known === undefined || known.length !== data.length) return undefined;
  if (now - known.at > (chain.simulated ? LEARNT_FOR_MS.simulated : LEARNT_FOR_MS.live)) return undefined;
  const extra = calldataGas(data) - known.calldataGas;
  if (chain.simulated) return known.gas + extra;
  return extra > 0n ? known.gas + (extra * 5n + 1n) / 2n : known.gas;
}

/**
 * Whether a shape's estimate may serve others of its shape on this chain: not on a live Arbitrum chain, whose estimate
 * includes the L1 cost of posting the calldata at the L1 price of the moment (in L2 gas), which moves from block to block.
 */
function reusesEstimates(chain: EvmChain): boolean {
  return chain.simulated || chain.info.rollup !== "arbitrum";
}

export function learnGas(chain: EvmChain, shape: string, data: string, gas: bigint, now = Date.now()): void {
  let shapes = learnt.get(chain);
  if (shapes === undefined) learnt.set(chain, (shapes = new LruMap(LEARNT_SHAPES)));
  shapes.set(shape, { gas, calldataGas: calldataGas(data), length: data.length, at: now });
}

/** A string's part of a shape: its length in bytes and which of its 32-byte chunks (each a storage slot when long) are zero. */
export function stringShape(value: string): string {
  const bytes = Buffer.from(value, "utf8");
  let zeroChunks = "";
  for (let offset = 0; offset < bytes.length; offset += 32)
    zeroChunks += bytes.subarray(offset, offset + 32).every((byte) => byte === 0) ? "0" : "x";
  return `${bytes.length}:${zeroChunks}`;
}
