import type { RequestHandler } from "express";
import type { Logger } from "pino";

/**
 * One line per request. The path is logged without its query string, which may carry the API key. The line's fields
 * are these five, none of them a secret, so its logger skips the redaction every other line gets: walking the redacted
 * paths' wildcards was a tenth of a wallet creation's time outside the key itself.
 */
export function requestLog(logger: Logger): RequestHandler {
  const lines = logger.child({}, { redact: [] });
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    // Read now: routers rewrite request.url while they dispatch.
    const path = request.originalUrl.split("?")[0];
    response.on("finish", () => {
      lines.info(
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
