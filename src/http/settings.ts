import type { TrackerSettings } from "../core/operations/tracker-settings.js";
import { DEFAULT_DELIVERY_SETTINGS, type DeliverySettings } from "../webhooks/delivery-worker.js";
import { parseApiKeyList } from "./api-keys.js";
import { readEnvironment } from "../config/environment.js";

/** The service's settings from the environment (src/config/environment.ts), checked once at start-up. */
export interface Settings {
  /** Accepted keys besides stored ones (TOKEN_SERVICE_API_KEYS). */
  apiKeys: string[];
  /** Requests per window and API key; limit 0 disables it. */
  rateLimit: { limit: number; windowMs: number };
  /** Failed API-key attempts per client address and window before it gets 429; limit 0 disables it. */
  authFailures: { limit: number; windowMs: number };
  /** Express's `trust proxy`: false, a number of hops, or proxy addresses and ranges; never "trust everything". */
  trustProxy: false | number | string[];
  /** Open connections at most, in all and per client address; 0: no limit. */
  maxConnections: number;
  maxConnectionsPerClient: number;
  /** Time a client has to send its request headers. */
  headersTimeoutMs: number;
  /** Time a client has to send its whole request, headers and body. */
  bodyTimeoutMs: number;
  /** How long a stopping server lets in-flight requests finish before it closes their connections. */
  shutdownGraceMs: number;
  /** How long /health reuses a probe result. */
  healthCacheMs: number;
  /** Confirmations, drop and reorg windows, and lease of the operation tracker. */
  tracker: Omit<TrackerSettings, "idlePollMs">;
  /** How long a prepared launch or mint keeps its nonce reserved for the sender to sign it. */
  nonceReservationMs: number;
  /** How long a request holds its Idempotency-Key before a retry may settle it; default: the wait timeout plus 30 s. */
  idempotencyLeaseMs: number | undefined;
  /** How long a finished Idempotency-Key replays its answer. */
  idempotencyRetentionMs: number;
  /** false: EVM pairs without an endpoint are not served instead of simulated in this process. */
  simulatedChains: boolean;
  /** true: simulated chains can be told to misbehave (/api/v1/chains/{chain}/{network}/faults). */
  chainFaults: boolean;
  /** true: GET /metrics answers without an API key (for a scraper on a private network). */
  metricsPublic: boolean;
  /** false: no private key in any request body (the production switch; docs/custody.md). */
  allowPrivateKeys: boolean;
  /** Webhook targets and deliveries. */
  webhooks: { allowPrivateTargets: boolean; delivery: DeliverySettings };
}

/** A setting the service cannot start with; the message names the variable (the environment schema's error). */
export { EnvironmentError as SettingsError } from "../config/environment.js";

/** Reads and checks the settings; the first bad variable stops the start with a SettingsError naming it. */
export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const settings = readEnvironment(env);
  return {
    apiKeys: parseApiKeyList(settings.TOKEN_SERVICE_API_KEYS),
    rateLimit: { limit: settings.TOKEN_SERVICE_RATE_LIMIT, windowMs: settings.TOKEN_SERVICE_RATE_WINDOW_SECONDS },
    authFailures: { limit: settings.TOKEN_SERVICE_AUTH_FAILURE_LIMIT, windowMs: settings.TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS },
    trustProxy: settings.TOKEN_SERVICE_TRUST_PROXY,
    maxConnections: settings.TOKEN_SERVICE_MAX_CONNECTIONS,
    maxConnectionsPerClient: settings.TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT,
    headersTimeoutMs: settings.TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS,
    bodyTimeoutMs: settings.TOKEN_SERVICE_BODY_TIMEOUT_SECONDS,
    shutdownGraceMs: settings.TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS,
    healthCacheMs: settings.TOKEN_SERVICE_HEALTH_CACHE_SECONDS,
    tracker: {
      confirmations: settings.TOKEN_SERVICE_CONFIRMATIONS,
      dropAfterMs: settings.TOKEN_SERVICE_DROP_AFTER_SECONDS,
      reorgWatchMs: settings.TOKEN_SERVICE_REORG_WATCH_SECONDS,
      behindGraceMs: settings.TOKEN_SERVICE_NODE_BEHIND_GRACE_SECONDS,
      leaseMs: settings.TOKEN_SERVICE_LEASE_SECONDS,
    },
    nonceReservationMs: settings.TOKEN_SERVICE_PREPARED_TTL_SECONDS,
    idempotencyLeaseMs: settings.TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS,
    idempotencyRetentionMs: settings.TOKEN_SERVICE_IDEMPOTENCY_RETENTION_HOURS,
    simulatedChains: settings.TOKEN_SERVICE_SIMULATED_CHAINS,
    chainFaults: settings.TOKEN_SERVICE_CHAIN_FAULTS,
    metricsPublic: settings.TOKEN_SERVICE_METRICS_PUBLIC,
    allowPrivateKeys: settings.TOKEN_SERVICE_ALLOW_PRIVATE_KEYS,
    webhooks: {
      allowPrivateTargets: settings.TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS,
      delivery: {
        timeoutMs: settings.TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS,
        retryWindowMs: settings.TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS,
        firstBackoffMs: settings.TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS,
        maxBackoffMs: DEFAULT_DELIVERY_SETTINGS.maxBackoffMs,
        pollMs: settings.TOKEN_SERVICE_WEBHOOK_POLL_SECONDS,
      },
    },
  };
}
