import type { RequestHandler } from "express";
import type { Logger } from "pino";

/** One line per request. The path is logged without its query string, which may carry the API key. */
export function requestLog(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    // Read now: routers rewrite request.url while they dispatch.
    const path = request.originalUrl.split("?")[0];
    response.on("finish", () => {
      logger.info(
        {
          method: request.method,
          path,
          status: response.statusCode,
          latencyMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          keyId: request.apiKeyId ?? null,
        },
        "request",
      );
    });
    next();
  };
}
