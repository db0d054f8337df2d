import type { ErrorRequestHandler, Request } from "express";
import type { Logger } from "pino";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { isDatabaseUnavailable } from "../database-errors.js";
import { isStorageExhausted, type StorageHealth } from "../storage-health.js";
import { HttpError, HttpErrorCode, httpStatusOf, type ErrorBody } from "../http-errors.js";

/** Seconds a client is told to wait when the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
/** Seconds a client is told to wait when the service's own storage is full or out of file descriptors. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

interface BodyParserError {
  type?: string;
  status?: number;
}

/** An answer with the catalog's status for its code. */
function answer(code: HttpErrorCode, message: string, field?: string, headers: Record<string, string> = {}) {
  return { status: httpStatusOf(code), body: { error: { code, message, ...(field !== undefined ? { field } : {}) } }, headers };
}

/** Every failure becomes the one error shape; a 500 only for our own bugs, never with a stack trace. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (error instanceof TokenServiceError) {
    // Storage that ran out (a full disk, no file descriptor) comes back by itself: the client is told when to retry.
    const headers: Record<string, string> =
      error.code === ErrorCode.STORAGE_UNAVAILABLE ? { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) } : {};
    return { status: httpStatusOf(error.code), body: { error: error.toJSON() }, headers };
  }
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) } },
      headers: error.headers,
    };
  }
  if (isStorageExhausted(error)) {
    return {
      status: 503,
      body: {
        error: {
          code: ErrorCode.STORAGE_UNAVAILABLE,
          message: `the service's storage is full, read-only or out of file descriptors; nothing was done; retry in ${STORAGE_RETRY_AFTER_SECONDS} s`,
        },
      },
      headers: { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) },
    };
  }
  if (isDatabaseUnavailable(error)) {
    return answer(HttpErrorCode.SERVICE_UNAVAILABLE, `the database is unavailable; retry in ${DATABASE_RETRY_AFTER_SECONDS} s`, undefined, {
      "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
  // The router could not percent-decode a path segment.
  if (error instanceof URIError) return answer(HttpErrorCode.MALFORMED_REQUEST, "the path holds an invalid percent-encoding", "path");
  const parserError = error as BodyParserError;
  if (parserError?.type === "entity.parse.failed") return answer(HttpErrorCode.MALFORMED_JSON, "the body is not valid JSON", "body");
  if (parserError?.type === "entity.too.large") return answer(HttpErrorCode.PAYLOAD_TOO_LARGE, "the body is larger than 64 KiB", "body");
  if (parserError?.type === "encoding.unsupported" || parserError?.type === "charset.unsupported") {
    return answer(HttpErrorCode.UNSUPPORTED_MEDIA_TYPE, "the body must be UTF-8 JSON", "body");
  }
  // Any other refusal of the body parser (an aborted or mis-sized body): the body could not be read.
  if (typeof parserError?.status === "number" && parserError.status >= 400 && parserError.status < 500) {
    return answer(HttpErrorCode.MALFORMED_JSON, "the request body could not be read", "body");
  }
  return answer(HttpErrorCode.INTERNAL, "internal error; it has been logged");
}

/**
 * The client closed the connection before the answer was sent (an aborted download, a cancelled request). Judged by
 * the request's own socket, not by an error's code: a database or node connection reset (ECONNRESET) is a fault.
 */
function clientGone(request: Request): boolean {
  // Not request.destroyed: a request is destroyed once its body was read, with its socket still open.
  return request.socket.destroyed;
}

export function errorHandler(logger: Logger, storage?: StorageHealth): ErrorRequestHandler {
  return (error, request: Request, response, _next) => {
    if (clientGone(request)) {
      // Handled, not a fault: an alert on error lines must not fire for a reader who closed a tab. The request's own
      // line says so at info (request-log.ts); this one adds the error's code, at debug.
      const code = (error as { code?: unknown } | null)?.code;
      logger.debug(
        { path: request.path, reason: typeof code === "string" ? code : "closed" },
        "the client closed the connection before the answer",
      );
      if (!response.headersSent && !response.destroyed) response.destroy();
      return;
    }
    const { status, body, headers } = toErrorResponse(error);
    if (body.error.code === ErrorCode.STORAGE_UNAVAILABLE) storage?.failed(error);
    // A storage outage is logged once, with its cause, by the storage health; not once per request.
    if (status >= 500 && body.error.code !== ErrorCode.STORAGE_UNAVAILABLE) {
      // Logged by code and message only: upstream errors can quote signed transactions or endpoint credentials.
      const detail = error instanceof Error && status === 500 ? { name: error.name, stack: error.stack } : {};
      logger.error({ path: request.path, code: body.error.code, ...detail }, body.error.message);
    }
    response.status(status).set(headers).json(body);
  };
}
