/** Stable error codes: clients may branch on them; messages are for people. */
export const ErrorCode = {
  INVALID_ARGUMENT: "INVALID_ARGUMENT",
  INVALID_ADDRESS: "INVALID_ADDRESS",
  INVALID_PRIVATE_KEY: "INVALID_PRIVATE_KEY",
  UNSUPPORTED_CHAIN: "UNSUPPORTED_CHAIN",
  UNSUPPORTED_NETWORK: "UNSUPPORTED_NETWORK",
  UNSUPPORTED_OPERATION: "UNSUPPORTED_OPERATION",
  KEY_SENDER_MISMATCH: "KEY_SENDER_MISMATCH",
  INSUFFICIENT_FUNDS: "INSUFFICIENT_FUNDS",
  NOT_A_TOKEN_CONTRACT: "NOT_A_TOKEN_CONTRACT",
  NOT_A_MINTER: "NOT_A_MINTER",
  CAP_EXCEEDED: "CAP_EXCEEDED",
  TOKEN_ID_TAKEN: "TOKEN_ID_TAKEN",
  TRANSACTION_NOT_FOUND: "TRANSACTION_NOT_FOUND",
  TRANSACTION_REJECTED: "TRANSACTION_REJECTED",
  LIVE_NETWORK_FAUCET: "LIVE_NETWORK_FAUCET",
  CHAIN_ID_MISMATCH: "CHAIN_ID_MISMATCH",
  BACKEND_NOT_CONFIGURED: "BACKEND_NOT_CONFIGURED",
  UPSTREAM_UNAVAILABLE: "UPSTREAM_UNAVAILABLE",
  UPSTREAM_TIMEOUT: "UPSTREAM_TIMEOUT",
  DATA_DIR_IN_USE: "DATA_DIR_IN_USE",
  TRANSACTION_MISMATCH: "TRANSACTION_MISMATCH",
  TRANSACTION_NOT_PREPARED: "TRANSACTION_NOT_PREPARED",
  NONCE_TAKEN: "NONCE_TAKEN",
  ALREADY_SUBMITTED: "ALREADY_SUBMITTED",
  STORAGE_UNAVAILABLE: "STORAGE_UNAVAILABLE",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

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
