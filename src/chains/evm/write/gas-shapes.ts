import type { EvmChain } from "../chain.js";

/**
 * The gas of a deployment on a simulated chain, learnt once per shape: deployments of one contract whose constructor
 * arguments have the same shape (string lengths, which 32-byte words are zero) run the same code, write the same slots
 * from zero to non-zero and copy as many bytes, so they need the same gas but for their calldata, whose cost is counted
 * per byte here (EIP-2028 only). Never used on a live chain, whose node estimates every send (send-transaction.ts): its
 * rules may price calldata otherwise (EIP-7623's floor) or change at a hard fork.
 */
interface Learnt {
  gas: bigint;
  calldataGas: bigint;
  at: number;
}

/** What was learnt is asked again after this long (a simulated chain's rules change only with a new Hardhat). */
const LEARNT_FOR_MS = 10 * 60_000;

const learnt = new WeakMap<EvmChain, Map<string, Learnt>>();

/** EIP-2028: 4 gas per zero byte of calldata, 16 per other byte. */
export function calldataGas(data: string): bigint {
  let zeros = 0;
  const bytes = (data.length - 2) / 2;
  for (let index = 2; index < data.length; index += 2) if (data[index] === "0" && data[index + 1] === "0") zeros++;
  return BigInt(zeros * 4 + (bytes - zeros) * 16);
}

/** The gas a send of this shape needs, if one of its shape was estimated on this chain. */
export function knownGas(chain: EvmChain, shape: string, data: string): bigint | undefined {
  const known = learnt.get(chain)?.get(shape);
  if (known === undefined || Date.now() - known.at > LEARNT_FOR_MS) return undefined;
  return known.gas - known.calldataGas + calldataGas(data);
}

export function learnGas(chain: EvmChain, shape: string, data: string, gas: bigint): void {
  let shapes = learnt.get(chain);
  if (shapes === undefined) learnt.set(chain, (shapes = new Map()));
  shapes.set(shape, { gas, calldataGas: calldataGas(data), at: Date.now() });
}

/** A string's part of a shape: its length in bytes and which of its 32-byte chunks (each a storage slot when long) are zero. */
export function stringShape(value: string): string {
  const bytes = Buffer.from(value, "utf8");
  let zeroChunks = "";
  for (let offset = 0; offset < bytes.length; offset += 32)
    zeroChunks += bytes.subarray(offset, offset + 32).every((byte) => byte === 0) ? "0" : "x";
  return `${bytes.length}:${zeroChunks}`;
}
