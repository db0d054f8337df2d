import type { z } from "zod/v4";

import { parseChainFault } from "../../domain/faults.js";
import { defineRoute, type RouteRequest } from "../route.js";
import type { ServerContext } from "../context.js";
import { ChainFault, ChainFaultBody, ChainFaultList, ClearedChainFaults } from "../fault-schemas.js";
import { errorResponses } from "./common.js";

const PAIR = {
  chain: "ethereum or binance_smart_chain",
  network: "A network of that chain, served by a simulated chain",
};

const OFF =
  "Only on a service started with `TOKEN_SERVICE_CHAIN_FAULTS=on` (404 `CHAIN_FAULTS_OFF` otherwise), and only on simulated pairs (409 `LIVE_NETWORK_FAULTS` on a live one). See docs/faults.md.";

const faultsOf = ({ params }: RouteRequest<unknown, unknown>, { service }: ServerContext) =>
  service.chainFaults({ chain: params.chain ?? "", network: params.network ?? "" });

export const injectChainFaultRoute = defineRoute({
  method: "post",
  paths: ["/chains/:chain/:network/faults"],
  operationId: "injectChainFault",
  tag: "faults",
  summary: "Make a simulated chain misbehave: fee spike, stall, drop, reorg, failing node calls",
  description:
    "`fee-spike`: the next `blocks` blocks (the first mined at once) at `multiplier` × the base fee, or at `baseFeePerGas`; the block after is back at the base fee before. " +
    "`stall`: nothing is mined for `seconds` (or `blocks`, on a chain with a block time); what is sent meanwhile waits, then is mined. " +
    "`drop`: what waits unmined is forgotten, at once, or at the end of a stall of that length; the service's tracker sends its own transactions again. " +
    "`reorg`: the latest `blocks` blocks are replaced by a longer fork; their transactions are mined again in new blocks, and records mined in them go back to `pending` (webhook `operation.reorged`), then `mined`. " +
    "`rpc-errors`: a share (`rate`) of the service's calls to the node fail with `errors` (429, 503 or a timeout after the node request timeout), for `calls` calls or `seconds` (neither: until cleared); the service answers 502 or 504, its records wait. " +
    "A new fee-spike, stall/drop or rpc-errors replaces the active one of its kind. Faults live in the service's memory: a restart ends them. " +
    OFF,
  auth: true,
  pathParams: PAIR,
  body: ChainFaultBody,
  bodyExamples: {
    feeSpike: { summary: "Base fee × 3 for 20 blocks", value: { fault: "fee-spike", multiplier: 3, blocks: 20 } },
    feeSpikeWei: { summary: "Base fee 50 gwei for 5 blocks", value: { fault: "fee-spike", baseFeePerGas: "50000000000", blocks: 5 } },
    stall: { summary: "Nothing mined for 30 s", value: { fault: "stall", seconds: 30 } },
    drop: { summary: "Hold for 10 s, then forget what waits", value: { fault: "drop", seconds: 10 } },
    reorg: { summary: "Replace the latest 2 blocks", value: { fault: "reorg", blocks: 2 } },
    rpcErrors: {
      summary: "Half the node calls answer 429 or 503, for 100 calls",
      value: { fault: "rpc-errors", rate: 0.5, calls: 100, errors: ["429", "503"] },
    },
  },
  // Checked here for a 400 naming the field before any chain is started, and again where it enters the core.
  validateBody(raw: unknown) {
    parseChainFault(raw);
    return raw as z.infer<typeof ChainFaultBody>;
  },
  responses: {
    201: {
      description: "Started (`status` active), or made at once (a reorg, a drop without a length: `status` ended)",
      schema: ChainFault,
    },
    ...errorResponses(400, 401, 404, 409, 413, 415, 429, 502, 503),
  },
  async handle(request, context) {
    const faults = await faultsOf(request, context);
    return { status: 201, body: await faults.inject(request.body) };
  },
});

export const listChainFaultsRoute = defineRoute({
  method: "get",
  paths: ["/chains/:chain/:network/faults"],
  operationId: "listChainFaults",
  tag: "faults",
  summary: "The faults active on a simulated chain",
  description: OFF,
  auth: true,
  pathParams: PAIR,
  responses: {
    200: { description: "The active faults, oldest first", schema: ChainFaultList },
    ...errorResponses(400, 401, 404, 409, 429, 503),
  },
  async handle(request, context) {
    return { body: { faults: (await faultsOf(request, context)).list() } };
  },
});

export const clearChainFaultsRoute = defineRoute({
  method: "delete",
  paths: ["/chains/:chain/:network/faults"],
  operationId: "clearChainFaults",
  tag: "faults",
  summary: "End every active fault of a simulated chain",
  description: `A stall or a drop ended early mines what it held, nothing forgotten, but only what pays the next block's base fee (a fee spike's too): a transaction a spike overtook waits. ${OFF}`,
  auth: true,
  pathParams: PAIR,
  responses: { 200: { description: "The faults it ended", schema: ClearedChainFaults }, ...errorResponses(400, 401, 404, 409, 429, 503) },
  async handle(request, context) {
    return { body: { cleared: await (await faultsOf(request, context)).clear() } };
  },
});

export const clearChainFaultRoute = defineRoute({
  method: "delete",
  paths: ["/chains/:chain/:network/faults/:id"],
  operationId: "clearChainFault",
  tag: "faults",
  summary: "End one active fault of a simulated chain",
  description: `404 \`CHAIN_FAULT_NOT_FOUND\` when no active fault has that id. ${OFF}`,
  auth: true,
  pathParams: { ...PAIR, id: "The fault's id" },
  responses: { 200: { description: "The fault, now ended", schema: ClearedChainFaults }, ...errorResponses(400, 401, 404, 409, 429, 503) },
  async handle(request, context) {
    return { body: { cleared: await (await faultsOf(request, context)).clear(request.params.id ?? "") } };
  },
});
