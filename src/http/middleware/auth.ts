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

/** Where a key is read from, and how to make one: every 401 for a missing key says it. */
const KEY_SOURCES = "the x-api-key header or the apiKey query parameter";
const KEY_CREATION = "create one with `npx hardhat apikey:create` in the service's project";

/**
 * No key where the service reads one. A key sent another way is named as what it is (never echoed): an Authorization
 * header (Bearer or any other scheme), or a query parameter spelled otherwise (`apikey`, `api_key`, `API-KEY`).
 */
function missingKey(authorization: string | undefined, queryNames: string[]): HttpError {
  const misspelt = queryNames.find((name) => name !== "apiKey" && /^api[-_]?key$/i.test(name));
  if (misspelt !== undefined) {
    return new HttpError(
      HttpErrorCode.UNAUTHORIZED,
      `the API key came as the query parameter "${misspelt}"; the service reads it from ${KEY_SOURCES} (spelt apiKey, this case)`,
      misspelt,
    );
  }
  if (authorization !== undefined && authorization.trim() !== "") {
    // Only a known scheme's name is repeated: a header without one may be the secret itself.
    const scheme = /^(bearer|basic|token|apikey|api-key|digest)\s/i.exec(authorization.trim())?.[1];
    const named = scheme === undefined ? "an Authorization header" : `an Authorization: ${scheme} header`;
    return new HttpError(
      HttpErrorCode.UNAUTHORIZED,
      `the request carries ${named}, which the service does not read; send the API key in ${KEY_SOURCES}`,
      "authorization",
    );
  }
  return new HttpError(HttpErrorCode.UNAUTHORIZED, `an API key is required: send it in ${KEY_SOURCES}; ${KEY_CREATION}`, "apiKey");
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
    if (!presented) return next(missingKey(request.get("authorization"), Object.keys(request.query)));
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
    if (id === undefined) {
      return next(
        new HttpError(
          HttpErrorCode.UNAUTHORIZED,
          `the API key is not valid: it is not one this service's store holds; ${KEY_CREATION}`,
          "apiKey",
        ),
      );
    }
    request.apiKeyId = id;
    next();
  };
}
