import type { RequestHandler } from "express";

import { HttpError, HttpErrorCode } from "../http-errors.js";
import type { Store } from "../store/types.js";

export interface RateLimitSettings {
  /** Requests per window and API key; 0 disables the limit. */
  limit: number;
  windowMs: number;
}

/** Per-key fixed window, counted in the store so replicas on one PostgreSQL share it. */
export function rateLimit(store: Store, settings: RateLimitSettings): RequestHandler {
  return async (request, response, next) => {
    if (settings.limit <= 0) return next();
    try {
      const bucket = `key:${request.apiKeyId ?? `ip:${request.ip}`}`;
      const result = await store.hitRateLimit(bucket, settings.limit, settings.windowMs);
      const resetSeconds = Math.max(1, Math.ceil(result.resetMs / 1000));
      response.set({
        "RateLimit-Limit": String(result.limit),
        "RateLimit-Remaining": String(result.remaining),
        "RateLimit-Reset": String(resetSeconds),
      });
      if (!result.allowed) {
        return next(
          new HttpError(
            429,
            HttpErrorCode.RATE_LIMITED,
            `rate limit of ${settings.limit} requests per ${settings.windowMs / 1000} s reached; retry in ${resetSeconds} s`,
            undefined,
            { "Retry-After": String(resetSeconds) },
          ),
        );
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
