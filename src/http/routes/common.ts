import { z } from "zod/v4";

import { ERROR_CATALOG } from "../../domain/errors.js";
import { codesWithStatus } from "../http-errors.js";
import type { RouteDefinition } from "../route.js";
import { ErrorResponse, errorResponseWithCodes } from "../schemas.js";

/** "`CODE`: title; `CODE`: title", from the catalog (src/domain/errors.ts). */
export function errorResponseDescription(status: number): string {
  const codes = codesWithStatus(status);
  if (codes.length === 0) return "Error";
  return codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].title}`).join("; ");
}

const schemas = new Map<number, z.ZodType>();

/**
 * The error shape with `code` limited to the codes the catalog maps to this status: z.lazy, built on the first
 * /openapi.json (nothing else reads it), not when the routes are defined at start-up.
 */
function errorSchema(status: number): z.ZodType {
  let schema = schemas.get(status);
  if (schema === undefined) {
    schema = z.lazy(() => {
      const codes = codesWithStatus(status);
      return codes.length === 0 ? ErrorResponse : errorResponseWithCodes(codes as [string, ...string[]]);
    });
    schemas.set(status, schema);
  }
  return schema;
}

export function errorResponses(...statuses: number[]): Record<number, { description: string; schema: z.ZodType }> {
  return Object.fromEntries(
    statuses.map((status) => [status, { description: errorResponseDescription(status), schema: errorSchema(status) }]),
  );
}

/** What node's HTTP parser and the middleware in front of a route can answer, whatever the route itself does. */
export function middlewareResponses(route: RouteDefinition): ReturnType<typeof errorResponses> {
  return errorResponses(
    // The parser: a request that is not valid HTTP (or a path that is not valid percent-encoding), too slow, headers over 16 KiB.
    400,
    408,
    431,
    ...(route.auth ? [401, 421, 429, 503] : []),
    // 403: a privateKey in a body under the production switch (TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false).
    ...(route.method === "post" || route.method === "put" ? [403, 413, 415] : []),
    ...(route.idempotent ? [409] : []),
    // 405: a parameter's place holding a fixed route's name asked with another method (GET /tokens/mint: middleware/method-guard.ts).
    ...(route.paths.some((path) => path.includes(":")) ? [405] : []),
  );
}
