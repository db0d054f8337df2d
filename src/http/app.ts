import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { DestinationStream, Logger } from "pino";

import { readVariable } from "../config/environment.js";
import { rpcEnvironmentVariable, type ChainRegistry } from "../domain/chains.js";
import { DataDirectory } from "../store/data-directory.js";
import type { JournalReplay } from "../chains/evm/simulated-chain.js";
import type { TrackerSettings } from "../core/operations/tracker-settings.js";
import type { EndpointSource, SimulatedChainFactory } from "../chains/evm/chain.js";
import type { TokenService } from "../core/token-service.js";
import { FINAL_STATUSES } from "../domain/lifecycle.js";
import { composeTokenService } from "../compose.js";
import { ApiKeyVerifier } from "./api-keys.js";
import { apiReference } from "./api-reference.js";
import { AuthFailureLimiter } from "./auth-failures.js";
import type { ServerContext } from "./context.js";
import { weakEtag } from "./etag.js";
import { cachedHealthCheck, checkReadiness, withoutDetails } from "./health.js";
import { StorageHealth } from "./storage-health.js";
import { noStore, securityHeaders } from "./security-headers.js";
import { HttpError, HttpErrorCode } from "./http-errors.js";
import { ErrorCode, TokenServiceError } from "../domain/errors.js";
import { createLogger, logNonceHealing } from "./logger.js";
import { requireApiKey } from "./middleware/auth.js";
import { errorHandler } from "./middleware/errors.js";
import { requestFingerprint, runIdempotent } from "./middleware/idempotency.js";
import { requireLoopbackHost } from "./middleware/loopback-host.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { SharedRateLimiter, type RateLimitSettings } from "./rate-limiter.js";
import { requestLog } from "./middleware/request-log.js";
import { buildOpenApiDocument } from "./openapi.js";
import { sharedBytes } from "./shared-bytes.js";
import type { RouteDefinition, RouteResult } from "./route.js";
import { API_ROUTES } from "./routes/index.js";
import { fixedPathMethods } from "./middleware/method-guard.js";
import { ServiceMetrics } from "./metrics.js";
import { loadSettings, type Settings } from "./settings.js";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/types.js";
import { parseWith, queryParameterCheck } from "./validation.js";
import { DeliveryWorker } from "../webhooks/delivery-worker.js";
import { TargetGuard } from "../webhooks/target-guard.js";
import { Webhooks } from "../webhooks/webhooks.js";

export interface CreateServerOptions {
  /** The chains served; default the built-in ones and those of `TOKEN_SERVICE_CHAINS` (the `serve` task adds `tokenService.chains`). */
  chains?: ChainRegistry;
  /** Where simulated chains come from; the `serve` task passes the project's Hardhat EDR. Without one, only configured endpoints are served. */
  simulatedChainFactory?: SimulatedChainFactory;
  /** Live endpoints keyed "chain/network" (the project's `tokenService.rpc`); `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>` fills the gaps. */
  rpcUrls?: Record<string, EndpointSource>;
  /** Simulated chains and the embedded database live here (the `serve` task passes the project's `tokenService.dataDir`). */
  dataDir: string;
  /** A PostgreSQL server shared by replicas; default `DATABASE_URL`, else embedded SQLite in the data directory. */
  databaseUrl?: string;
  /** Seconds between blocks on simulated chains; default 2 (the `serve` task passes the config's `tokenService.blockTime`). */
  blockTimeSeconds?: number;
  /** Fee ceilings in gwei, keyed "chain/network" (the `serve` task passes `tokenService.feeCaps`); the environment wins. */
  feeCaps?: Record<string, string | number>;
  /** Replace-after blocks, keyed "chain/network" (`tokenService.replaceAfterBlocks`); the environment wins. */
  replaceAfterBlocks?: Record<string, number>;
  /** false accepts calls without an API key, addressed to a loopback name only (the serve task allows it on loopback only). */
  auth?: boolean;
  /** Accepted keys besides stored ones; default `TOKEN_SERVICE_API_KEYS`. */
  apiKeys?: string[];
  rateLimit?: RateLimitSettings;
  /** How long `wait=mined` waits; default 60 s. */
  waitTimeoutMs?: number;
  /** How long an Idempotency-Key replays its first answer; default 24 h. */
  idempotencyRetentionMs?: number;
  /** Confirmations, drop and reorg windows, leases of the operation tracker. */
  tracker?: Partial<TrackerSettings>;
  /** Overrides TOKEN_SERVICE_PREPARED_TTL_SECONDS: how long a prepared transaction's nonce stays reserved. */
  nonceReservationMs?: number;
  requestTimeoutMs?: number;
  logger?: Logger;
  /** Where log lines go when no logger is given (default stdout). */
  logDestination?: DestinationStream;
  env?: NodeJS.ProcessEnv;
  /** Already-checked settings; default `loadSettings(env)`. */
  settings?: Settings;
}

