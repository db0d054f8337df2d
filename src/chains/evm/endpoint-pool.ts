import { isError, keccak256, type JsonRpcError, type JsonRpcPayload, type JsonRpcResult } from "ethers";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { endpointLabels } from "./endpoint-names.js";
import { httpPost, type HttpAnswer } from "./http-post.js";
import { nodeRefusal } from "./node-refusals.js";

/**
 * One live pair's JSON-RPC endpoints, tried in the order they were configured: the transport under the pair's ethers
 * provider (see LiveChain). A request that meets no connection, a timeout, HTTP 429 or a 5xx moves to the next endpoint
 * at once, and goes round once more after a short backoff when they all failed (those that timed out left out). An
 * endpoint that failed `failureThreshold` times in a row is skipped for `cooldownMs` (its circuit is open), then one
 * request tries it again (half-open) and puts it back in use if it answers. Every endpoint's chain id is checked before
 * it is first used, and again after each cool-down; one that serves another chain is never used. An answer, an error answer included ("execution reverted", "nonce too low"), is the node's word: it is not
 * retried elsewhere.
 *
 * A broadcast that moves is the same signed bytes, so at most one transaction: an endpoint that answers the resent
 * bytes with "already known", or with "nonce too low" while it knows the transaction's hash, has the transaction, and
 * the send succeeded.
 */

/** Where an endpoint stands, as /health and /metrics show it. */
export type EndpointState =
  /** Not asked anything yet. */
  | "unknown"
  /** Its last answer came. */
  | "up"
  /** Its last request failed; fewer failures in a row than the threshold. */
  | "failing"
  /** Skipped until its cool-down ends (the circuit is open). */
  | "down"
  /** The cool-down is over: the next request tries it (its chain id checked first). */
  | "half-open"
  /** It serves another chain than the pair's: never used. */
  | "wrong-chain";

export const ENDPOINT_STATES: readonly EndpointState[] = ["unknown", "up", "failing", "down", "half-open", "wrong-chain"];

export interface EndpointStatus {
  /** The endpoint's host (never its credentials or path), "#2" on the second of one host. */
  endpoint: string;
  state: EndpointState;
  /** Why it is not up, in words fit to print. */
  detail?: string;
  /** Requests (and chain id checks) it failed. */
  failures: number;
  /** Requests that moved on from it to the next endpoint. */
  failovers: number;
}

export interface EndpointProbe extends EndpointStatus {
  /** The latest block it reported, when it answered the probe. */
  block?: number;
}

export interface FailoverPolicy {
  /** Failures in a row that open an endpoint's circuit. */
  failureThreshold: number;
  /** How long an open circuit skips the endpoint. */
  cooldownMs: number;
  /** The pause (jittered, half of it to all of it) before a request tries the endpoints that failed it once more. */
  backoffMs: number;
}

export const DEFAULT_FAILOVER_POLICY: FailoverPolicy = { failureThreshold: 3, cooldownMs: 30_000, backoffMs: 50 };

/** A request goes through the endpoints at most this many times. */
const ROUNDS = 2;

export interface EndpointPoolOptions {
  requestTimeoutMs: number;
  /** Sent with every request (a Hardhat network's `httpHeaders`, often a key): never printed. */
  headers?: Record<string, string>;
  policy?: Partial<FailoverPolicy>;
  /** The clock of cool-downs; tests pass their own. */
  now?: () => number;
}

type Payload = JsonRpcPayload | JsonRpcPayload[];
type Answer = JsonRpcResult | JsonRpcError;
type Failure = { ok: false; error: unknown; reason: string; timedOut: boolean };
type Attempt = { ok: true; answers: Answer[] } | Failure;
type Check = "ok" | "wrong-chain" | Failure;

class Endpoint {
  /** Set once its chain id matched; cleared when its circuit opens, so a node replaced during an outage is checked again. */
  verified = false;
  reportedChainId: number | undefined;
  checking: Promise<Check> | undefined;
  contacted = false;
  consecutiveFailures = 0;
  /** While set, the circuit is open until then, half-open after. */
  openUntil: number | undefined;
  lastFailure: string | undefined;
  failures = 0;
  failovers = 0;

  /** Never printed: it may carry credentials. A URL Node cannot parse fails every request, as one that cannot be reached. */
  readonly target: URL | TypeError;

