import { z } from "zod/v4";

import type { ReplacementKind } from "../../core/operations/replacements.js";
import type { ServerContext } from "../context.js";
import { isDataException } from "../database-errors.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";
import { presentOperation } from "../../domain/present-operation.js";
import { defineRoute, type RouteResult } from "../route.js";
import { Operation, PreparedReplacement, ReplacementBody } from "../operation-schemas.js";
import { errorResponses } from "./common.js";

/** Speeds up or cancels one of the API key's operations; the answer is the record as it stands, or the replacement to sign. */
async function replace(
  context: ServerContext,
  apiKeyId: string | null,
  idOrHash: string,
  kind: ReplacementKind,
  body: z.infer<typeof ReplacementBody>,
): Promise<RouteResult> {
  const notFound = () =>
    new HttpError(HttpErrorCode.NOT_FOUND, "no operation with this id or transaction hash was made with this API key", "id");
  const found = await context.store.findOwnOperation(apiKeyId, idOrHash).catch((error: unknown) => {
    throw isDataException(error) ? notFound() : error;
  });
  if (found === undefined) throw notFound();
  const request = {
    ...(body.signedTransaction === undefined ? {} : { signedTransaction: body.signedTransaction }),
    ...(body.feeRate === undefined ? {} : { feeRate: body.feeRate }),
  };
  const outcome =
    kind === "cancel"
      ? await context.service.operations.cancel(found.id, request)
      : await context.service.operations.speedUp(found.id, request);
  return { body: "sent" in outcome ? presentOperation(outcome.sent) : outcome.prepared };
}

const pathParams = { id: "The operation's record id, or any transaction hash it was sent as" };
const responses = {
  200: {
    description:
      "The operation as it stands once the replacement was sent (its transactionHash the replacement's); or, for a caller-signed operation (or one whose signed-ahead steps are used up), the replacement to sign",
    schema: z.union([Operation, PreparedReplacement]),
  },
  ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429, 502, 503, 504),
};

export const speedUpRoute = defineRoute({
  method: "post",
  paths: ["/operations/:id/speed-up"],
  operationId: "speedUpOperation",
  tag: "operations",
  summary: "Replace a pending transaction with the same call at higher fees",
  description:
    "For an operation whose key was in its body, sends the next step of the fee ladder signed ahead at send time: the lowest that pays what the node asks now. Otherwise (a caller-signed operation, or the ladder used up) answers the replacement to sign (`unsignedTransaction`: the same call at the same nonce, every fee at least 12.5 % higher and up to what the node asks, under the operation's fee ceiling); send it back signed as `signedTransaction`. The operation is `mined` whichever of its transactions is mined. 409 OPERATION_FINAL once it is final; 422 FEE_CAP_EXCEEDED when the replacement would pay over its ceiling. The service replaces a stuck key-in-body transaction by itself after the pair's replace-after blocks: see docs/operations.md#stuck-transactions. A Bitcoin send from a held wallet is replaced by the service (BIP 125): the same coins and payment at `feeRate` sat/vB, the fee taken from the change; 409 OUTPUT_SPENT when a later unconfirmed send spends its change (speed that one up instead): see docs/custody.md#speed-up-and-cancel-on-bitcoin.",
  auth: true,
  idempotent: true,
  pathParams,
  body: ReplacementBody,
  bodyExamples: {
    sendOrPrepare: { summary: "Send the next step signed ahead, or answer the replacement to sign", value: {} },
    bitcoin: { summary: "Bitcoin: the same payment at 12 sat/vB", value: { feeRate: 12 } },
  },
  responses,
  handle: ({ params, body, apiKeyId }, context) => replace(context, apiKeyId, params.id ?? "", "speed-up", body),
});

export const cancelRoute = defineRoute({
  method: "post",
  paths: ["/operations/:id/cancel"],
  operationId: "cancelOperation",
  tag: "operations",
  summary: "Cancel a pending transaction: a zero-value transfer to the sender takes its nonce",
  description:
    "Sends, at the operation's nonce and with higher fees, a transfer of nothing from its sender to itself: signed ahead at send time for an operation whose key was in its body, else answered as `unsignedTransaction` to sign and send back as `signedTransaction` (as a speed-up). The operation ends `cancelled` (webhook `operation.cancelled`) when the cancel is mined, or `mined` when its own transaction won the race. 409 OPERATION_FINAL once it is final. A Bitcoin send's cancel spends the same coins back to the sender at a higher rate (`feeRate`, sat/vB).",
  auth: true,
  idempotent: true,
  pathParams,
  body: ReplacementBody,
  bodyExamples: {
    sendOrPrepare: { summary: "Send the cancel signed ahead, or answer the cancel to sign", value: {} },
  },
  responses,
  handle: ({ params, body, apiKeyId }, context) => replace(context, apiKeyId, params.id ?? "", "cancel", body),
});
