import {
  ALL_ERROR_CODES,
  ERROR_CATALOG,
  errorCodesOf,
  type AnyErrorCode,
  type ErrorCode as CoreErrorCode,
  type ErrorCodeOf,
} from "../domain/errors.js";

/** Error codes only the HTTP layer produces (from the catalog in src/domain/errors.ts). */
export const HttpErrorCode = errorCodesOf("http");
export type HttpErrorCode = ErrorCodeOf<"http">;

/** The HTTP status of a code, as the catalog says; 500 for a code no answer carries (a record's). */
export function httpStatusOf(code: AnyErrorCode): number {
  return ERROR_CATALOG[code].httpStatus ?? 500;
}

/** The HTTP status of each core error code: 400 for what the client sent, 422 for what the chain refuses, 5xx for upstream trouble. */
export const STATUS_BY_CORE_CODE = Object.fromEntries(
  ALL_ERROR_CODES.filter((code) => ERROR_CATALOG[code].source === "core").map((code) => [code, httpStatusOf(code)]),
) as Record<CoreErrorCode, number>;

/** The codes an HTTP answer with this status may carry, in catalog order. */
export function codesWithStatus(status: number): AnyErrorCode[] {
  return ALL_ERROR_CODES.filter((code) => ERROR_CATALOG[code].httpStatus === status);
}

/** An HTTP-layer refusal; its status is the catalog's for its code. */
export class HttpError extends Error {
  readonly status: number;

  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = httpStatusOf(code);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; field?: string; details?: Record<string, unknown> };
}