  constructor(
    readonly label: string,
    url: string,
  ) {
    try {
      this.target = new URL(url);
    } catch {
      // Node's own error quotes the URL (and any key in it).
      this.target = new TypeError("the endpoint's URL cannot be parsed");
    }
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a request never got an answer, in words that quote nothing of the request or the URL. */
function unreachableReason(error: unknown, timeoutMs: number): { reason: string; timedOut: boolean } {
  if (isError(error, "TIMEOUT")) return { reason: `not answering within ${timeoutMs / 1000} s`, timedOut: true };
  const code = (error as { code?: unknown })?.code;
  if (code === "ECONNREFUSED") return { reason: "refusing connections", timedOut: false };
  if (code === "ECONNRESET" || code === "EPIPE") return { reason: "dropped the connection", timedOut: false };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return { reason: "host not found", timedOut: false };
  return { reason: "unreachable", timedOut: false };
}

/** An HTTP answer that is no JSON-RPC answer, as ethers' `FetchResponse.assertOk` reported one. */
function serverError(response: HttpAnswer): Error {
  return Object.assign(new Error(`server response ${response.statusCode}`), { code: "SERVER_ERROR", statusCode: response.statusCode });
}

export class EndpointPool {
  private readonly endpoints: Endpoint[];
  private readonly policy: FailoverPolicy;
  private readonly now: () => number;
  private nextId = 1;

  constructor(
    /** "ethereum/sepolia", for messages. */
    readonly pair: string,
    readonly chainId: number,
    urls: readonly string[],
    private readonly options: EndpointPoolOptions,
  ) {
    if (urls.length === 0) throw new Error(`no endpoint for ${pair}`);
    const labels = endpointLabels(urls);
    this.endpoints = urls.map((url, index) => new Endpoint(labels[index]!, url));
    this.policy = { ...DEFAULT_FAILOVER_POLICY, ...options.policy };
    this.now = options.now ?? Date.now;
  }

  /** The endpoints' hosts, in order, fit to print. */
  get labels(): string[] {
    return this.endpoints.map((endpoint) => endpoint.label);
  }

  /**
   * Checks every endpoint's chain id at once. Resolves as soon as one serves the pair's chain (the others finish in the
   * background); refuses when none does: CHAIN_ID_MISMATCH when every one serves another chain, else why none answered.
   */
  async verify(): Promise<void> {
    const checks = this.endpoints.map((endpoint) => this.check(endpoint));
    await new Promise<void>((resolve, reject) => {
      let pending = checks.length;
      for (const check of checks) {
        void check.then((result) => {
          if (result === "ok") resolve();
          else if (--pending === 0) reject(this.noUsableEndpoint());
        });
      }
    });
  }

  /** Sends one JSON-RPC request or batch, moving along the endpoints as they fail; throws the last failure when none answered. */
  async send(payload: Payload): Promise<Answer[]> {
    let last: Failure | undefined;
    let previous: Endpoint | undefined;
    // Whether an earlier attempt may have reached a node: a resent broadcast's refusal may then be its own echo.
    let resent = false;
    const timedOut = new Set<Endpoint>();
    for (let round = 0; round < ROUNDS; round++) {
      // The next endpoint is tried at once; the same ones again only after a backoff, and not one that timed out (the
      // request's time is spent): a 429 or a dropped keep-alive connection is often gone by then.
      const order = this.candidates().filter((endpoint) => !timedOut.has(endpoint));
      if (order.length === 0) break;
      if (round > 0) await wait(this.backoff());
      for (const endpoint of order) {
        if (previous !== undefined && previous !== endpoint) previous.failovers++;
        previous = endpoint;
        if (!endpoint.verified) {
          const check = await this.check(endpoint);
          if (check !== "ok") {
            // Another chain's node is no failure of the request: the last failure thrown, if all fail, is a real one.
            if (check !== "wrong-chain") {
              last = check;
              if (check.timedOut) timedOut.add(endpoint);
            }
            continue;
          }
        }
        const outcome = await this.post(endpoint, payload, this.options.requestTimeoutMs);
        if (outcome.ok) {
          this.succeeded(endpoint);
          return resent ? this.settleResent(endpoint, payload, outcome.answers) : outcome.answers;
        }
        resent = true;
        this.failed(endpoint, outcome.reason);
        if (outcome.timedOut) timedOut.add(endpoint);
        last = outcome;
      }
    }
    throw last?.error ?? this.noUsableEndpoint();
  }

  /** Where each endpoint stands, in the configured order. */
  statuses(): EndpointStatus[] {
    return this.endpoints.map((endpoint) => this.status(endpoint));
  }

  /**
   * Asks every endpoint (but those on another chain) for its latest block, each within `timeoutMs`; what they answer
   * counts as any request's outcome does (an endpoint in its cool-down that answers is back in use).
   */
  async probe(timeoutMs: number): Promise<EndpointProbe[]> {
    return Promise.all(
      this.endpoints.map(async (endpoint): Promise<EndpointProbe> => {
        if (endpoint.reportedChainId !== undefined && endpoint.reportedChainId !== this.chainId) return this.status(endpoint);
        if (!endpoint.verified && (await this.check(endpoint, timeoutMs)) !== "ok") return this.status(endpoint);
        const outcome = await this.post(endpoint, this.payload("eth_blockNumber"), timeoutMs);
        const answer = outcome.ok ? outcome.answers[0] : undefined;
        if (answer === undefined || !("result" in answer)) {
          this.failed(endpoint, outcome.ok ? "did not say its latest block" : outcome.reason);
          return this.status(endpoint);
        }
        this.succeeded(endpoint);
        return { ...this.status(endpoint), block: Number(BigInt(answer.result as string)) };
      }),
    );
  }

  /**
   * The endpoints a request tries, in order: those on the pair's chain whose circuit is closed or half-open; when every
   * circuit is open, all of them anyway (failing at once without asking would only lengthen the outage).
   */
  private candidates(): Endpoint[] {
    const now = this.now();
    const usable = this.endpoints.filter((endpoint) => endpoint.reportedChainId === undefined || endpoint.reportedChainId === this.chainId);
    const closed = usable.filter((endpoint) => endpoint.openUntil === undefined || endpoint.openUntil <= now);
    return closed.length > 0 ? closed : usable;
  }

  private backoff(): number {
    // Jitter: replicas that met the same failure do not all come back at once.
    return this.policy.backoffMs / 2 + Math.random() * (this.policy.backoffMs / 2);
  }

  /** The endpoint's chain id, asked once at a time; a failure to answer counts as a failed request. */
  private check(endpoint: Endpoint, timeoutMs = this.options.requestTimeoutMs): Promise<Check> {
    endpoint.checking ??= (async (): Promise<Check> => {
      let outcome: Attempt;
      try {
        outcome = await this.post(endpoint, this.payload("eth_chainId"), timeoutMs);
      } catch (error) {
        // An answer that is no JSON-RPC answer (HTTP 401 for a wrong key, say): the endpoint cannot be used.
        outcome = {
          ok: false,
          error,
          reason: `refused the chain id question (${(error as { shortMessage?: string }).shortMessage ?? "bad answer"})`,
          timedOut: false,
        };
      }
      if (!outcome.ok) {
        this.failed(endpoint, outcome.reason);
        return outcome;
      }
      let reported: number;
      try {
        reported = Number(BigInt((outcome.answers[0] as JsonRpcResult).result as string));
      } catch (error) {
        const failure: Failure = { ok: false, error, reason: "did not say its chain id", timedOut: false };
        this.failed(endpoint, failure.reason);
        return failure;
      }
      endpoint.reportedChainId = reported;
      endpoint.contacted = true;
      if (reported !== this.chainId) return "wrong-chain";
      endpoint.verified = true;
      this.succeeded(endpoint);
      return "ok";
    })().finally(() => (endpoint.checking = undefined));
    return endpoint.checking;
  }

  /** One HTTP request to one endpoint. Only an answer that is not JSON-RPC and not a failure to move on from (HTTP 401, 404) throws. */
  private async post(endpoint: Endpoint, payload: Payload, timeoutMs: number): Promise<Attempt> {
    let response: HttpAnswer;
    try {
      if (endpoint.target instanceof TypeError) throw endpoint.target;
      response = await httpPost(endpoint.target, Buffer.from(JSON.stringify(payload), "utf8"), this.options.headers ?? {}, timeoutMs);
    } catch (error) {
      return { ok: false, error, ...unreachableReason(error, timeoutMs) };
    }
    // A 429 or a 5xx moves on to the next endpoint; any other answer but a 2xx (401, 404: a key or a path wrong) throws.
    if (response.statusCode === 429 || response.statusCode >= 500) {
      return { ok: false, error: serverError(response), reason: `answered HTTP ${response.statusCode}`, timedOut: false };
    }
    if (response.statusCode < 200 || response.statusCode >= 300) throw serverError(response);
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString("utf8"));
    } catch (error) {
      return { ok: false, error, reason: "answered something other than JSON", timedOut: false };
    }
    return { ok: true, answers: (Array.isArray(body) ? body : [body]) as Answer[] };
  }

