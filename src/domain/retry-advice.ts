import type { AnyErrorCode } from "./errors.js";

/**
 * What sending the same request again does after each error: the error reference's Retry column
 * (docs/reference/errors.md). The rule behind it: an answer that tells a client to come back later (408, 429, 503,
 * and the 502/504 of a node that failed to answer) is given only when the request left nothing live: no reserved
 * nonce, no signature the service will send, no broadcast (a record written before the refusal ends `failed`, never
 * sent). A write that was broadcast is answered with its record, never with one of these.
 */
export type RetryAdvice =
  /** Nothing was done; the same request may succeed once the condition passes (after `Retry-After` where given). */
  | "later"
  /** Nothing was done; sent again unchanged it fails the same way: change the request, the configuration or the chain's state first. */
  | "after-change"
  /** The request may have done part of its work: read its records (or send it with the same Idempotency-Key) first. */
  | "read-first"
  /** Only ever stored in an operation's record: the operation ended; a new request is a new operation. */
  | "record";

/** Every code's advice; the type makes a new code name one. */
export const RETRY_ADVICE: Record<AnyErrorCode, RetryAdvice> = {
  INVALID_ARGUMENT: "after-change",
  INVALID_ADDRESS: "after-change",
  INVALID_PRIVATE_KEY: "after-change",
  UNSUPPORTED_CHAIN: "after-change",
  UNSUPPORTED_NETWORK: "after-change",
  UNSUPPORTED_OPERATION: "after-change",
  MALFORMED_JSON: "after-change",
  MALFORMED_REQUEST: "after-change",
  UNAUTHORIZED: "after-change",
  NOT_FOUND: "after-change",
  METHOD_NOT_ALLOWED: "after-change",
  TRANSACTION_NOT_FOUND: "after-change",
  HELD_WALLET_NOT_FOUND: "after-change",
  CHAIN_FAULTS_OFF: "after-change",
  OPERATION_NOT_FOUND: "after-change",
  LAUNCH_NOT_FOUND: "after-change",
  NOT_UPGRADER: "after-change",
  UPGRADE_UNSAFE: "after-change",
  UPGRADE_INCOMPATIBLE: "after-change",
  NOTHING_TO_UPGRADE: "after-change",
  VERIFICATION_UNAVAILABLE: "later",
  VERIFICATION_NOT_FOUND: "after-change",
  EXPLORER_NOT_CONFIGURED: "after-change",
  SIMULATED_NETWORK_VERIFICATION: "after-change",
  CHAIN_FAULT_NOT_FOUND: "after-change",
  REQUEST_TIMEOUT: "later",
  IDEMPOTENCY_CONFLICT: "after-change",
  IDEMPOTENCY_IN_PROGRESS: "later",
  TRANSACTION_NOT_PREPARED: "after-change",
  NONCE_TAKEN: "after-change",
  ALREADY_SUBMITTED: "after-change",
  WALLET_ALREADY_HELD: "after-change",
  // maxValuePerDay passes the next UTC day; the others once the policy or the request changes.
  POLICY_DENIED: "after-change",
  PRIVATE_KEYS_DISABLED: "after-change",
  ALREADY_DEPLOYED: "after-change",
  OPERATION_FINAL: "after-change",
  OUTPUT_SPENT: "after-change",
  LIVE_NETWORK_FAULTS: "after-change",
  CHAIN_FAULT_CONFLICT: "after-change",
  PAYLOAD_TOO_LARGE: "after-change",
  UNSUPPORTED_MEDIA_TYPE: "after-change",
  HOST_NOT_ALLOWED: "after-change",
  KEY_SENDER_MISMATCH: "after-change",
  TRANSACTION_MISMATCH: "after-change",
  INSUFFICIENT_FUNDS: "after-change",
  FEE_CAP_EXCEEDED: "after-change",
  NOT_A_TOKEN_CONTRACT: "after-change",
  NOT_A_MINTER: "after-change",
  BATCH_MINT_UNSUPPORTED: "after-change",
  TOKEN_URI_UNSUPPORTED: "after-change",
  CAP_EXCEEDED: "after-change",
  TOKEN_ID_TAKEN: "after-change",
  INSUFFICIENT_TOKEN_BALANCE: "after-change",
  NOT_TOKEN_OWNER: "after-change",
  NOT_SUPPORTED_BY_TOKEN: "after-change",
  TOO_MANY_TOKEN_IDS: "after-change",
  CREATE2_FACTORY_MISSING: "after-change",
  // The node refused the broadcast: nothing reached the chain (the record ends `failed`); a retry takes a fresh nonce.
  TRANSACTION_REJECTED: "later",
  WOULD_REVERT: "after-change",
  LIVE_NETWORK_FAUCET: "after-change",
  RATE_LIMITED: "later",
  TOO_MANY_CONNECTIONS: "later",
  TOO_MANY_AUTH_FAILURES: "later",
  HEADERS_TOO_LARGE: "after-change",
  INTERNAL: "read-first",
  UPSTREAM_UNAVAILABLE: "later",
  CHAIN_ID_MISMATCH: "after-change",
  BACKEND_NOT_CONFIGURED: "after-change",
  SERVICE_UNAVAILABLE: "later",
  STORAGE_UNAVAILABLE: "later",
  // Nothing was signed; it passes once an operator restarts the service with the right passphrase.
  KEYSTORE_LOCKED: "later",
  CONTRACT_COMPILER_UNAVAILABLE: "later",
  SIGNING_KEY_UNAVAILABLE: "later",
  DATA_DIR_IN_USE: "later",
  UPSTREAM_TIMEOUT: "later",
  TRANSACTION_REVERTED: "record",
  TRANSACTION_DROPPED: "record",
};
