// The error codes' behaviour: the catalog (error-catalog.ts) says what each code is; this module makes codes of it
// and the error the core throws.
import { ERROR_CATALOG, type ErrorDescriptor, type ErrorSource } from "./error-catalog.js";

export { ERROR_CATALOG, type ErrorDescriptor, type ErrorSource } from "./error-catalog.js";

type Catalog = typeof ERROR_CATALOG;

/** Every code of the catalog. */
export type AnyErrorCode = keyof Catalog;

/** The codes a source raises. */
export type ErrorCodeOf<S extends ErrorSource> = { [C in AnyErrorCode]: Catalog[C]["source"] extends S ? C : never }[AnyErrorCode];

export const ALL_ERROR_CODES = Object.keys(ERROR_CATALOG) as AnyErrorCode[];

/** The codes of one source, as an object of constants (`ErrorCode.INVALID_ADDRESS`). */
export function errorCodesOf<S extends ErrorSource>(source: S): { readonly [C in ErrorCodeOf<S>]: C } {
  return Object.fromEntries(
    ALL_ERROR_CODES.filter((code) => ERROR_CATALOG[code].source === source).map((code) => [code, code]),
  ) as unknown as { readonly [C in ErrorCodeOf<S>]: C };
}

export function errorDescriptor(code: AnyErrorCode): ErrorDescriptor {
  return ERROR_CATALOG[code];
}

export function isKnownErrorCode(code: string): code is AnyErrorCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}

/** Stable error codes the core throws (as TokenServiceError). */
export const ErrorCode = errorCodesOf("core");
export type ErrorCode = ErrorCodeOf<"core">;

/** Codes only an operation's record carries: what happened to its transaction after it was accepted, or a bug. */
export const RecordErrorCode = {
  TRANSACTION_REVERTED: "TRANSACTION_REVERTED",
  TRANSACTION_DROPPED: "TRANSACTION_DROPPED",
  INTERNAL: "INTERNAL",
} as const satisfies { [C in AnyErrorCode]?: C };
export type RecordErrorCode = (typeof RecordErrorCode)[keyof typeof RecordErrorCode];

export interface TokenServiceErrorOptions {
  field?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type the core throws. `message`, `field` and `details` are
 * safe to show to a client: they never contain a private key.
 */
export class TokenServiceError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: TokenServiceErrorOptions = {}) {
    super(message);
    this.name = "TokenServiceError";
    this.code = code;
    this.field = options.field;
    this.details = options.details;
    // The cause may be an upstream error that quotes request parameters; keep it off the enumerable surface.
    if (options.cause !== undefined) {
      Object.defineProperty(this, "cause", { value: options.cause, enumerable: false });
    }
  }

  toJSON(): { code: ErrorCode; message: string; field?: string; details?: Record<string, unknown> } {
    return {
      code: this.code,
      message: this.message,
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
    };
  }
}

export function isTokenServiceError(error: unknown, code?: ErrorCode): error is TokenServiceError {
  return error instanceof TokenServiceError && (code === undefined || error.code === code);
}

export function invalidArgument(field: string, message: string, details?: Record<string, unknown>): TokenServiceError {
  return new TokenServiceError(ErrorCode.INVALID_ARGUMENT, message, { field, details });
}
