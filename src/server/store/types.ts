import type { SenderLock } from "../../evm/sender-lock.js";

export type OperationKind = "launch" | "mint" | "faucet";
/** signed: written before broadcast; pending: the node accepted it; then mined or failed. */
export type OperationStatus = "signed" | "pending" | "mined" | "failed";

/** A launch, mint or faucet call, recorded before anything is broadcast. Never holds a private key. */
export interface OperationRecord {
  id: string;
  apiKeyId: string | null;
  kind: OperationKind;
  chain: string;
  network: string;
  /** "ERC20" | "ERC721" for launches and mints, null for faucet grants. */
  tokenType: string | null;
  /** The token fields of a launch, or the mint parameters; amounts as strings. */
  params: Record<string, unknown>;
  sender: string | null;
  transactionHash: string | null;
  contractAddress: string | null;
  status: OperationStatus;
  error: { code: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
}

export type NewOperation = Omit<OperationRecord, "createdAt" | "updatedAt">;

export type OperationPatch = Partial<Pick<OperationRecord, "transactionHash" | "contractAddress" | "status" | "error">>;

export interface OperationPage {
  items: OperationRecord[];
  /** Opaque cursor for the next (older) page, or null at the end. */
  nextCursor: string | null;
}

export type IdempotencyBegin =
  | { state: "new" }
  | { state: "replay"; statusCode: number; body: unknown }
  | { state: "conflict" }
  | { state: "in_progress" };

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface ApiKeyRecord {
  id: string;
  label: string | null;
  createdAt: string;
}

/**
 * Everything the HTTP service persists, in the PostgreSQL dialect: embedded
 * PGlite in the data directory, or a PostgreSQL server shared by replicas.
 */
export interface Store {
  readonly kind: "pglite" | "postgres";
  /** Where the data lives, safe to print (no password). */
  readonly location: string;
  /** Applies pending versioned migrations; safe to run concurrently from several replicas. */
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;

  /** Creates a key, stores only its hash, and returns the key once. */
  createApiKey(label?: string): Promise<{ id: string; key: string }>;
  /** The id of the key's record, or undefined; compares hashes in constant time. */
  verifyApiKey(key: string): Promise<string | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;

  insertOperation(operation: NewOperation): Promise<void>;
  updateOperation(id: string, patch: OperationPatch): Promise<void>;
  getOperation(id: string): Promise<OperationRecord | undefined>;
  /** Newest first, only the given API key's records. */
  listOperations(apiKeyId: string | null, options: { limit: number; cursor?: string }): Promise<OperationPage>;

  /**
   * Claims an idempotency key for (apiKeyId, route). `requestHash` identifies the body:
   * the same key with another body is a conflict; a finished one replays its response.
   */
  beginIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string, requestHash: string): Promise<IdempotencyBegin>;
  completeIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string, statusCode: number, body: unknown): Promise<void>;
  /** Releases a claim whose request failed before anything was sent, so a retry can run. */
  releaseIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string): Promise<void>;

  /** Fixed-window counter per key; shared by replicas when the store is a PostgreSQL server. */
  hitRateLimit(bucket: string, limit: number, windowMs: number): Promise<RateLimitResult>;

  /** Serializes sends per chain and sender across every process that shares this store. */
  senderLock(): SenderLock;
}
