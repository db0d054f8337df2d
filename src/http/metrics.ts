import type { RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

import type { NodeCallObserver } from "../chains/evm/chain.js";
import type { EndpointStatus } from "../chains/evm/endpoint-pool.js";
import type { SenderLock } from "../chains/evm/sender-lock.js";
import type { NonceHealing } from "../core/operations/nonce-healing.js";
import type { Store } from "../store/types.js";

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics, in a registry of its own (several servers may share a process).
 * Request labels use the route pattern, never the path, so addresses in paths do not explode the series.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly requestDuration: Histogram<"method" | "route">;
  private readonly lockWait: Histogram;
  private readonly nodeCalls: Histogram<"pair" | "method" | "outcome">;
  private readonly nonceHealings: Counter<"chain" | "network" | "kind">;

  constructor(store: Store) {
    collectDefaultMetrics({ register: this.registry, prefix: "token_service_" });
    this.requests = new Counter({
      name: "token_service_http_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
    });
    this.requestDuration = new Histogram({
      name: "token_service_http_request_duration_seconds",
      help: "HTTP request latency by route",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.lockWait = new Histogram({
      name: "token_service_sender_lock_wait_seconds",
      help: "Time a send waited for its sender's lock (nonces are used one at a time per chain and sender)",
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.nodeCalls = new Histogram({
      name: "token_service_node_call_duration_seconds",
      help: "Calls to EVM nodes by chain/network pair and JSON-RPC method",
      labelNames: ["pair", "method", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.nonceHealings = new Counter({
      name: "token_service_nonce_healings_total",
      help: "Nonce healings by this process's tracker, by pair and kind: nonce-taken (a record settled failed: another transaction took its nonce), rebroadcast (a transaction the node no longer knew, sent again), gap-filled, gap-unfilled (a nonce left unused below one that waits, nothing to fill it), replaced-lost (a transaction the node lost yet refused again as already known, replaced by the next step of its ladder)",
      labelNames: ["chain", "network", "kind"],
      registers: [this.registry],
    });
    // Registered after the operations gauge, whose collection at scrape time sets it.
    const lag = new Gauge({
      name: "token_service_tracker_lag_seconds",
      help: "How long the most overdue unfinished operation has waited for the tracker (0 when none is overdue)",
      registers: [],
    });
    new Gauge({
      name: "token_service_operations",
      help: "Stored operations by kind and state",
      labelNames: ["kind", "status"],
      registers: [this.registry],
      // Read from the store at scrape time, so every replica reports the shared truth; while the database is down the
      // scrape still answers (token_service_database_ready 0), without these.
      async collect() {
        const stats = await store.operationStats().catch(() => undefined);
        this.reset();
        if (stats === undefined) return;
        for (const { kind, status, count } of stats.counts) this.set({ kind, status }, count);
        lag.set(stats.oldestDueMs === null ? 0 : stats.oldestDueMs / 1000);
      },
    });
    this.registry.registerMetric(lag);
    new Gauge({
      name: "token_service_database_ready",
      help: "1 while the store's database answers; 0 while it is unreachable (requests that need it answer 503)",
      registers: [this.registry],
      async collect() {
        this.set(
          await store.ping().then(
            () => 1,
            () => 0,
          ),
        );
      },
    });
  }

  /** Reports whether the service's own storage is usable, and how many requests met it exhausted. */
  watchStorage(storage: { readonly ready: boolean; readonly failureCount: number }): void {
    new Gauge({
      name: "token_service_storage_ready",
      help: "1 while the data directory (chain journals, the embedded database) takes writes; 0 while full, read-only or out of file descriptors",
      registers: [this.registry],
      collect() {
        this.set(storage.ready ? 1 : 0);
      },
    });
    new Counter({
      name: "token_service_storage_failures_total",
      help: "Requests answered 503 STORAGE_UNAVAILABLE because the service's storage was exhausted",
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(storage.failureCount);
      },
    });
  }

  /**
   * Reports each live pair's endpoints at scrape time (those of pairs opened so far), labelled by pair and host (never
   * credentials or paths): whether each is up, its state, the requests it failed and those that moved on from it.
   */
  watchEndpoints(read: () => Array<{ pair: string; endpoints: EndpointStatus[] }>): void {
    const each = (visit: (labels: { pair: string; endpoint: string }, status: EndpointStatus) => void) => {
      for (const { pair, endpoints } of read()) for (const status of endpoints) visit({ pair, endpoint: status.endpoint }, status);
    };
    new Gauge({
      name: "token_service_rpc_endpoint_up",
      help: "1 while a live pair's endpoint answers (its last request did), 0 otherwise: failing, down for a cool-down, on another chain, or not asked yet",
      labelNames: ["pair", "endpoint"],
      registers: [this.registry],
      collect() {
        this.reset();
        each((labels, status) => this.set(labels, status.state === "up" ? 1 : 0));
      },
    });
    new Gauge({
      name: "token_service_rpc_endpoint_state",
      help: "1 for the state each live pair's endpoint is in: up, failing, down (skipped for a cool-down), half-open, wrong-chain or unknown",
      labelNames: ["pair", "endpoint", "state"],
      registers: [this.registry],
      collect() {
        this.reset();
        each((labels, status) => this.set({ ...labels, state: status.state }, 1));
      },
    });
    new Counter({
      name: "token_service_rpc_endpoint_failures_total",
      help: "Requests to a live pair's endpoint that met no connection, a timeout, HTTP 429 or a 5xx",
      labelNames: ["pair", "endpoint"],
      registers: [this.registry],
      collect() {
        this.reset();
        each((labels, status) => this.inc(labels, status.failures));
      },
    });
    new Counter({
      name: "token_service_rpc_failovers_total",
      help: "Requests that moved on from a live pair's endpoint to the next one",
      labelNames: ["pair", "endpoint"],
      registers: [this.registry],
      collect() {
        this.reset();
        each((labels, status) => this.inc(labels, status.failovers));
      },
    });
  }

  /** Counts and times every request, labelled with the route that answered it. */
  requestMetrics(): RequestHandler {
    return (request, response, next) => {
      const stop = this.requestDuration.startTimer();
      response.on("finish", () => {
        // An error answered outside its router has lost the router's mount path; the router noted it on the way in.
        const mount = typeof response.locals.mountPath === "string" ? response.locals.mountPath : request.baseUrl;
        const route = request.route?.path === undefined ? "unmatched" : `${mount}${String(request.route.path)}`;
        const labels = { method: request.method, route };
        stop(labels);
        this.requests.inc({ ...labels, status: String(response.statusCode) });
      });
      next();
    };
  }

  /** Notes the mount path of a router (/api/v1 or /v1) for the route label. */
  static notePath(): RequestHandler {
    return (request, response, next) => {
      response.locals.mountPath = request.baseUrl;
      next();
    };
  }

  /** The same lock, timing how long each send waits for it. */
  timedSenderLock(lock: SenderLock): SenderLock {
    return {
      withLock: (key, work) => {
        const stop = this.lockWait.startTimer();
        return lock.withLock(key, () => {
          stop();
          return work();
        });
      },
    };
  }

  /** Counts each nonce healing by pair and kind. */
  countNonceHealing(healing: Pick<NonceHealing, "chain" | "network" | "kind">): void {
    this.nonceHealings.inc({ chain: healing.chain, network: healing.network, kind: healing.kind });
  }

  nodeCallObserver(): NodeCallObserver {
    return (pair, method, seconds, ok) => this.nodeCalls.observe({ pair, method, outcome: ok ? "ok" : "error" }, seconds);
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