  /**
   * After an earlier attempt may have reached a node, a broadcast's refusal can be its own echo: "already known", or
   * "nonce too low" for a transaction this endpoint has (mined, or pooled from the earlier node). Those are successes.
   */
  private async settleResent(endpoint: Endpoint, payload: Payload, answers: Answer[]): Promise<Answer[]> {
    const payloads = Array.isArray(payload) ? payload : [payload];
    return Promise.all(
      answers.map(async (answer) => {
        if (!("error" in answer)) return answer;
        const sent = payloads.find((candidate) => candidate.id === answer.id);
        if (sent?.method !== "eth_sendRawTransaction" || !Array.isArray(sent.params) || typeof sent.params[0] !== "string") return answer;
        const hash = keccak256(sent.params[0]);
        const message = String(answer.error.message ?? "");
        const refusal = nodeRefusal(message);
        if (refusal === "already-known" || (refusal === "nonce-too-low" && (await this.knows(endpoint, hash)))) {
          return { id: answer.id, result: hash };
        }
        return answer;
      }),
    );
  }

  private async knows(endpoint: Endpoint, hash: string): Promise<boolean> {
    const outcome = await this.post(endpoint, this.payload("eth_getTransactionByHash", [hash]), this.options.requestTimeoutMs).catch(
      () => undefined,
    );
    const answer = outcome?.ok ? outcome.answers[0] : undefined;
    return answer !== undefined && "result" in answer && answer.result !== null;
  }

