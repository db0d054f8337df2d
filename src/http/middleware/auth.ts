import type { RequestHandler } from "express";

import type { ApiKeyVerifier } from "../api-keys.js";
import type { AuthFailureLimiter } from "../auth-failures.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";

declare module "express-serve-static-core" {
  interface Request {
    apiKeyId?: string | null;
  }
}

function tooManyFailures(retryAfterSeconds: number): HttpError {
  return new HttpError(
    HttpErrorCode.TOO_MANY_AUTH_FAILURES,
    `too many requests with a wrong API key from this address; retry in ${retryAfterSeconds} s`,
    "apiKey",
    { "Retry-After": String(retryAfterSeconds) },
  );
}

/** The API key comes as the `apiKey` query parameter (as the interface document shows) or the `x-api-key` header. */
export function requireApiKey(verifier: ApiKeyVerifier | undefined, failures?: AuthFailureLimiter): RequestHandler {
  return async (request, _response, next) => {
    if (verifier === undefined) {
      request.apiKeyId = null;
      return next();
    }
    // Express parses the query string at each read of request.query: only when no header came.
    const presented = request.get("x-api-key") || (typeof request.query.apiKey === "string" ? request.query.apiKey : undefined);
    if (!presented) {
      return next(new HttpError(HttpErrorCode.UNAUTHORIZED, "an API key is required: pass ?apiKey=… or the x-api-key header", "apiKey"));
    }
    const client = request.ip ?? "unknown";
    let id: string | undefined;
    try {
      const wait = failures?.retryAfterSeconds(client);
      if (wait !== undefined) return next(tooManyFailures(wait));
      id = await verifier.verify(presented);
      if (id === undefined) {
        const blocked = await failures?.recordFailure(client);
        if (blocked !== undefined) return next(tooManyFailures(blocked));
      }
    } catch (error) {
      return next(error);
    }
    if (id === undefined) return next(new HttpError(HttpErrorCode.UNAUTHORIZED, "the API key is not valid", "apiKey"));
    request.apiKeyId = id;
    next();
  };
}
