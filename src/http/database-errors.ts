/**
 * Recognizes the failures of a database that is down, unreachable or closing,
 * as pg, Kysely and node:sqlite report them, so that clients get a 503 to retry rather than a 500.
 */

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

// SQLSTATE class 08 is "connection exception"; 57P01-57P03 are shutdowns and a server not yet accepting
// connections; 53300 is "too many connections".
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;

const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // pg: the server or the network dropped the connection
  /is not queryable$/, // pg: a client whose connection failed
  /^Cannot use a pool after calling end/, // pg: the store is closing
  /^timeout exceeded when trying to connect/, // pg: no connection within the pool's timeout
  /^driver has already been destroyed/, // Kysely: the store is closing
  /^database is not open$/, // node:sqlite: the store is closing
  /^database is locked/, // node:sqlite: another writer held the file past the busy timeout
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== "object" || depth > 4) return false;
  const { code, message, cause, errors } = error as ErrorLike;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Connecting to a name with several addresses fails with an AggregateError; a wrapper keeps its cause.
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** A value the database cannot take (SQLSTATE class 22: out of range, bad encoding, bad text representation). */
export function isDataException(error: unknown): boolean {
  const code = (error as ErrorLike | null)?.code;
  return typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code);
}
