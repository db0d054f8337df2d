import { ErrorCode, type ErrorCode as CoreErrorCode } from "../domain/errors.js";

/** Error codes only the HTTP layer produces. */
export const HttpErrorCode = {
  UNAUTHORIZED: "UNAUTHORIZED",
  TOO_MANY_AUTH_FAILURES: "TOO_MANY_AUTH_FAILURES",
  HOST_NOT_ALLOWED: "HOST_NOT_ALLOWED",
  NOT_FOUND: "NOT_FOUND",
  MALFORMED_REQUEST: "MALFORMED_REQUEST",
  MALFORMED_JSON: "MALFORMED_JSON",
  REQUEST_TIMEOUT: "REQUEST_TIMEOUT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  HEADERS_TOO_LARGE: "HEADERS_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  IDEMPOTENCY_CONFLICT: "IDEMPOTENCY_CONFLICT",
  IDEMPOTENCY_IN_PROGRESS: "IDEMPOTENCY_IN_PROGRESS",
  RATE_LIMITED: "RATE_LIMITED",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  INTERNAL: "INTERNAL",
} as const;

export type HttpErrorCode = (typeof HttpErrorCode)[keyof typeof HttpErrorCode];

/** The HTTP status of each core error code: 400 for what the client sent, 422 for what the chain refuses, 5xx for upstream trouble. */
export const STATUS_BY_CORE_CODE: Record<CoreErrorCode, number> = {
  [ErrorCode.INVALID_ARGUMENT]: 400,
  [ErrorCode.INVALID_ADDRESS]: 400,
  [ErrorCode.INVALID_PRIVATE_KEY]: 400,
  [ErrorCode.UNSUPPORTED_CHAIN]: 400,
  [ErrorCode.UNSUPPORTED_NETWORK]: 400,
  [ErrorCode.UNSUPPORTED_OPERATION]: 400,
  [ErrorCode.KEY_SENDER_MISMATCH]: 422,
  [ErrorCode.INSUFFICIENT_FUNDS]: 422,
  [ErrorCode.NOT_A_TOKEN_CONTRACT]: 422,
  [ErrorCode.NOT_A_MINTER]: 422,
  [ErrorCode.CAP_EXCEEDED]: 422,
  [ErrorCode.TOKEN_ID_TAKEN]: 422,
  [ErrorCode.TRANSACTION_REJECTED]: 422,
  [ErrorCode.LIVE_NETWORK_FAUCET]: 422,
  [ErrorCode.TRANSACTION_NOT_FOUND]: 404,
  [ErrorCode.CHAIN_ID_MISMATCH]: 502,
  [ErrorCode.UPSTREAM_UNAVAILABLE]: 502,
  [ErrorCode.BACKEND_NOT_CONFIGURED]: 503,
  [ErrorCode.UPSTREAM_TIMEOUT]: 504,
  [ErrorCode.DATA_DIR_IN_USE]: 503,
  [ErrorCode.TRANSACTION_MISMATCH]: 422,
  [ErrorCode.TRANSACTION_NOT_PREPARED]: 409,
  [ErrorCode.NONCE_TAKEN]: 409,
  [ErrorCode.ALREADY_SUBMITTED]: 409,
  [ErrorCode.STORAGE_UNAVAILABLE]: 503,
};

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export interface ErrorBody {
  error: { code: string; message: string; field?: string; details?: Record<string, unknown> };
}
