import type { Logger } from "pino";

import type { TokenService } from "../core/token-service.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import type { Store } from "../store/types.js";
import type { StorageHealth } from "./storage-health.js";

/** What every route handler may use: the core, the store and the settings. */
export interface ServerContext {
  service: TokenService;
  store: Store;
  /** Subscriptions of the caller's API key. */
  webhooks: Webhooks;
  logger: Logger;
  /** How long `wait=mined` waits before answering 202 with the pending status. */
  waitTimeoutMs: number;
  /** false: a private key in a request body is refused (TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false). */
  allowPrivateKeys: boolean;
  /** How long a request holds its Idempotency-Key before a retry may settle it (its owner is presumed dead). */
  idempotencyLeaseMs: number;
  /** How long an Idempotency-Key replays its first answer. */
  idempotencyRetentionMs: number;
  /** Whether the service's own storage (the data directory) is usable. */
  storage?: StorageHealth;
}
