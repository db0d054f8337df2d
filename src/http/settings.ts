import { z } from "zod/v4";

import type { TrackerSettings } from "../core/operations/tracker.js";
import { DEFAULT_DELIVERY_SETTINGS, type DeliverySettings } from "../webhooks/delivery-worker.js";
import { parseApiKeyList } from "./api-keys.js";

/** The service's settings from the environment, checked once at start-up. */
export interface Settings {
  /** Accepted keys besides stored ones (TOKEN_SERVICE_API_KEYS). */
  apiKeys: string[];
  /** Requests per window and API key; limit 0 disables it. */
  rateLimit: { limit: number; windowMs: number };
  /** Failed API-key attempts per client address and window before it gets 429; limit 0 disables it. */
  authFailures: { limit: number; windowMs: number };
  trustProxy: boolean;
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
  /** true: GET /metrics answers without an API key (for a scraper on a private network). */
  metricsPublic: boolean;
  /** `serve` only: how long after the last request the process gives idle heap memory back; 0 never. */
  idleMemoryReleaseMs: number;
  /** Webhook targets and deliveries. */
  webhooks: { allowPrivateTargets: boolean; delivery: DeliverySettings };
}

/** A setting the service cannot start with; the message names the variable. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

// Empty counts as unset, as docker-compose and .env files leave unset variables.
const unsetIfEmpty = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

function wholeNumber(defaultValue: number) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .regex(/^\d{1,9}$/, "must be a whole number, 0 or more")
      .transform(Number)
      .optional()
      .transform((value) => value ?? defaultValue),
  );
}

function seconds(defaultSeconds: number, { allowZero }: { allowZero: boolean }) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .regex(/^\d{1,9}(\.\d{1,3})?$/, "must be a number of seconds, like 30 or 0.5")
      .transform(Number)
      .refine((value) => allowZero || value > 0, "must be more than 0 seconds")
      .optional()
      .transform((value) => Math.round((value ?? defaultSeconds) * 1000)),
  );
}

const optionalSeconds = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .trim()
    .regex(/^\d{1,9}(\.\d{1,3})?$/, "must be a number of seconds, like 30 or 0.5")
    .transform(Number)
    .refine((value) => value > 0, "must be more than 0 seconds")
    .transform((value) => Math.round(value * 1000))
    .optional(),
);

const boolean = z.preprocess(
  unsetIfEmpty,
  z
    .enum(["true", "false"], { error: "must be true or false" })
    .optional()
    .transform((value) => value === "true"),
);

const EnvironmentSchema = z
  .object({
    TOKEN_SERVICE_API_KEYS: z.string().optional(),
    TOKEN_SERVICE_RATE_LIMIT: wholeNumber(600),
    TOKEN_SERVICE_RATE_WINDOW_SECONDS: seconds(60, { allowZero: false }),
    TOKEN_SERVICE_AUTH_FAILURE_LIMIT: wholeNumber(10),
    TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS: seconds(300, { allowZero: false }),
    TOKEN_SERVICE_TRUST_PROXY: boolean,
    TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: seconds(10, { allowZero: false }),
    TOKEN_SERVICE_BODY_TIMEOUT_SECONDS: seconds(30, { allowZero: false }),
    TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS: seconds(10, { allowZero: true }),
    TOKEN_SERVICE_HEALTH_CACHE_SECONDS: seconds(5, { allowZero: true }),
    TOKEN_SERVICE_CONFIRMATIONS: wholeNumber(1).refine((value) => value >= 1, "must be 1 or more"),
    TOKEN_SERVICE_DROP_AFTER_SECONDS: seconds(600, { allowZero: false }),
    TOKEN_SERVICE_REORG_WATCH_SECONDS: seconds(3600, { allowZero: true }),
    TOKEN_SERVICE_LEASE_SECONDS: seconds(30, { allowZero: false }),
    TOKEN_SERVICE_PREPARED_TTL_SECONDS: seconds(120, { allowZero: false }),
    TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS: optionalSeconds,
    TOKEN_SERVICE_IDEMPOTENCY_RETENTION_HOURS: seconds(24, { allowZero: false }).transform((value) => value * 3600),
    TOKEN_SERVICE_METRICS_PUBLIC: boolean,
    TOKEN_SERVICE_IDLE_GC_SECONDS: seconds(5, { allowZero: true }),
    TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean,
    TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: seconds(DEFAULT_DELIVERY_SETTINGS.timeoutMs / 1000, { allowZero: false }),
    TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS: seconds(DEFAULT_DELIVERY_SETTINGS.retryWindowMs / 1000, { allowZero: true }),
    TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS: seconds(DEFAULT_DELIVERY_SETTINGS.firstBackoffMs / 1000, { allowZero: false }),
    TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: seconds(DEFAULT_DELIVERY_SETTINGS.pollMs / 1000, { allowZero: false }),
    TOKEN_SERVICE_SIMULATED_CHAINS: z.preprocess(
      unsetIfEmpty,
      z
        .enum(["on", "off"], { error: "must be on or off" })
        .optional()
        .transform((value) => value !== "off"),
    ),
  })
  .refine((env) => env.TOKEN_SERVICE_BODY_TIMEOUT_SECONDS >= env.TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS, {
    // Node refuses a server whose headers timeout exceeds its request timeout.
    message: "must be at least TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS (the headers are part of the request)",
    path: ["TOKEN_SERVICE_BODY_TIMEOUT_SECONDS"],
  });

/** Reads and checks the settings; the first bad variable stops the start with a SettingsError naming it. */
export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const parsed = EnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    const value = env[variable];
    throw new SettingsError(`${variable} ${issue.message}${value === undefined ? "" : ` (got ${JSON.stringify(value)})`}`);
  }
  const settings = parsed.data;
  return {
    apiKeys: parseApiKeyList(settings.TOKEN_SERVICE_API_KEYS),
    rateLimit: { limit: settings.TOKEN_SERVICE_RATE_LIMIT, windowMs: settings.TOKEN_SERVICE_RATE_WINDOW_SECONDS },
    authFailures: { limit: settings.TOKEN_SERVICE_AUTH_FAILURE_LIMIT, windowMs: settings.TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS },
    trustProxy: settings.TOKEN_SERVICE_TRUST_PROXY,
    headersTimeoutMs: settings.TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS,
    bodyTimeoutMs: settings.TOKEN_SERVICE_BODY_TIMEOUT_SECONDS,
    shutdownGraceMs: settings.TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS,
    healthCacheMs: settings.TOKEN_SERVICE_HEALTH_CACHE_SECONDS,
    tracker: {
      confirmations: settings.TOKEN_SERVICE_CONFIRMATIONS,
      dropAfterMs: settings.TOKEN_SERVICE_DROP_AFTER_SECONDS,
      reorgWatchMs: settings.TOKEN_SERVICE_REORG_WATCH_SECONDS,
      leaseMs: settings.TOKEN_SERVICE_LEASE_SECONDS,
    },
    nonceReservationMs: settings.TOKEN_SERVICE_PREPARED_TTL_SECONDS,
    idempotencyLeaseMs: settings.TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS,
    idempotencyRetentionMs: settings.TOKEN_SERVICE_IDEMPOTENCY_RETENTION_HOURS,
    simulatedChains: settings.TOKEN_SERVICE_SIMULATED_CHAINS,
    metricsPublic: settings.TOKEN_SERVICE_METRICS_PUBLIC,
    idleMemoryReleaseMs: settings.TOKEN_SERVICE_IDLE_GC_SECONDS,
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
