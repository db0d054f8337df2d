import type { RequestHandler } from "express";

import { HttpError, HttpErrorCode } from "../http-errors.js";
import { isLoopbackHostHeader } from "../loopback.js";

/**
 * Without API keys the service trusts whoever reaches the loopback socket. A web
 * page can reach it too, through a DNS name it rebinds to 127.0.0.1; its requests
 * then carry that name as Host, so only loopback names are answered.
 */
export function requireLoopbackHost(): RequestHandler {
  return (request, _response, next) => {
    if (isLoopbackHostHeader(request.headers.host)) return next();
    next(
      new HttpError(
        HttpErrorCode.HOST_NOT_ALLOWED,
        "without API keys (--no-auth) the service answers only requests addressed to localhost, 127.0.0.1 or [::1]",
        "Host",
      ),
    );
  };
}
