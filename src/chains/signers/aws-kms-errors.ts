import { ErrorCode, TokenServiceError } from "../../domain/errors.js";

// What went wrong when the service asked AWS KMS for a key, a public key or a signature, told apart by whose it is: KMS
// not answering (its outage, its throttling, the network) is UPSTREAM_UNAVAILABLE or UPSTREAM_TIMEOUT, as a node's is,
// and tells the client to try again; a key KMS will not use for us (unknown, denied, disabled, of the wrong kind) is the
// operator's to fix and is an AwsKmsKeyError.

/** Why KMS will not use a key for us. */
export type AwsKmsKeyProblem =
  /** KMS knows no such key (in that region and account). */
  | "not-found"
  /** The credentials may not use the key (its policy, IAM, a grant). */
  | "access-denied"
  /** KMS did not accept the credentials themselves (unknown, expired, badly signed), or none were found. */
  | "credentials"
  /** The key is disabled, pending deletion or pending import. */
  | "unusable-state"
  /** Not an ECC_SECG_P256K1 SIGN_VERIFY key: it cannot make Ethereum signatures. */
  | "wrong-key-spec"
  /** Its signature recovers another address than the one it is held for. */
  | "wrong-address"
  /** Any other request KMS refused. */
  | "refused";

/**
 * A KMS key the service cannot sign with, for a reason an operator fixes (see AwsKmsKeyProblem): SIGNING_KEY_UNAVAILABLE
 * (503; nothing was signed). The message names the key (an id or ARN, never key material) and what KMS said.
 */
export class AwsKmsKeyError extends TokenServiceError {
  constructor(
    readonly problem: AwsKmsKeyProblem,
    readonly keyId: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.SIGNING_KEY_UNAVAILABLE, message, {
      details: { problem },
      ...(options?.cause !== undefined ? { cause: options.cause } : {}),
    });
    this.name = "AwsKmsKeyError";
  }
}

/** What the SDK's errors carry, read without depending on its classes: a service exception, or a network/timeout error. */
interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: { throttling?: unknown };
}

const NOT_FOUND = new Set(["NotFoundException", "InvalidArnException"]);
const ACCESS_DENIED = new Set(["AccessDeniedException"]);
const CREDENTIALS = new Set([
  "UnrecognizedClientException",
  "InvalidSignatureException",
  "IncompleteSignature",
  "ExpiredTokenException",
  "InvalidClientTokenId",
  "MissingAuthenticationToken",
  "CredentialsProviderError",
]);
const UNUSABLE_STATE = new Set(["DisabledException", "KMSInvalidStateException"]);
const WRONG_KEY_SPEC = new Set(["InvalidKeyUsageException", "UnsupportedOperationException"]);
const THROTTLING = new Set(["ThrottlingException", "LimitExceededException", "TooManyRequestsException", "RequestLimitExceeded"]);

const KEY_PROBLEMS: Array<[Set<string>, AwsKmsKeyProblem, string]> = [
  [NOT_FOUND, "not-found", "KMS knows no such key in this region and account"],
  [ACCESS_DENIED, "access-denied", "the credentials may not use this key (its key policy, IAM or grants)"],
  [CREDENTIALS, "credentials", "KMS did not accept the credentials (none found, unknown, expired or badly signed)"],
  [UNUSABLE_STATE, "unusable-state", "the key is disabled or pending deletion or import"],
  [WRONG_KEY_SPEC, "wrong-key-spec", "the key cannot sign with ECDSA_SHA_256 (it must be an ECC_SECG_P256K1 SIGN_VERIFY key)"],
];

/**
 * The error to throw for a failed KMS call: `action` says what was asked ("sign with", "give the public key of"). The
 * TokenServiceErrors quote no key id or endpoint (a client reads them); the SDK's error is their `cause`.
 */
export function awsKmsError(error: unknown, action: string, keyId: string | undefined): Error {
  if (error instanceof TokenServiceError || error instanceof AwsKmsKeyError) return error;
  const shape = (typeof error === "object" && error !== null ? error : {}) as SdkErrorShape;
  const name = typeof shape.name === "string" ? shape.name : "";
  const status = typeof shape.$metadata?.httpStatusCode === "number" ? shape.$metadata.httpStatusCode : undefined;
  const said = typeof shape.message === "string" && shape.message !== "" ? `: ${shape.message}` : "";
  const subject = keyId !== undefined ? `key ${keyId}` : "a new key";

  for (const [names, problem, meaning] of KEY_PROBLEMS)
    if (names.has(name))
      return new AwsKmsKeyError(problem, keyId, `AWS KMS would not ${action} ${subject}: ${meaning} (${name}${said})`, { cause: error });

  if (name === "TimeoutError" || shape.code === "ETIMEDOUT")
    return new TokenServiceError(ErrorCode.UPSTREAM_TIMEOUT, "AWS KMS did not answer in time", { cause: error });
  if (THROTTLING.has(name) || status === 429 || shape.$retryable?.throttling === true)
    return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, "AWS KMS failed to answer (throttled: too many requests)", {
      cause: error,
    });
  if (shape.$fault === "server" || (status !== undefined && status >= 500))
    return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, `AWS KMS failed to answer (${name || `HTTP ${status}`})`, {
      cause: error,
    });
  // No HTTP answer at all: the endpoint could not be reached (a system error: refused, unknown host, reset).
  if (status === undefined && typeof shape.code === "string" && /^E[A-Z_]+$/.test(shape.code))
    return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, `AWS KMS failed to answer (${shape.code})`, { cause: error });
  // Anything else that is no KMS answer is a bug, thrown as it is.
  if (status === undefined || !(error instanceof Error)) return error instanceof Error ? error : new Error(String(error));
  return new AwsKmsKeyError("refused", keyId, `AWS KMS refused to ${action} ${subject} (${name || `HTTP ${status}`}${said})`, {
    cause: error,
  });
}
