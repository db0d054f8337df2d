import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { DestinationStream, Logger } from "pino";

import { createTokenService } from "../api.js";
import type { TokenService } from "../service.js";
import { ApiKeyVerifier } from "./api-keys.js";
import { AuthFailureLimiter } from "./auth-failures.js";
import type { ServerContext } from "./context.js";
import { DOCS_PAGE } from "./docs-page.js";
import { cachedHealthCheck } from "./health.js";
import { HttpError, HttpErrorCode } from "./http-errors.js";
import { createLogger } from "./logger.js";
import { requireApiKey } from "./middleware/auth.js";
import { errorHandler } from "./middleware/errors.js";
import { requestFingerprint, runIdempotent } from "./middleware/idempotency.js";
import { requireLoopbackHost } from "./middleware/loopback-host.js";
import { rateLimit, type RateLimitSettings } from "./middleware/rate-limit.js";
import { requestLog } from "./middleware/request-log.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { RouteDefinition, RouteResult } from "./route.js";
import { API_ROUTES } from "./routes/index.js";
import { loadSettings, type Settings } from "./settings.js";
import { openStore } from "./store/open-store.js";
import type { Store } from "./store/types.js";
import { parseWith } from "./validation.js";

export interface CreateServerOptions {
  /** A Hardhat runtime with this plugin; one is created when omitted. */
  hre?: HardhatRuntimeEnvironment;
  /** Simulated chains and the embedded database live here. Default: the project's `tokenService.dataDir`. */
  dataDir?: string;
  /** A PostgreSQL server shared by replicas; default `DATABASE_URL`, else embedded PGlite. */
  databaseUrl?: string;
  /** Seconds between blocks on simulated chains; default the config's `tokenService.blockTime` (2). */
  blockTimeSeconds?: number;
  /** false accepts calls without an API key, addressed to a loopback name only (the serve task allows it on loopback only). */
  auth?: boolean;
  /** Accepted keys besides stored ones; default `TOKEN_SERVICE_API_KEYS`. */
  apiKeys?: string[];
  rateLimit?: RateLimitSettings;
  /** How long `wait=mined` waits; default 60 s. */
  waitTimeoutMs?: number;
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
  /** The checked settings; `listen` and `shutdown` take their timeouts from here. */
  settings: Settings;
  /** Finishes background work and closes chains and the database (stop the HTTP listener first). */
  close(): Promise<void>;
}

const BODY_LIMIT = "64kb";
const TRACK_TIMEOUT_MS = 10 * 60_000;

const require = createRequire(import.meta.url);
const VERSION: string = require("hardhat-token-service/package.json").version;

function hasBody(request: Request): boolean {
  return request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
}

