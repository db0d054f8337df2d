import type { EvmNetworkInfo } from "../../chains/evm/chain.js";
import { launchedTokenVerification } from "../../core/token-verification.js";
import { requireEvm } from "../../domain/chains.js";
import { parseEvmAddress } from "../../domain/addresses.js";
import { defineRoute } from "../route.js";
import { TokenVerificationAnswer, TokenVerificationQuery } from "../verification-schemas.js";
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
    );
    return { body };
  },
});
