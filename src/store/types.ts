import type { SenderLock } from "../chains/evm/sender-lock.js";
import type { OperationRecord, OperationStore } from "../core/operations/types.js";
import type { WebhookStore } from "../webhooks/types.js";
import type { CustodyStore } from "../core/custody/types.js";
import type { NotificationStore } from "../core/notifications/types.js";
import type { VerificationStore } from "../core/verifications/types.js";

export type { NewOperation, OperationKind, OperationRecord, OperationStatus } from "../core/operations/types.js";

export interface OperationPage {
  items: OperationRecord[];
  /** Opaque cursor for the next (older) page, or null at the end. */
  nextCursor: string | null;
}

export type IdempotencyBegin =
  | { state: "new" }
  | { state: "replay"; statusCode: number; body: unknown }
  | { state: "conflict" }
  /** Another request holds the claim now; `operationId` names the operation it records, if it chose one. */
  | { state: "in_progress"; operationId: string | null }
  /** The claim's owner died mid-request; the caller now holds it and settles it from the operation, if any. */
  | { state: "abandoned"; operationId: string | null };

export interface IdempotencyClaim {
  /** The operation this request will record, so that a crash can be settled from it. */
  operationId?: string;
  /** How long the claim is the requester's; after that a retry may settle it. */
  leaseMs: number;
  /** How long a finished key replays; afterwards the key is free again. */
  retentionMs: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** The shared count of a window, as the store answers a hit. */
export interface SharedRateLimitCount extends RateLimitResult {
  /** Every hit counted in this window so far, across every process that shares the store. */
  count: number;
}

export interface ApiKeyRecord {
  id: string;
  label: string | null;
  createdAt: string;
}

/**
 * Everything the HTTP service persists, through one Kysely query layer: embedded
 * SQLite (node:sqlite) in the data directory, or a PostgreSQL server shared by replicas.
 */
export interface Store extends OperationStore {
  readonly kind: "sqlite" | "postgres";
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

  /** One of the API key's records, by its id or its transaction hash (the newest, should a hash be on several pairs). */
  findOwnOperation(apiKeyId: string | null, idOrHash: string): Promise<OperationRecord | undefined>;
  /**
   * The newest launch made with this API key of the contract at `contractAddress` (checksummed) on the pair, its
   * `rawTransaction` the first one it signed (a replacement carries the same creation code).
   */
  findOwnLaunch(apiKeyId: string | null, chain: string, network: string, contractAddress: string): Promise<OperationRecord | undefined>;
  /** Newest first, only the given API key's records. */
  listOperations(apiKeyId: string | null, options: { limit: number; cursor?: string; filter?: OperationFilter }): Promise<OperationPage>;

  /**
   * Claims an idempotency key for (apiKeyId, route). `requestHash` identifies the body:
   * the same key with another body is a conflict; a finished one replays its response.
   */
  beginIdempotent(
    apiKeyId: string | null,
    route: string,
    idempotencyKey: string,
    requestHash: string,
    claim?: IdempotencyClaim,
  ): Promise<IdempotencyBegin>;
  /** The pairs with unfinished records (`signed` or `pending`): work a backend must be reachable for. */
  pairsWithUnfinished(): Promise<Array<{ chain: string; network: string }>>;
  /** Operations counted by kind and state, and how long the most overdue unfinished one has waited for the tracker. */
  operationStats(): Promise<{ counts: Array<{ kind: string; status: string; count: number }>; oldestDueMs: number | null }>;
  /** Forgets finished keys past their retention. */
  purgeExpiredIdempotency(): Promise<number>;
  completeIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string, statusCode: number, body: unknown): Promise<void>;
  /** Releases a claim whose request failed before anything was sent, so a retry can run. */
  releaseIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string): Promise<void>;

  /** Fixed-window counter per key; shared by replicas when the store is a PostgreSQL server. */
  /** Adds `hits` (default 1) to the bucket's current window and answers the window's count. */
  hitRateLimit(bucket: string, limit: number, windowMs: number, hits?: number): Promise<SharedRateLimitCount>;

  /**
   * Frees what a dead predecessor held, for a process that knows it is the only one working there: every
   * record and idempotency claim (no `pairs`: an embedded store), or the records of the pairs it owns
   * exclusively (its simulated chains). Signed records become due at once.
   */
  reclaimAfterRestart(pairs?: ReadonlyArray<{ chain: string; network: string }>): Promise<void>;
  /** Takes a named lock for the life of this store, across every process that shares it; false when another holds it. */
  claimExclusive(name: string): Promise<boolean>;

  /** Serializes sends per chain and sender across every process that shares this store. */
  senderLock(): SenderLock;

  /** Webhook subscriptions and the outbox their events are queued in, with each operation's state change. */
  readonly webhooks: WebhookStore;

  /** The keystore and the wallets the service holds (docs/custody.md). */
  readonly custody: CustodyStore;

  /** Chain notifications: subscriptions, each pair's scan and lease, and the events found (docs/notifications.md). */
  readonly notifications: NotificationStore;

  /** Verifications of launched tokens on explorers, and their worker's leases (docs/tokens.md#verifying-a-token). */
  readonly verifications: VerificationStore;
}

/** What a listing keeps: each given field narrows it (a list: any of its values). */
export interface OperationFilter {
  kinds?: readonly string[];
  statuses?: readonly string[];
  /** As records hold it: an EVM address checksummed, a Bitcoin one as written. */
  sender?: string;
  chain?: string;
  network?: string;
}
