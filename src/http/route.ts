import type { Request, Response } from "express";
import type { z } from "zod/v4";

import type { ServerContext } from "./context.js";
import type { BodyExample } from "./examples.js";
import type { ApiTag } from "./tags.js";

export interface RouteRequest<Q, B> {
  query: Q;
  body: B;
  params: Record<string, string>;
  apiKeyId: string | null;
  /** The id a recorded operation must take: chosen before an idempotency claim, so that a crash can be settled from it. */
  operationId: string;
  raw: Request;
  res: Response;
}

export interface RouteResult {
  status?: number;
  body: unknown;
}

/** One HTTP operation: its shapes feed both request validation and /openapi.json. */
export interface RouteDefinition<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: "get" | "post" | "put" | "delete";
  /** Express path under the version prefix (/api/v1 and /v1); the first is documented. */
  paths: string[];
  operationId: string;
  /** Its group in /openapi.json and /docs. */
  tag: ApiTag;
  summary: string;
  description?: string;
  /** false for /health, /openapi.json and /docs. */
  auth: boolean;
  /** Accepts an Idempotency-Key header. */
  idempotent?: boolean;
  /** Documented path parameters. */
  pathParams?: Record<string, string>;
  query?: Q;
  body?: B;
  /** Example bodies for /docs (the first is "Try it out"'s default); each must pass the route's own validation (a test checks). */
  bodyExamples?: Record<string, BodyExample>;
  /** Replaces plain `body` validation when the shape depends on the body itself (the token fields per type). */
  validateBody?(raw: unknown): z.infer<B>;
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  handle(request: RouteRequest<z.infer<Q>, z.infer<B>>, context: ServerContext): Promise<RouteResult>;
}

export function defineRoute<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
  route: RouteDefinition<Q, B>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}
