import { z } from "zod/v4";

import {
  CHAIN_FAULT_KINDS,
  MAX_FAULT_BLOCKS,
  MAX_FAULT_SECONDS,
  MAX_FEE_MULTIPLIER,
  MAX_REORG_BLOCKS,
  RPC_ERROR_KINDS,
} from "../domain/faults.js";
import { integerString } from "./schemas.js";

// The shapes of chain faults (TOKEN_SERVICE_CHAIN_FAULTS=on): the fault a simulated chain is told to show, and what
// it did. The core checks the request (src/domain/faults.ts) and names the first bad field.

const faultBlocks = (description: string, max = MAX_FAULT_BLOCKS) => z.number().int().min(1).max(max).describe(description);
const faultSeconds = z.number().positive().max(MAX_FAULT_SECONDS).describe("Length in seconds");

/** The fault request, as documented; the core checks it (src/domain/faults.ts) and names the first bad field. */
export const ChainFaultBody = z.discriminatedUnion("fault", [
  z
    .strictObject({
      fault: z.literal("fee-spike"),
      multiplier: z
        .number()
        .min(1)
        .max(MAX_FEE_MULTIPLIER)
        .optional()
        .describe("The base fee times this (from the base fee before the spike); or baseFeePerGas"),
      baseFeePerGas: integerString("The base fee in wei, instead of multiplier", "50000000000").optional(),
      blocks: faultBlocks("Blocks the spike lasts; the first is mined at once"),
    })
    .meta({ title: "fee-spike: blocks at a higher base fee" }),
  z
    .strictObject({
      fault: z.literal("stall"),
      blocks: faultBlocks("Blocks not mined (on a chain with a block time)").optional(),
      seconds: faultSeconds.optional(),
    })
    .meta({ title: "stall: nothing mined for a while; what was sent waits, then is mined" }),
  z
    .strictObject({
      fault: z.literal("drop"),
      blocks: faultBlocks("Blocks not mined before the pool is forgotten (on a chain with a block time)").optional(),
      seconds: faultSeconds.optional(),
    })
    .meta({ title: "drop: what waits is forgotten (at once, or at the end of a stall of that length)" }),
  z
    .strictObject({
      fault: z.literal("reorg"),
      blocks: faultBlocks("How many of the latest blocks a longer fork replaces", MAX_REORG_BLOCKS),
    })
    .meta({ title: "reorg: the latest blocks replaced; their transactions mined again in new blocks" }),
  z
    .strictObject({
      fault: z.literal("rpc-errors"),
      rate: z.number().min(0).max(1).describe("Share of the node calls that fail, 0 to 1"),
      calls: z.number().int().min(1).max(1_000_000).optional().describe("For this many calls (or seconds; neither: until cleared)"),
      seconds: faultSeconds.optional(),
      errors: z.array(z.enum(RPC_ERROR_KINDS)).min(1).optional().describe("How calls fail; default all three"),
    })
    .meta({ title: "rpc-errors: node calls answer 429 or 503, or time out" }),
]);

export const ChainFault = z.lazy(() =>
  z.object({
    id: z.string().describe("Name it to DELETE it alone"),
    fault: z.enum(CHAIN_FAULT_KINDS),
    chain: z.string(),
    network: z.string(),
    status: z.enum(["active", "ended"]).describe("A reorg or a drop without a length acts at once: ended"),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    endReason: z.string().nullable().describe('"ran its length", "cleared", "replaced by <id>", "done"'),
    request: z.record(z.string(), z.unknown()).describe("The request as checked"),
    remaining: z
      .object({ blocks: z.number().optional(), seconds: z.number().optional(), calls: z.number().optional() })
      .nullable()
      .describe("What is left while active; null: until cleared, or ended"),
    effect: z
      .record(z.string(), z.unknown())
      .describe(
        "What it did: fee-spike baseFeePerGas, baseFeeBefore, blocks; stall/drop held, blocksSkipped, forgotten (hashes); reorg replacedFrom, oldHead, head, transactions, reincluded, forgotten; rpc-errors calls, failed (by kind)",
      ),
  }),
);

export const ChainFaultList = z.lazy(() => z.object({ faults: z.array(ChainFault) }));
export const ClearedChainFaults = z.lazy(() => z.object({ cleared: z.array(ChainFault).describe("The faults ended, now ended") }));
