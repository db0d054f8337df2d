import type { RequestHandler } from "express";

import type { ApiKeyVerifier } from "../api-keys.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";

declare module "express-serve-static-core" {
  interface Request {
    apiKeyId?: string | null;
  }
}

/** The API key comes as the `apiKey` query parameter (as the interface document shows) or the `x-api-key` header. */
export function requireApiKey(verifier: ApiKeyVerifier | undefined): RequestHandler {
  return async (request, _response, next) => {
    if (verifier === undefined) {
      request.apiKeyId = null;
      return next();
    }
    const fromQuery = typeof request.query.apiKey === "string" ? request.query.apiKey : undefined;
    const fromHeader = request.get("x-api-key");
    const presented = fromHeader || fromQuery;
    if (!presented) {
      return next(new HttpError(401, HttpErrorCode.UNAUTHORIZED, "an API key is required: pass ?apiKey=… or the x-api-key header", "apiKey"));
    }
    let id: string | undefined;
    try {
      id = await verifier.verify(presented);
    } catch (error) {
      return next(error);
    }
    if (id === undefined) return next(new HttpError(401, HttpErrorCode.UNAUTHORIZED, "the API key is not valid", "apiKey"));
    request.apiKeyId = id;
    next();
  };
}
