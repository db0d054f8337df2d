import type { RequestHandler } from "express";
import type { Logger } from "pino";

/** One line per request. The path is logged without its query string, which may carry the API key. */
export function requestLog(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    response.on("finish", () => {
      logger.info(
        {
          method: request.method,
          path: request.path,
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