export interface TokenServiceServer {
  /** The Express app, not listening: mount it or call `listen` yourself. */
  app: Express;
  service: TokenService;
  store: Store;
  logger: Logger;
  /** The data directory this server holds (simulated chains, embedded database). */
  dataDirectory: DataDirectory;
  /** The simulated chains rebuilt from their journals at start-up. */
  journals: JournalReplay[];
  /** The checked settings; `listen` and `shutdown` take their timeouts from here. */
  settings: Settings;
  /** Webhook subscriptions per API key, as the /webhooks routes manage them. */
  webhooks: Webhooks;
  /** Finishes background work and closes chains and the database (stop the HTTP listener first). */
  close(): Promise<void>;
}

const BODY_LIMIT = "64kb";
const IDEMPOTENCY_LEASE_MARGIN_MS = 30_000;

const require = createRequire(import.meta.url);
const VERSION: string = require("hardhat-token-service/package.json").version;

function hasBody(request: Request): boolean {
  return request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
}

/** Runs after express.json(), which leaves a body of another type unread: its type is checked once, there. */
function requireJsonBody(request: Request, _response: Response, next: NextFunction): void {
  if (request.body === undefined && hasBody(request)) {
    return next(new HttpError(HttpErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the body as Content-Type: application/json", "Content-Type"));
  }
  next();
}

/**
 * The answer to a POST, as res.json() writes it but without an ETag: no request can make a POST conditional, and a
 * wallet's would be a digest of its private key. Express hashes every answer it sends for one; left out, the
 * header and the body also go to the socket in one write instead of two.
 */
function sendWithoutEtag(response: Response, status: number, body: unknown): void {
  response.statusCode = status;
  response.setHeader("Content-Type", "application/json; charset=utf-8");
  // Node adds the Content-Length of a body handed to end().
  response.end(JSON.stringify(body));
}

function routeHandler(route: RouteDefinition, context: ServerContext) {
  const checkQueryParameters = queryParameterCheck(route.query);
  return async (request: Request, response: Response, next: NextFunction) => {
    try {
      // Express parses the query string at each read of request.query: read once, and only when there is one.
      const rawQuery = request.url.includes("?") ? (request.query as Record<string, unknown>) : {};
      checkQueryParameters(rawQuery);
      const query = route.query ? parseWith(route.query, rawQuery) : {};
      const rawBody = request.body ?? {};
      if (!context.allowPrivateKeys) refusePrivateKey(rawBody);
      const body = route.validateBody ? route.validateBody(rawBody) : route.body ? parseWith(route.body, rawBody) : undefined;
      const apiKeyId = request.apiKeyId ?? null;
      const params = request.params as Record<string, string>;
      const idempotencyKey = route.idempotent ? request.get("idempotency-key") : undefined;
      let result: RouteResult;
      if (idempotencyKey === undefined) {
        result = await route.handle({ query, body, params, apiKeyId, operationId: randomUUID(), raw: request, res: response }, context);
      } else {
        const run = (operationId: string): Promise<RouteResult> =>
          route.handle({ query, body, params, apiKeyId, operationId, raw: request, res: response }, context);
        const { privateKey: _omit, ...queryWithoutSecrets } = { ...(query as Record<string, unknown>), privateKey: undefined };
        const outcome = await runIdempotent(
          context.store,
          {
            apiKeyId,
            // The path with its parameters: a key used for one operation's speed-up is not another's.
            route: `${route.method} ${route.paths[0]!.replace(/:(\w+)/g, (_, name: string) => params[name] ?? "")}`,
            key: idempotencyKey,
            fingerprint: requestFingerprint(queryWithoutSecrets, body),
            operationId: randomUUID(),
            leaseMs: context.idempotencyLeaseMs,
            retentionMs: context.idempotencyRetentionMs,
          },
          run,
          async (operationId) => {
            const outcome = await context.service.operations.recover(operationId, context.waitTimeoutMs);
            return outcome === undefined ? undefined : { body: outcome };
          },
          async (operationId) => {
            const record = await context.store.getOperation(operationId);
            // A record the full disk refused (its request answered 503: nothing was done) is no answer to replay: the
            // request is releasing its key, and the retry then runs anew.
            if (record === undefined || context.service.operations.refusedForStorage(record)) return undefined;
            // A record still being followed is answered as the first request would have answered it then: 202.
            return { status: FINAL_STATUSES.includes(record.status) ? 200 : 202, body: context.service.operations.outcomeOf(record) };
          },
          (operationId) => context.service.operations.refusalPending(operationId),
        );
        if (outcome.replayed) response.set("Idempotent-Replayed", "true");
        result = outcome.result;
      }
      if (route.method === "post" || route.method === "put") {
        // A write went through: storage that was out is back.
        context.storage?.succeeded();
        sendWithoutEtag(response, result.status ?? 200, result.body);
      } else response.status(result.status ?? 200).json(result.body);
    } catch (error) {
      next(error);
    }
  };
}

/** The production switch (TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false): a key in a request body goes no further. */
function refusePrivateKey(body: unknown): void {
  if (typeof body === "object" && body !== null && Object.hasOwn(body, "privateKey")) {
    throw new TokenServiceError(
      ErrorCode.PRIVATE_KEYS_DISABLED,
      "this service takes no private key (TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false): name a held wallet as sender and omit privateKey, or prepare the transaction, sign it yourself and submit signedTransaction (the key was not read)",
      { field: "privateKey" },
    );
  }
}

/** A reason this process must not serve, for the operator: `serve` prints it as one line. */
export class StartRefused extends Error {
  override name = "StartRefused";
}

function replicaWithPrivateChains(pairs: Array<{ chain: string; network: string; chainId: number }>): StartRefused {
  const [first] = pairs;
  return new StartRefused(
    `another process already serves simulated chains from this database, and this one would simulate its own private ` +
      `${pairs.map((pair) => `${pair.chain}/${pair.network}`).join(", ")}: replicas must share every chain. ` +
      `Set ${pairs.map((pair) => rpcEnvironmentVariable(pair.chain, pair.network)).join(", ")} to endpoints every replica reaches ` +
      `(one \`npx hardhat node --chain-id ${first?.chainId} --port 8545\` serves a simulated chain to all of them), ` +
      `or TOKEN_SERVICE_SIMULATED_CHAINS=off to serve only the configured pairs.`,
  );
}

/** Builds the HTTP service on the shared core, without listening. */
export async function createServer(options: CreateServerOptions): Promise<TokenServiceServer> {
  const env = options.env ?? process.env;
  const settings = options.settings ?? loadSettings(env);
  const dataDir = options.dataDir;
  const logger = options.logger ?? createLogger(options.logDestination, readVariable(env, "LOG_LEVEL"));
  const databaseUrl = options.databaseUrl ?? readVariable(env, "DATABASE_URL");
  const dataDirectory = new DataDirectory(dataDir, "hardhat serve", "stop it first, or give this one another directory (--data-dir)");
  let store: Store;
  try {
    store = await openStore({ dataDir, dataDirectory, ...(databaseUrl ? { databaseUrl } : {}) });
  } catch (error) {
    dataDirectory.release();
    throw error;
  }
  const metrics = new ServiceMetrics(store);
  const storage = new StorageHealth(dataDir, logger);
  metrics.watchStorage(storage);
  let service: TokenService | undefined;
  let journals: JournalReplay[];
  try {
    service = composeTokenService({
      ...(options.chains ? { chains: options.chains } : {}),
      ...(options.simulatedChainFactory ? { simulatedChainFactory: options.simulatedChainFactory } : {}),
      ...(options.rpcUrls ? { rpcUrls: options.rpcUrls } : {}),
      ...(options.feeCaps ? { feeCaps: options.feeCaps } : {}),
      ...(options.replaceAfterBlocks ? { replaceAfterBlocks: options.replaceAfterBlocks } : {}),
      dataDirectory,
      env,
      blockTimeSeconds: options.blockTimeSeconds ?? 2,
      senderLock: metrics.timedSenderLock(store.senderLock()),
      onNodeCall: metrics.nodeCallObserver(),
      onCheckpoint: (info, outcome) => {
        const pair = `${info.chain}/${info.network}`;
        if (outcome.ok) logger.info({ pair, ...outcome }, "wrote a simulated chain's checkpoint");
        else logger.warn({ pair, error: outcome.error }, "a simulated chain's checkpoint failed; the last one and the journal stand");
      },
      onNonceHealing: (healing) => {
        metrics.countNonceHealing(healing);
        logNonceHealing(logger, healing);
      },
      simulatedChains: settings.simulatedChains,
      chainFaults: settings.chainFaults,
      operationStore: store,
      custodyStore: store.custody,
      notificationStore: store.notifications,
      verificationStore: store.verifications,
      onVerificationError: (error) => logger.warn({ err: (error as Error).message }, "a verification step failed; trying again"),
      onScanError: (pair, error) =>
        logger.warn({ pair, err: (error as Error).message }, "a chain notification scan step failed; trying again"),
      tracker: { ...settings.tracker, ...options.tracker },
      nonceReservationMs: options.nonceReservationMs ?? settings.nonceReservationMs,
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
    const evm = service.evm;
    metrics.watchEndpoints(() => evm.endpointStatuses());
    const simulated = evm.describe().filter((pair) => evm.simulatesPrivately(pair));
    if (simulated.length > 0) {
      // Simulated chains journal into the data directory: take it now, so a task started beside us is refused at once.
      dataDirectory.claim();
      // A simulated chain lives in one process; a second replica on the same database would serve another, private one.
      if (!(await store.claimExclusive("simulated-chains"))) throw replicaWithPrivateChains(simulated);
    }
    // The only process on an embedded store, or on the simulated chains it just claimed: a dead predecessor's records are ours.
    if (store.kind === "sqlite") await store.reclaimAfterRestart();
    else if (simulated.length > 0) await store.reclaimAfterRestart(simulated);
    // Chains with state come up now: their replay is reported, and the tracker resumes their records.
    journals = await evm.openJournaled();
  } catch (error) {
    await service?.close();
    await store.close();
    dataDirectory.release();
    throw error;
  }
  const waitTimeoutMs = options.waitTimeoutMs ?? 60_000;
  for (const journal of journals) {
    if (journal.tornBytes > 0 || journal.rejectedLines > 0) {
      logger.warn(
        journal,
        `a simulated chain's journal had lines it could not trust (${journal.rejectedLines} damaged, ${journal.tornBytes} torn bytes): set aside in ${journal.setAsidePath}; records of transactions it lost are checked again`,
      );
    } else logger.info(journal, "replayed a simulated chain's journal");
  }
  // Records a crash left signed are broadcast before new sends can take their nonces.
  await service.operations.tracker
    .runOnce()
    .catch((error: unknown) => logger.warn({ err: (error as Error).message }, "could not resume operations yet"));
  service.operations.start();
  service.notifications?.start();
  service.verifications?.start();
  // The keystore is opened beside the first requests (scrypt takes about a second); held writes wait for it.
  service.custody.start().catch((error: unknown) => logger.warn({ err: (error as Error).message }, "could not read the keystore yet"));
  const targets = new TargetGuard(settings.webhooks.allowPrivateTargets);
  const webhooks = new Webhooks(store.webhooks, targets);
  const deliveries = new DeliveryWorker(store.webhooks, targets, settings.webhooks.delivery, logger);
  // Events this process queued go out at once; other processes' are found by the worker's poll.
  store.webhooks.onQueued(() => deliveries.kick());
  deliveries.start();
  const purge = setInterval(() => {
    store
      .purgeExpiredIdempotency()
      .catch((error: unknown) => logger.warn({ err: (error as Error).message }, "could not purge expired idempotency keys"));
  }, 60_000).unref();

  const context: ServerContext = {
    service,
    store,
    webhooks,
    logger,
    waitTimeoutMs,
    allowPrivateKeys: settings.allowPrivateKeys,
    // Longer than any request may take (a wait=mined included), so only a dead owner's claim expires.
    idempotencyLeaseMs: settings.idempotencyLeaseMs ?? waitTimeoutMs + IDEMPOTENCY_LEASE_MARGIN_MS,
    idempotencyRetentionMs: options.idempotencyRetentionMs ?? settings.idempotencyRetentionMs,
    storage,
  };

  const verifier = options.auth === false ? undefined : new ApiKeyVerifier(options.apiKeys ?? settings.apiKeys, store);
  const limits = options.rateLimit ?? settings.rateLimit;
  const limiter = new SharedRateLimiter(store, limits);
  const checkHealth = cachedHealthCheck(context, settings.healthCacheMs);

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", weakEtag);
  app.set("trust proxy", settings.trustProxy);
  app.use(requestLog(logger), metrics.requestMetrics(), securityHeaders());
  if (verifier === undefined) app.use(requireLoopbackHost());

  const authenticate = requireApiKey(verifier, new AuthFailureLimiter(store, settings.authFailures));
  // Liveness: the process answers. No key, no rate limit, no backend asked (docs/operations.md#probes); the listener
  // answers it even on a connection past the per-client bound (listen.ts).
  app.get("/health/live", (_request, response) => void response.set("Cache-Control", "no-store").json({ status: "live" }));
  // Keyless, /health says only whether each backend is ready; hosts, paths and block heights are for key holders.
  app.get("/health", (request, response, next) => {
    const answer = (detailed: boolean) =>
      checkHealth().then((health) => {
        response.status(health.status === "ok" ? 200 : 503).json(detailed ? health : withoutDetails(health));
      }, next);
    const presented = request.get("x-api-key") || typeof request.query.apiKey === "string";
    if (verifier !== undefined && !presented) return void answer(false);
    authenticate(request, response, (error?: unknown) => (error === undefined ? void answer(true) : next(error)));
  });
  // Readiness (docs/operations.md#probes): 503 with the reasons while writes cannot be accepted. Keyless, each reason
  // names its backend only.
  app.get("/health/ready", (request, response, next) => {
    const answer = (detailed: boolean) =>
      checkHealth()
        .then((health) => checkReadiness(context, health))
        .then((readiness) => {
          const body = detailed
            ? readiness
            : {
                ...withoutDetails(readiness),
                ready: readiness.ready,
                reasons: readiness.reasons.map((reason) => `${reason.split(":")[0]}: not ready`),
              };
          response
            .status(readiness.ready ? 200 : 503)
            .set("Cache-Control", "no-store")
            .json(body);
        }, next);
    const presented = request.get("x-api-key") || typeof request.query.apiKey === "string";
    if (verifier !== undefined && !presented) return void answer(false);
    authenticate(request, response, (error?: unknown) => (error === undefined ? void answer(true) : next(error)));
  });
  // Built on first request (nothing at start-up needs it), then served from the same bytes.
  app.get(
    "/openapi.json",
    sharedBytes({
      type: "application/json; charset=utf-8",
      load: () => Buffer.from(JSON.stringify(buildOpenApiDocument(API_ROUTES, VERSION, { chains: service.chains }))),
    }),
  );
  app.use(apiReference());

  // Protected like the API (a scraper passes ?apiKey=), unless TOKEN_SERVICE_METRICS_PUBLIC=true.
  app.get("/metrics", ...(settings.metricsPublic ? [] : [authenticate]), async (_request, response, next) => {
    try {
      const { contentType, body } = await metrics.exposition();
      response.type(contentType).send(body);
    } catch (error) {
      next(error);
    }
  });

  const api = express.Router();
  api.use(ServiceMetrics.notePath(), authenticate, rateLimit(limiter, limits));
  api.use(fixedPathMethods(API_ROUTES));
  for (const route of API_ROUTES) {
    const handlers =
      route.method === "post" || route.method === "put"
        ? [express.json({ limit: BODY_LIMIT, strict: false }), requireJsonBody, routeHandler(route, context)]
        : [routeHandler(route, context)];
    for (const path of route.paths) api[route.method](path, ...handlers);
  }
  app.use("/api/v1", noStore, api);
  app.use("/v1", noStore, api);

  app.use((request, _response, next) =>
    next(new HttpError(HttpErrorCode.NOT_FOUND, `no route ${request.method} ${request.path}; see /docs`)),
  );
  app.use(errorHandler(logger, context.storage));

  return {
    app,
    service,
    store,
    logger,
    dataDirectory,
    journals,
    settings,
    webhooks,
    async close() {
      clearInterval(purge);
      await deliveries.stop();
      await service.close();
      await limiter.close().catch(() => undefined);
      await store.close();
      dataDirectory.release();
    },
  };
}