  private payload(method: string, params: unknown[] = []): JsonRpcPayload {
    return { jsonrpc: "2.0", id: this.nextId++, method, params };
  }

  private succeeded(endpoint: Endpoint): void {
    endpoint.contacted = true;
    endpoint.consecutiveFailures = 0;
    endpoint.openUntil = undefined;
    endpoint.lastFailure = undefined;
  }

  private failed(endpoint: Endpoint, reason: string): void {
    endpoint.contacted = true;
    endpoint.failures++;
    endpoint.consecutiveFailures++;
    endpoint.lastFailure = reason;
    // A half-open trial that fails (or a last-resort request to an open one) opens the circuit again at once.
    if (endpoint.openUntil !== undefined || endpoint.consecutiveFailures >= this.policy.failureThreshold) {
      endpoint.openUntil = this.now() + this.policy.cooldownMs;
      endpoint.verified = false;
    }
  }

  private status(endpoint: Endpoint): EndpointStatus {
    const now = this.now();
    const counts = { failures: endpoint.failures, failovers: endpoint.failovers };
    const base = { endpoint: endpoint.label, ...counts };
    if (endpoint.reportedChainId !== undefined && endpoint.reportedChainId !== this.chainId) {
      return { ...base, state: "wrong-chain", detail: `serves chain id ${endpoint.reportedChainId}, expected ${this.chainId}` };
    }
    if (endpoint.openUntil !== undefined) {
      const seconds = Math.max(0, Math.ceil((endpoint.openUntil - now) / 1000));
      return endpoint.openUntil > now
        ? { ...base, state: "down", detail: `${endpoint.lastFailure}; skipped for ${seconds} s more` }
        : { ...base, state: "half-open", detail: `${endpoint.lastFailure}; the next request tries it again` };
    }
    if (!endpoint.contacted) return { ...base, state: "unknown", detail: "not asked anything yet" };
    if (endpoint.consecutiveFailures > 0) return { ...base, state: "failing", detail: endpoint.lastFailure! };
    return { ...base, state: "up" };
  }

  private upstream(): string {
    return this.endpoints.length === 1
      ? `the ${this.pair} endpoint ${this.endpoints[0]!.label}`
      : `every ${this.pair} endpoint (${this.labels.join(", ")})`;
  }

  /** Why the pair has no endpoint to use. */
  private noUsableEndpoint(): TokenServiceError {
    const wrong = this.endpoints.filter((endpoint) => endpoint.reportedChainId !== undefined && endpoint.reportedChainId !== this.chainId);
    if (wrong.length === this.endpoints.length) {
      const first = wrong[0]!;
      const single = this.endpoints.length === 1;
      return new TokenServiceError(
        ErrorCode.CHAIN_ID_MISMATCH,
        single
          ? `the endpoint configured for ${this.pair} (${first.label}) serves chain id ${first.reportedChainId}, expected ${this.chainId}`
          : `no endpoint configured for ${this.pair} serves chain id ${this.chainId}: ${wrong.map((endpoint) => `${endpoint.label} serves chain id ${endpoint.reportedChainId}`).join(", ")}`,
        {
          field: "network",
          details: {
            expectedChainId: this.chainId,
            reportedChainId: first.reportedChainId,
            ...(single ? {} : { endpoints: Object.fromEntries(wrong.map((endpoint) => [endpoint.label, endpoint.reportedChainId])) }),
          },
        },
      );
    }
    const why = this.endpoints.map((endpoint) => `${endpoint.label} ${this.status(endpoint).detail ?? "up"}`).join("; ");
    const timedOut = this.endpoints.every((endpoint) => endpoint.lastFailure?.startsWith("not answering within") ?? false);
    return new TokenServiceError(
      timedOut ? ErrorCode.UPSTREAM_TIMEOUT : ErrorCode.UPSTREAM_UNAVAILABLE,
      `${this.upstream()} ${timedOut ? "did not answer in time" : "failed to answer"} (${why})`,
    );
  }
}
