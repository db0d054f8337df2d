import type { EvmChain } from "../chains/evm/chain.js";
import type { EndpointProbe, EndpointState } from "../chains/evm/endpoint-pool.js";
import { ErrorCode, isTokenServiceError } from "../domain/errors.js";
import type { ServerContext } from "./context.js";

/** One endpoint of a live EVM pair, as the probe found it. */
export interface EndpointHealth {
  /** Its host, never its credentials or path. */
  endpoint: string;
  state: EndpointState;
  detail?: string;
  block?: number;
}

export interface BackendHealth {
  /** null: not probed, so neither known ready nor known down. */
  ready: boolean | null;
  simulated?: boolean;
  detail: string;
  /** A live EVM pair's endpoints, in the order requests try them. */
  endpoints?: EndpointHealth[];
}

export interface HealthReport {
  status: "ok" | "degraded";
  backends: Record<string, BackendHealth>;
}

const PROBE_TIMEOUT_MS = 2_000;
/** Each endpoint of a pair gets less, so that the pair's report (which ones answered) comes within the probe's time. */
const ENDPOINT_PROBE_TIMEOUT_MS = 1_500;

class ProbeTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new ProbeTimeout()), PROBE_TIMEOUT_MS).unref())]);
}

/** Why a probe failed, in words: a node on another chain is not the same trouble as a node that does not answer. */
function failure(endpoint: string, error: unknown): string {
  if (isTokenServiceError(error, ErrorCode.CHAIN_ID_MISMATCH)) return error.message;
  if (error instanceof ProbeTimeout) return `${endpoint} not answering within ${PROBE_TIMEOUT_MS / 1000} s`;
  return `${endpoint} not answering`;
}

/**
 * A live pair's latest block and, where it has an endpoint pool, each endpoint as its own probe found it: the pair is
 * ready when one of them answers (requests move to it), whatever the others do.
 */
async function probeEndpoints(chain: EvmChain): Promise<{ block: number | undefined; endpoints?: EndpointHealth[] }> {
  if (chain.probeEndpoints === undefined) return { block: await chain.provider.getBlockNumber() };
  const probes: EndpointProbe[] = await chain.probeEndpoints(ENDPOINT_PROBE_TIMEOUT_MS);
  const blocks = probes.flatMap((probe) => (probe.block === undefined ? [] : [probe.block]));
  return {
    block: blocks.length === 0 ? undefined : Math.max(...blocks),
    endpoints: probes.map(({ endpoint, state, detail, block }) => ({
      endpoint,
      state,
      ...(detail !== undefined ? { detail } : {}),
      ...(block !== undefined ? { block } : {}),
    })),
  };
}

/**
 * Liveness plus per-backend readiness. Simulated chains start on first use, so
 * an unopened one is ready by definition; live endpoints get a short probe.
 */
export async function checkHealth({ service, store, storage }: ServerContext): Promise<HealthReport> {
  const backends: Record<string, BackendHealth> = {};
  const probes: Array<Promise<void>> = [
    ...(storage === undefined ? [] : [storage.check().then((health) => void (backends.storage = health))]),
    withTimeout(store.ping()).then(
      () => void (backends.database = { ready: true, detail: `${store.kind} (${store.location})` }),
      (error: unknown) => void (backends.database = { ready: false, detail: failure(store.kind, error) }),
    ),
  ];
  for (const pair of service.networks()) {
    const key = `${pair.chain}/${pair.network}`;
    if (pair.kind === "bitcoin") {
      if (pair.backend === "none") {
        backends[key] = { ready: false, detail: pair.endpoint };
        continue;
      }
      const endpoint = `${pair.backend} at ${pair.endpoint}`;
      probes.push(
        withTimeout(service.pingBitcoin(pair.network)).then(
          (probe) =>
            void (backends[key] =
              probe === "not probed"
                ? { ready: null, detail: `${endpoint} (not probed: a health check sends no traffic to a public API)` }
                : { ready: true, detail: endpoint }),
          (error: unknown) => void (backends[key] = { ready: false, detail: failure(endpoint, error) }),
        ),
      );
      continue;
    }
    if (pair.backend === "none") continue;
    if (pair.simulated) {
      backends[key] = { ready: true, simulated: true, detail: "in-process EDR (started on first use)" };
      continue;
    }
    probes.push(
      withTimeout(service.evmChain(pair, "health check").then(probeEndpoints)).then(
        ({ block, endpoints }) =>
          void (backends[key] =
            block === undefined
              ? { ready: false, simulated: false, detail: `${pair.endpoint}: no endpoint answering`, ...(endpoints ? { endpoints } : {}) }
              : { ready: true, simulated: false, detail: `${pair.endpoint}, block ${block}`, ...(endpoints ? { endpoints } : {}) }),
        (error: unknown) => void (backends[key] = { ready: false, simulated: false, detail: failure(pair.endpoint, error) }),
      ),
    );
  }
  await Promise.all(probes);
  const evmOrDatabaseDown = Object.entries(backends).some(([name, health]) => health.ready === false && !name.startsWith("bitcoin/"));
  return { status: evmOrDatabaseDown ? "degraded" : "ok", backends };
}

