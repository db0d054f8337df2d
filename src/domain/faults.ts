import { invalidArgument } from "./errors.js";

// The faults a simulated chain can be told to make, as the doors accept them (a JSON body, task options, an object in
// code) and as the chain runs them, parsed once here: every field checked, the first bad one named.

export const CHAIN_FAULT_KINDS = ["fee-spike", "stall", "drop", "reorg", "rpc-errors"] as const;
export type ChainFaultKind = (typeof CHAIN_FAULT_KINDS)[number];

/** How an rpc-errors fault fails a call: an HTTP 429 or 503 answer, or no answer within the request timeout. */
export const RPC_ERROR_KINDS = ["429", "503", "timeout"] as const;
export type RpcErrorKind = (typeof RPC_ERROR_KINDS)[number];

/** Deepest reorganization a chain keeps the blocks for (Ethereum finalizes after about two epochs of 32 blocks). */
export const MAX_REORG_BLOCKS = 64;
export const MAX_FAULT_BLOCKS = 10_000;
export const MAX_FAULT_SECONDS = 86_400;
export const MAX_FEE_MULTIPLIER = 1_000;
/** 1,000,000 gwei: far above any base fee a real network has seen, far below what EDR's arithmetic could overflow. */
export const MAX_BASE_FEE_PER_GAS = 10n ** 15n;

/** A fault as a door receives it: the JSON body's fields (numbers as JSON numbers, wei as a decimal string). */
export interface ChainFaultRequest {
  fault: string;
  multiplier?: number;
  baseFeePerGas?: string;
  blocks?: number;
  seconds?: number;
  rate?: number;
  calls?: number;
  errors?: string[];
}

/** How long a fault lasts: a number of blocks, or of seconds. */
export type FaultLength = { blocks: number } | { seconds: number };

/** A fault, checked. */
export type ChainFault =
  | { fault: "fee-spike"; blocks: number; multiplier: number; baseFeePerGas?: undefined }
  | { fault: "fee-spike"; blocks: number; baseFeePerGas: bigint; multiplier?: undefined }
  | { fault: "stall"; length: FaultLength }
  /** No length: what the node holds unmined is forgotten at once. */
  | { fault: "drop"; length: FaultLength | undefined }
  | { fault: "reorg"; blocks: number }
  /** No length: until cleared. */
  | { fault: "rpc-errors"; rate: number; errors: RpcErrorKind[]; length: { calls: number } | { seconds: number } | undefined };

const FIELDS: Record<ChainFaultKind, readonly string[]> = {
  "fee-spike": ["multiplier", "baseFeePerGas", "blocks"],
  stall: ["blocks", "seconds"],
  drop: ["blocks", "seconds"],
  reorg: ["blocks"],
  "rpc-errors": ["rate", "calls", "seconds", "errors"],
};

function isKind(value: unknown): value is ChainFaultKind {
  return typeof value === "string" && (CHAIN_FAULT_KINDS as readonly string[]).includes(value);
}

function number(body: Record<string, unknown>, field: string, min: number, max: number, whole: boolean): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value))
    throw invalidArgument(field, `${field} must be a number, not ${JSON.stringify(value)}`);
  if (whole && !Number.isInteger(value)) throw invalidArgument(field, `${field} must be a whole number (got ${value})`);
  if (value < min || value > max) throw invalidArgument(field, `${field} must be from ${min} to ${max} (got ${value})`);
  return value;
}

function exclusive(body: Record<string, unknown>, fault: string, a: string, b: string): void {
  if (body[a] !== undefined && body[b] !== undefined) throw invalidArgument(b, `a ${fault} fault takes ${a} or ${b}, not both`);
}

const blocks = (body: Record<string, unknown>, max = MAX_FAULT_BLOCKS) => number(body, "blocks", 1, max, true);
const seconds = (body: Record<string, unknown>) => number(body, "seconds", 0.001, MAX_FAULT_SECONDS, false);

function length(body: Record<string, unknown>, fault: string): FaultLength | undefined {
  exclusive(body, fault, "blocks", "seconds");
  const count = blocks(body);
  if (count !== undefined) return { blocks: count };
  const time = seconds(body);
  return time === undefined ? undefined : { seconds: time };
}

