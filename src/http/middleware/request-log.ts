import type { RequestHandler } from "express";
import type { Logger } from "pino";

/**
 * One line per request, answered or left by its client. The path is logged without its query string, which may carry
 * the API key. The line's fields are these five, none of them a secret, so its logger skips the redaction every other line gets: walking the redacted
 * paths' wildcards was a tenth of a wallet creation's time outside the key itself.
 */
export function requestLog(logger: Logger): RequestHandler {
  const lines = logger.child({}, { redact: [] });
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    // Read now: routers rewrite request.url while they dispatch.
    const path = request.originalUrl.split("?")[0];
    const fields = () => ({
      method: request.method,
      path,
      status: response.statusCode,
      latencyMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
      keyId: request.apiKeyId ?? null,
    });
    response.on("finish", () => lines.info(fields(), "request"));
    // A client that leaves before its answer was written (a cancelled wait, an aborted download) still gets its line,
    // at info: it is not a fault of the service (issue 34).
    response.on("close", () => {
      if (!response.writableFinished) lines.info(fields(), "the client closed the connection before the answer");
    });
    next();
  };
}