export interface ReadinessReport extends HealthReport {
  ready: boolean;
  /** What keeps writes from being accepted, a line each: `<backend>: <why>`. */
  reasons: string[];
}

/**
 * Readiness (docs/operations.md#probes): whether writes can be accepted now. Not ready while the database or the data
 * directory's storage is down, while the keystore is locked (it exists once a held wallet was made), or while a live
 * EVM pair with unfinished records has no endpoint answering. A live pair without work being down is reported in
 * `backends` and keeps the instance ready: taking it out would not bring the node back.
 */
export async function checkReadiness(context: ServerContext, health: HealthReport): Promise<ReadinessReport> {
  const reasons: string[] = [];
  for (const name of ["database", "storage"]) {
    const backend = health.backends[name];
    if (backend?.ready === false) reasons.push(`${name}: ${backend.detail}`);
  }
  const [custody, busy] = await Promise.all([
    context.service.custody
      .status()
      .catch((error: unknown) => ({ state: "locked" as const, reason: error instanceof Error ? error.message : String(error) })),
    context.store.pairsWithUnfinished().catch(() => [] as Array<{ chain: string; network: string }>),
  ]);
  if (custody.state === "locked") reasons.push(`keystore: locked (${custody.reason ?? "no passphrase"})`);
  for (const { chain, network } of busy) {
    const key = `${chain}/${network}`;
    const backend = health.backends[key];
    if (backend?.ready === false && !chain.startsWith("bitcoin")) reasons.push(`${key}: ${backend.detail}, with unfinished records`);
  }
  return { ...health, ready: reasons.length === 0, reasons };
}

/** The report a caller without an API key gets: each backend's readiness, nothing of where it is. */
export function withoutDetails(report: HealthReport): {
  status: HealthReport["status"];
  backends: Record<string, { ready: boolean | null }>;
} {
  return {
    status: report.status,
    backends: Object.fromEntries(Object.entries(report.backends).map(([name, health]) => [name, { ready: health.ready }])),
  };
}

/**
 * checkHealth behind a short cache: a load balancer polling /health must not
 * turn into a stream of calls to every configured node. Callers that arrive
 * while a probe runs share it.
 */
export function cachedHealthCheck(context: ServerContext, cacheMs: number): () => Promise<HealthReport> {
  let last: { report: Promise<HealthReport>; settledAt: number | undefined } | undefined;
  return () => {
    const fresh = last !== undefined && (last.settledAt === undefined || Date.now() - last.settledAt < cacheMs);
    if (fresh) return last!.report;
    const entry: { report: Promise<HealthReport>; settledAt: number | undefined } = { report: checkHealth(context), settledAt: undefined };
    entry.report.then(
      () => void (entry.settledAt = Date.now()),
      // A failed check is not kept: the next request tries again.
      () => void (last = last === entry ? undefined : last),
    );
    last = entry;
    return entry.report;
  };
}
