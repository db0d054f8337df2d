import { defineRoute } from "../route.js";
import { FaucetBody, FaucetResult } from "../wallet-schemas.js";
import { NetworkList } from "../service-schemas.js";
import { TransactionQuery, TransactionStatus } from "../operation-schemas.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_PAIR, ONE_TOKEN } from "../examples.js";
import { errorResponses } from "./common.js";

export const transactionRoute = defineRoute({
  method: "get",
  paths: ["/transactions/:hash"],
  operationId: "getTransaction",
  tag: "transactions",
  summary: "Status of a transaction: pending, mined or failed",
  auth: true,
  pathParams: { hash: "0x-prefixed transaction hash" },
  query: TransactionQuery,
  responses: { 200: { description: "The status", schema: TransactionStatus }, ...errorResponses(400, 401, 404, 429, 502, 504) },
  async handle({ query, params }, { service }) {
    return { body: await service.getTransaction({ ...query, transactionHash: params.hash ?? "" }) };
  },
});

export const faucetRoute = defineRoute({
  method: "post",
  paths: ["/faucet"],
  operationId: "faucet",
  tag: "faucet",
  summary: "Fund an address on a simulated chain (or bitcoin regtest)",
  description: "Refused with 422 LIVE_NETWORK_FAUCET on live networks.",
  auth: true,
  idempotent: true,
  body: FaucetBody,
  bodyExamples: {
    evm: {
      summary: "1 ETH on the simulated Ethereum Sepolia",
      value: { ...EXAMPLE_PAIR, address: EXAMPLE_ACCOUNT.address, amount: ONE_TOKEN },
    },
  },
  responses: { 200: { description: "Funded", schema: FaucetResult }, ...errorResponses(400, 401, 409, 413, 415, 422, 429, 502, 503, 504) },
  async handle({ body, apiKeyId, operationId }, { service }) {
    return { body: await service.operations.faucet(body, { apiKeyId, id: operationId }) };
  },
});

export const networksRoute = defineRoute({
  method: "get",
  paths: ["/networks"],
  operationId: "listNetworks",
  tag: "networks",
  summary: "Every chain/network pair: chain id, native currency, simulated or live",
  auth: true,
  responses: { 200: { description: "The pairs", schema: NetworkList }, ...errorResponses(401, 429) },
  async handle(_request, { service }) {
    return { body: { networks: service.networks() } };
  },
});
