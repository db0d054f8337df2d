import { z } from "zod/v4";

import { invalidArgument } from "../../domain/errors.js";
import type { RequestOf, WriteCommandName } from "../../core/operations/write-commands.js";
import { FINAL_STATUSES, type OperationStatus } from "../../core/operations/types.js";
import type { ServerContext } from "../context.js";
import type { BodyExample } from "../examples.js";
import { defineRoute, type RouteDefinition } from "../route.js";
import { type signedWrite, WaitQuery } from "../schemas.js";
import type { ApiTag } from "../tags.js";
import { parseWith } from "../validation.js";
import { errorResponses } from "./common.js";

// Every write endpoint (launch, mint, transfer, approve, …) has one shape: a body of its own fields plus who signs, a
// prepare when nobody does, `wait=mined`, an Idempotency-Key, and the same answers. Each declares only what is its own.

type Settled = { id: string; status: OperationStatus; blockNumber: number | null };

/** With `wait=mined`, answers once the operation is final; after the wait timeout, 202 with its status then. */
export async function settle<T extends Settled>(
  context: ServerContext,
  result: T,
  wait: string | undefined,
): Promise<{ status: number; body: T }> {
  // 202: signed and recorded, but the node's acceptance is not confirmed yet (the tracker sends it).
  if (wait !== "mined") return { status: result.status === "signed" ? 202 : 200, body: result };
  const settled = await context.service.operations.settle(result, context.waitTimeoutMs);
  return { status: FINAL_STATUSES.includes(settled.status) ? 200 : 202, body: settled };
}

/** Without a key or a signature, a write's body asks for the transaction to sign. */
export const isPrepare = (body: object) => !("privateKey" in body) && !("signedTransaction" in body);

export function notBoth<T extends { privateKey?: string; signedTransaction?: string }>(body: T): T {
  if (body.privateKey !== undefined && body.signedTransaction !== undefined) {
    throw invalidArgument("signedTransaction", "give privateKey or signedTransaction, not both (a signed transaction needs no key)");
  }
  return body;
}

type Write = ReturnType<typeof signedWrite>;

export interface WriteRouteSpec<W extends Write, Q extends z.ZodType, N extends WriteCommandName> {
  /** Under the version prefix. */
  path: string;
  operationId: string;
  tag: ApiTag;
  summary: string;
  description: string;
  /** The body: the endpoint's own fields with the signing ones (schemas.ts `signedWrite`). */
  write: W;
  /** Default: `wait` alone. */
  query?: Q;
  bodyExamples: Record<string, BodyExample>;
  /** The operation as sent (200, 202). */
  answer: z.ZodType;
  /** A prepare's answer (200). */
  prepared: z.ZodType;
  /** 202's text, where the endpoint says more than the common one. */
  acceptedDescription?: string;
  /** Replaces the check of the body against `write.fields` (a shape that depends on the body itself). */
  parseBody?(raw: unknown): z.infer<W["fields"]>;
  /** Refuses a query that disagrees with the body. */
  checkQuery?(query: z.infer<Q>, body: z.infer<W["body"]>): void;
  /** The write the body asks for (core/operations/write-commands.ts): prepared without a key, else recorded and sent. */
  command: N;
  /** Another kind of body the route takes (a Bitcoin transfer), told apart by `when`, written by `send`. */
  alternative?: {
    body: z.ZodType;
    answer: z.ZodType;
    when(raw: unknown): boolean;
    send(body: unknown, context: ServerContext, ids: { apiKeyId: string | null; operationId: string }): Promise<Settled>;
  };
}

const ACCEPTED = "Signed and recorded, broadcast not confirmed (status signed), or wait=mined timed out (status pending)";

/** The route of one write endpoint. */
export function defineWriteRoute<W extends Write, N extends WriteCommandName, Q extends z.ZodType = typeof WaitQuery>(
  spec: WriteRouteSpec<W, Q, N> & (z.infer<W["body"]> extends RequestOf<N> ? unknown : "the body does not make the command's request"),
): RouteDefinition {
  return defineRoute<Q, W["body"]>({
    method: "post",
    paths: [spec.path],
    operationId: spec.operationId,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    auth: true,
    idempotent: true,
    query: (spec.query ?? WaitQuery) as Q,
    body: (spec.alternative ? z.union([spec.write.body, spec.alternative.body]) : spec.write.body) as W["body"],
    bodyExamples: spec.bodyExamples,
    responses: {
      200: {
        description:
          "Accepted by the node (or mined, with wait=mined); a prepare (no privateKey, no signedTransaction): the transaction to sign",
        schema: z.union([spec.answer, ...(spec.alternative ? [spec.alternative.answer] : []), spec.prepared]),
      },
      202: {
        description: spec.acceptedDescription ?? ACCEPTED,
        schema: spec.alternative ? z.union([spec.answer, spec.alternative.answer]) : spec.answer,
      },
      ...errorResponses(400, 401, 409, 413, 415, 422, 429, 502, 503, 504),
    },
    // Checked against the fields a body may hold; with notBoth, it is then one of the documented union's shapes.
    validateBody: (raw: unknown) =>
      (spec.alternative?.when(raw)
        ? parseWith(spec.alternative.body, raw)
        : notBoth(spec.parseBody ? spec.parseBody(raw) : parseWith(spec.write.fields, raw))) as z.infer<W["body"]>,
    async handle({ query, body, apiKeyId, operationId }, context) {
      const { wait } = query as { wait?: string };
      if (spec.alternative?.when(body)) return settle(context, await spec.alternative.send(body, context, { apiKeyId, operationId }), wait);
      spec.checkQuery?.(query as z.infer<Q>, body);
      const { operations } = context.service;
      // No key and no signature: the service signs for a held wallet of this API key; any other sender gets a prepare.
      const { chain, network, sender } = body as { chain?: unknown; network?: unknown; sender?: unknown };
      if (isPrepare(body) && !(await context.service.custody.holds({ apiKeyId }, chain, network, sender)))
        return { body: await operations.prepare(spec.command, body as RequestOf<N>) };
      const sent = await operations.write(spec.command, body as RequestOf<N>, { apiKeyId, id: operationId });
      return settle(context, sent as Settled, wait);
    },
  });
}