/** Checks a fault request; the first problem is an INVALID_ARGUMENT naming its field. */
export function parseChainFault(raw: unknown): ChainFault {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw invalidArgument("body", "the body must be a JSON object");
  const body = raw as Record<string, unknown>;
  if (body.fault === undefined) throw invalidArgument("fault", `fault is required; one of: ${CHAIN_FAULT_KINDS.join(", ")}`);
  if (!isKind(body.fault)) {
    throw invalidArgument("fault", `unknown fault ${JSON.stringify(body.fault)}; one of: ${CHAIN_FAULT_KINDS.join(", ")}`, {
      allowed: CHAIN_FAULT_KINDS,
    });
  }
  const fault = body.fault;
  const unknown = Object.keys(body).find((key) => key !== "fault" && !FIELDS[fault].includes(key));
  if (unknown !== undefined) {
    throw invalidArgument(unknown, `unknown field ${unknown} for a ${fault} fault; it takes: ${FIELDS[fault].join(", ")}`);
  }
  switch (fault) {
    case "fee-spike": {
      exclusive(body, fault, "multiplier", "baseFeePerGas");
      const count = blocks(body);
      if (count === undefined) throw invalidArgument("blocks", "blocks is required: how many blocks the spike lasts");
      const multiplier = number(body, "multiplier", 1, MAX_FEE_MULTIPLIER, false);
      if (multiplier !== undefined) return { fault, blocks: count, multiplier };
      const fee = body.baseFeePerGas;
      if (fee === undefined) throw invalidArgument("multiplier", "give multiplier (times the latest base fee) or baseFeePerGas (wei)");
      if (typeof fee !== "string" || !/^\d+$/.test(fee)) {
        throw invalidArgument("baseFeePerGas", 'baseFeePerGas must be a decimal string of wei, like "50000000000" (50 gwei)');
      }
      // A number of more digits than the ceiling's is over it: said without converting or quoting all of it.
      const digits = fee.replace(/^0+(?=\d)/, "");
      const baseFeePerGas = digits.length > String(MAX_BASE_FEE_PER_GAS).length ? undefined : BigInt(digits);
      if (baseFeePerGas === undefined || baseFeePerGas < 1n || baseFeePerGas > MAX_BASE_FEE_PER_GAS) {
        const got = baseFeePerGas === undefined ? `a number of ${digits.length} digits` : digits;
        throw invalidArgument("baseFeePerGas", `baseFeePerGas must be from 1 to ${MAX_BASE_FEE_PER_GAS} wei (got ${got})`);
      }
      return { fault, blocks: count, baseFeePerGas };
    }
    case "stall": {
      const stallLength = length(body, fault);
      if (stallLength === undefined)
        throw invalidArgument("seconds", "a stall needs its length: seconds, or blocks (on a chain with a block time)");
      return { fault, length: stallLength };
    }
    case "drop":
      return { fault, length: length(body, fault) };
    case "reorg": {
      const depth = blocks(body, MAX_REORG_BLOCKS);
      if (depth === undefined) throw invalidArgument("blocks", "blocks is required: how many of the latest blocks the reorg replaces");
      return { fault, blocks: depth };
    }
    case "rpc-errors": {
      const rate = number(body, "rate", 0, 1, false);
      if (rate === undefined) throw invalidArgument("rate", "rate is required: the share of calls that fail, from 0 to 1");
      exclusive(body, fault, "calls", "seconds");
      const calls = number(body, "calls", 1, 1_000_000, true);
      const time = seconds(body);
      const errors = body.errors ?? [...RPC_ERROR_KINDS];
      if (!Array.isArray(errors) || errors.length === 0) {
        throw invalidArgument("errors", `errors must be a non-empty list of: ${RPC_ERROR_KINDS.join(", ")}`);
      }
      errors.forEach((kind, index) => {
        if (!(RPC_ERROR_KINDS as readonly unknown[]).includes(kind)) {
          throw invalidArgument(`errors[${index}]`, `unknown error ${JSON.stringify(kind)}; one of: ${RPC_ERROR_KINDS.join(", ")}`);
        }
      });
      return {
        fault,
        rate,
        errors: [...new Set(errors as RpcErrorKind[])],
        length: calls !== undefined ? { calls } : time !== undefined ? { seconds: time } : undefined,
      };
    }
  }
}

/** One fault as the doors show it: its request, how far it has come, and what it did. */
export interface ChainFaultView {
  id: string;
  fault: ChainFaultKind;
  chain: string;
  network: string;
  /** active: misbehaving now; ended: over (it ran its length, was cleared or replaced, or acts at once like a reorg). */
  status: "active" | "ended";
  startedAt: string;
  endedAt: string | null;
  /** Why it ended: "ran its length", "cleared", "replaced by <id>", "done" (a reorg, an immediate drop). */
  endReason: string | null;
  /** The request as checked. */
  request: ChainFaultRequest;
  /** What is left of it while active: blocks, seconds or calls; null when it lasts until cleared or has ended. */
  remaining: { blocks?: number; seconds?: number; calls?: number } | null;
  /** What it did so far, by fault: the spiked base fee, the transactions held or forgotten, the blocks replaced, the calls failed. */
  effect: Record<string, unknown>;
}
