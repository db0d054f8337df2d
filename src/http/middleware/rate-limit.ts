import type { RequestHandler } from "express";

import { HttpError, HttpErrorCode } from "../http-errors.js";
import type { SharedRateLimiter } from "../rate-limiter.js";

export type { RateLimitSettings } from "../rate-limiter.js";

/** Per-key fixed window; the limiter decides from memory and shares its counts through the store. */
export function rateLimit(limiter: SharedRateLimiter, settings: { limit: number; windowMs: number }): RequestHandler {
  return (request, response, next) => {
    if (settings.limit <= 0) return next();
    const result = limiter.hit(`key:${request.apiKeyId ?? `ip:${request.ip}`}`);
    const resetSeconds = Math.max(1, Math.ceil(result.resetMs / 1000));
    response.set({
      "RateLimit-Limit": String(result.limit),
      "RateLimit-Remaining": String(result.remaining),
      "RateLimit-Reset": String(resetSeconds),
    });
    if (result.allowed) return next();
    next(
      new HttpError(
        HttpErrorCode.RATE_LIMITED,
        `rate limit of ${settings.limit} requests per ${settings.windowMs / 1000} s reached; retry in ${resetSeconds} s`,
        undefined,
        { "Retry-After": String(resetSeconds) },
      ),
    );
  };
}