function requireJsonBody(request: Request, _response: Response, next: NextFunction): void {
  if (hasBody(request) && !request.is("application/json")) {
    return next(new HttpError(415, HttpErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the body as Content-Type: application/json", "Content-Type"));
  }
  next();
}

function routeHandler(route: RouteDefinition, context: ServerContext) {
  return async (request: Request, response: Response, next: NextFunction) => {
    try {
      const query = route.query ? parseWith(route.query, request.query) : {};
      const rawBody = request.body ?? {};
      const body = route.validateBody ? route.validateBody(rawBody) : route.body ? parseWith(route.body, rawBody) : undefined;
      const apiKeyId = request.apiKeyId ?? null;
      const run = (): Promise<RouteResult> =>
        route.handle({ query, body, params: request.params as Record<string, string>, apiKeyId, raw: request, res: response }, context);
      const idempotencyKey = route.idempotent ? request.get("idempotency-key") : undefined;
      let result: RouteResult;
      if (idempotencyKey === undefined) {
        result = await run();
      } else {
        const { privateKey: _omit, ...queryWithoutSecrets } = { ...(query as Record<string, unknown>), privateKey: undefined };
        const outcome = await runIdempotent(
          context.store,
          { apiKeyId, route: `${route.method} ${route.paths[0]}`, key: idempotencyKey, fingerprint: requestFingerprint(queryWithoutSecrets, body) },
          run,
        );
        if (outcome.replayed) response.set("Idempotent-Replayed", "true");
        result = outcome.result;
      }
      response.status(result.status ?? 200).json(result.body);
    } catch (error) {
      next(error);
    }
  };
}

/** Builds the HTTP service on the shared core, without listening. */
export async function createServer(options: CreateServerOptions = {}): Promise<TokenServiceServer> {
  const env = options.env ?? process.env;
  const settings = options.settings ?? loadSettings(env);
  let hre = options.hre;
  if (hre === undefined) {
    const [{ createHardhatRuntimeEnvironment }, { default: plugin }] = await Promise.all([import("hardhat/hre"), import("../index.js")]);
    hre = await createHardhatRuntimeEnvironment({ plugins: [plugin] });
  }
  const dataDir = options.dataDir ?? hre.config.tokenService.dataDir;
  const logger = options.logger ?? createLogger(options.logDestination);
  const databaseUrl = options.databaseUrl ?? env.DATABASE_URL;
  // Private from the start: the directory holds chain state and the database.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const store = await openStore({ dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
  let service: TokenService;
  try {
    service = await createTokenService({
      hre,
      dataDir,
      env,
      blockTimeSeconds: options.blockTimeSeconds ?? hre.config.tokenService.blockTime,
      senderLock: store.senderLock(),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    });
  } catch (error) {
    await store.close();
    throw error;
  }

  const tracking = new AbortController();
  const tracked = new Set<Promise<void>>();
  const context: ServerContext = {
    service,
    store,
    logger,
    waitTimeoutMs: options.waitTimeoutMs ?? 60_000,
    trackOperation(operationId, chain, network, transactionHash) {
      const watch = service
        .waitForTransaction({ chain, network, transactionHash, timeoutMs: TRACK_TIMEOUT_MS, signal: tracking.signal })
        .then(async (status) => {
          if (status.status !== "pending") await store.updateOperation(operationId, { status: status.status });
        })
        .catch((error: unknown) => logger.warn({ operationId, code: (error as { code?: string }).code }, "could not follow a transaction"))
        .finally(() => tracked.delete(watch));
      tracked.add(watch);
    },
  };

  const verifier = options.auth === false ? undefined : new ApiKeyVerifier(options.apiKeys ?? settings.apiKeys, store);
  const limits = options.rateLimit ?? settings.rateLimit;
  const checkHealth = cachedHealthCheck(context, settings.healthCacheMs);

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", settings.trustProxy);
  app.use(requestLog(logger));
  if (verifier === undefined) app.use(requireLoopbackHost());

  app.get("/health", async (_request, response, next) => {
    try {
      const health = await checkHealth();
      response.status(health.status === "ok" ? 200 : 503).json(health);
    } catch (error) {
      next(error);
    }
  });
  const openApiDocument = buildOpenApiDocument(API_ROUTES, VERSION);
  app.get("/openapi.json", (_request, response) => void response.json(openApiDocument));
  app.get("/docs", (_request, response) => void response.type("html").send(DOCS_PAGE));

  const api = express.Router();
  api.use(requireApiKey(verifier, new AuthFailureLimiter(store, settings.authFailures)), rateLimit(store, limits));
  for (const route of API_ROUTES) {
    const handlers =
      route.method === "post"
        ? [requireJsonBody, express.json({ limit: BODY_LIMIT, strict: false }), routeHandler(route, context)]
        : [routeHandler(route, context)];
    for (const path of route.paths) api[route.method](path, ...handlers);
  }
  app.use("/api/v1", api);
  app.use("/v1", api);

  app.use((request, _response, next) => next(new HttpError(404, HttpErrorCode.NOT_FOUND, `no route ${request.method} ${request.path}; see /docs`)));
  app.use(errorHandler(logger));

  return {
    app,
    service,
    store,
    logger,
    settings,
    async close() {
      tracking.abort();
      await Promise.allSettled([...tracked]);
      await service.close();
      await store.close();
    },
  };
}
