import type { RouteDefinition } from "../route.js";
import { ErrorResponse } from "../schemas.js";

const DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request: the field and the rule it broke",
  401: "Missing or wrong API key",
  404: "Not found",
  408: "The request was not received in time (headers and body must come without pausing)",
  409: "Idempotency-Key reused with another body, or still in progress; a signed transaction not prepared, already submitted, or whose nonce is taken",
  413: "Body over 64 KiB",
  415: "Body is not application/json",
  421: "Without API keys (--no-auth): addressed to a name other than localhost, 127.0.0.1 or [::1]",
  422: "Refused by the chain: insufficient funds, not a token contract, key does not derive the sender…",
  429: "Rate limited, or too many wrong API keys from this address (see Retry-After)",
  431: "Request headers over 16 KiB",
  502: "The node failed or serves another chain",
  503: "No backend configured for this network, or the database is unreachable (see Retry-After)",
  504: "The node timed out",
};

export function errorResponses(...statuses: number[]): Record<number, { description: string; schema: typeof ErrorResponse }> {
  return Object.fromEntries(statuses.map((status) => [status, { description: DESCRIPTIONS[status] ?? "Error", schema: ErrorResponse }]));
}

/** What node's HTTP parser and the middleware in front of a route can answer, whatever the route itself does. */
export function middlewareResponses(route: RouteDefinition): ReturnType<typeof errorResponses> {
  return errorResponses(
    // The parser: a request that is not valid HTTP (or a path that is not valid percent-encoding), too slow, headers over 16 KiB.
    400,
    408,
    431,
    ...(route.auth ? [401, 421, 429, 503] : []),
    ...(route.method === "post" ? [413, 415] : []),
    ...(route.idempotent ? [409] : []),
  );
}
