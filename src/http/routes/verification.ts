import type { EvmNetworkInfo } from "../../chains/evm/chain.js";
import { launchedTokenVerification } from "../../core/token-verification.js";
import { latestUpgrade } from "../../core/upgrades.js";
import type { Verifications } from "../../core/verifications/verifications.js";
import type { VerificationRecord } from "../../core/verifications/types.js";
import { requireEvm } from "../../domain/chains.js";
import { parseEvmAddress } from "../../domain/addresses.js";
import type { ServerContext } from "../context.js";
import { EXAMPLE_PAIR } from "../examples.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";
import { defineRoute } from "../route.js";
import { TokenVerificationAnswer, TokenVerificationQuery, VerificationRecordAnswer, VerifyTokenBody } from "../verification-schemas.js";
import { errorResponses } from "./common.js";

export const tokenVerificationRoute = defineRoute({
  method: "get",
  paths: ["/tokens/:address/verification"],
  operationId: "getTokenVerification",
  tag: "tokens",
  summary: "What an explorer needs to verify a token you launched: its standard JSON input and constructor arguments",
  description:
    "For a contract a launch made with your API key deployed on the pair: the compiler, the settings, the standard JSON input and the ABI-encoded constructor arguments, read back from the launch's own transaction. Etherscan, Blockscout and Sourcify give a full match with them (docs/tokens.md#verifying-a-token).",
  auth: true,
  pathParams: { address: "The token's contract address" },
  query: TokenVerificationQuery,
  responses: {
    200: { description: "The verification input", schema: TokenVerificationAnswer },
    ...errorResponses(400, 401, 404, 409, 429),
  },
  async handle({ query, params, apiKeyId }, { service, store }) {
    const info = requireEvm(service.chains.resolve(query.chain, query.network), "token verification") as EvmNetworkInfo;
    const address = parseEvmAddress(params.address ?? "", "address");
    const body = await launchedTokenVerification(
      (contractAddress) => store.findOwnLaunch(apiKeyId, info.chain, info.network, contractAddress),
      info,
      address,
      service.variants,
      (contractAddress) => latestUpgrade(store, apiKeyId, info, contractAddress),
    );
    return { body };
  },
});

/** The public shape: no API key id (it is the caller's), no launch id (the contract names it). */
function presentVerification({ apiKeyId: _apiKeyId, operationId: _operationId, ...record }: VerificationRecord) {
  return record;
}

function verificationsOf({ service }: ServerContext): Verifications {
  if (service.verifications === undefined) {
    throw new HttpError(HttpErrorCode.SERVICE_UNAVAILABLE, "this service keeps no verifications (it was started without a store)");
  }
  return service.verifications;
}

export const verifyTokenRoute = defineRoute({
  method: "post",
  paths: ["/tokens/:address/verify"],
  operationId: "verifyToken",
  tag: "tokens",
  summary: "Submit a token you launched to an explorer for verification; its record says how it went",
  description:
    "Answers 202 with a `pending` verification record at once; the service submits the launch's standard JSON input, compiler and constructor arguments (as GET /tokens/{address}/verification gives them) to the explorer, then asks it until the answer is final: `verified` (already verified counts) or `failed`, with the explorer's words in `explorerMessage`. Read it with GET /verifications/{id}. A pending record of your key for the same contract and explorer is answered instead of a second submission. Refused on a simulated pair (no explorer sees it) and for an explorer without its key or URL (docs/tokens.md#verifying-a-token).",
  auth: true,
  pathParams: { address: "The token's contract address" },
  body: VerifyTokenBody,
  bodyExamples: { etherscan: { summary: "Verify on Etherscan", value: { ...EXAMPLE_PAIR, explorer: "etherscan" } } },
  responses: {
    202: { description: "The verification record, pending", schema: VerificationRecordAnswer },
    ...errorResponses(400, 401, 404, 409, 422, 429, 503),
  },
  async handle({ body, params, apiKeyId }, context) {
    const address = parseEvmAddress(params.address ?? "", "address");
    const record = await verificationsOf(context).request(apiKeyId, { ...body, address }, (chain, network, contractAddress) =>
      context.store.findOwnLaunch(apiKeyId, chain, network, contractAddress),
    );
    return { status: 202, body: presentVerification(record) };
  },
});

export const getVerificationRoute = defineRoute({
  method: "get",
  paths: ["/verifications/:id"],
  operationId: "getVerification",
  tag: "tokens",
  summary: "A verification record: pending, verified or failed, with the explorer's words",
  auth: true,
  pathParams: { id: "The verification's id" },
  responses: {
    200: { description: "The verification record", schema: VerificationRecordAnswer },
    ...errorResponses(401, 404, 429, 503),
  },
  async handle({ params, apiKeyId }, context) {
    return { body: presentVerification(await verificationsOf(context).get(apiKeyId, params.id ?? "")) };
  },
});
