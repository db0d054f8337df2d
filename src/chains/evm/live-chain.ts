import { FetchRequest, JsonRpcProvider, Network, type JsonRpcError, type JsonRpcPayload, type JsonRpcResult } from "ethers";

import type { EvmChain, EvmNetworkInfo, NodeCallObserver } from "./chain.js";
import { EndpointPool, type EndpointProbe, type EndpointStatus, type FailoverPolicy } from "./endpoint-pool.js";
import { redactEndpoint } from "./endpoint-names.js";
import { translateProviderError } from "./provider-errors.js";
import { HeadFollower } from "./follow/head-follower.js";

export { printableHost, redactEndpoint } from "./endpoint-names.js";

export interface LiveChainOptions {
  requestTimeoutMs: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
  onNodeCall?: NodeCallObserver;
  /** When an endpoint counts as down, and for how long (see EndpointPool). */
  failover?: Partial<FailoverPolicy>;
}

/**
 * ethers' JSON-RPC provider (request batching, error typing, everything the service calls) over the pair's endpoint
 * pool instead of one URL: each request or batch goes out through `EndpointPool.send`, which moves it along the
 * endpoints as they fail. Each request (a batch counts once) is reported to the observer, failovers included.
 */
class FailoverJsonRpcProvider extends JsonRpcProvider {
  constructor(
    private readonly pool: EndpointPool,
    network: Network,
    options: ConstructorParameters<typeof JsonRpcProvider>[2],
    private readonly observe?: (method: string, seconds: number, ok: boolean) => void,
  ) {
    // No URL of its own: every request goes through `_send` below, to the pool.
    super(undefined, network, options);
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const method = Array.isArray(payload) ? (payload.length === 1 ? payload[0]!.method : "batch") : payload.method;
    const started = performance.now();
    try {
      // Error answers too: ethers' provider reads each answer's `error` itself.
      const answers = (await this.pool.send(payload)) as Array<JsonRpcResult | JsonRpcError> as JsonRpcResult[];
      this.observe?.(method, (performance.now() - started) / 1000, true);
      return answers;
    } catch (error) {
      this.observe?.(method, (performance.now() - started) / 1000, false);
      throw error;
    }
  }
}

/** The chain id a node reports (`eth_chainId`), asked once. */
export async function askChainId(
  url: string,
  options: Pick<LiveChainOptions, "requestTimeoutMs" | "headers"> & { upstream: string },
): Promise<number> {
  const request = new FetchRequest(url);
  request.timeout = options.requestTimeoutMs;
  for (const [name, value] of Object.entries(options.headers ?? {})) request.setHeader(name, value);
  // A static network only stops ethers asking on its own: the one question is ours.
  const network = new Network("chain-id-check", 1);
  const provider = new JsonRpcProvider(request, network, { staticNetwork: network });
  try {
    return Number(BigInt((await provider.send("eth_chainId", [])) as string));
  } catch (error) {
    throw translateProviderError(error, options.upstream);
  } finally {
    provider.destroy();
  }
}

/** The most calls one JSON-RPC batch carries (providers cap batches, often at 100 or 1,000). */
const BATCH_LIMIT = 100;

/** A pair on a live network, through one JSON-RPC endpoint or several tried in order. */
export class LiveChain implements EvmChain {
  readonly simulated = false;
  readonly pollingIntervalMs = 1000;
  readonly endpoint: string;
  readonly provider: JsonRpcProvider;
  readonly follower: HeadFollower;
  private readonly pool: EndpointPool;
  private readonly observe: NodeCallObserver | undefined;
  /** "ethereum/sepolia". */
  private readonly pair: string;

  private constructor(
    readonly info: EvmNetworkInfo,
    urls: readonly string[],
    options: LiveChainOptions,
  ) {
    this.endpoint = urls.map(redactEndpoint).join(", ");
    const pair = `${info.chain}/${info.network}`;
    this.pair = pair;
    this.pool = new EndpointPool(pair, info.chainId, urls, {
      requestTimeoutMs: options.requestTimeoutMs,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.failover ? { policy: options.failover } : {}),
    });
    // A bare network, not ethers' built-in one for this chain id: that one may carry plugins that reach other hosts than
    // the configured node (for chain id 137, fee data from Polygon's gas station), which the operator did not configure.
    const network = new Network(`${info.chain}-${info.network}`, info.chainId);
    // Calls issued in the same tick travel together in one JSON-RPC batch. No response cache (ethers keeps
    // identical reads for 250 ms by default): a cached "pending" nonce would make back-to-back sends collide.
    const providerOptions = { staticNetwork: network, batchMaxCount: BATCH_LIMIT, batchStallTime: 5, cacheTimeout: -1 };
    const observe = options.onNodeCall;
    this.observe = observe;
    this.provider = new FailoverJsonRpcProvider(
      this.pool,
      network,
      providerOptions,
      observe === undefined ? undefined : (method, seconds, ok) => observe(pair, method, seconds, ok),
    );
    this.follower = new HeadFollower((calls) => this.requestAll(calls), { pollMs: this.pollingIntervalMs });
  }

  /**
   * Connects once one endpoint serves the pair's chain (the others are checked meanwhile, each before its first use);
   * refuses with CHAIN_ID_MISMATCH when every one serves another chain, or why none answered.
   */
  static async connect(info: EvmNetworkInfo, urls: string | readonly string[], options: LiveChainOptions): Promise<LiveChain> {
    const chain = new LiveChain(info, typeof urls === "string" ? [urls] : urls, options);
    try {
      await chain.pool.verify();
    } catch (error) {
      chain.provider.destroy();
      throw error;
    }
    return chain;
  }

  /**
   * Straight to the endpoint pool, past ethers' request queue: a batch's broadcasts go in nonce order, each group once
   * the node answered the one before, and each would otherwise wait for the queue's timer (`batchStallTime`) before it
   * leaves. Errors are typed as ethers types them.
   */
  async broadcast(signedTransaction: string): Promise<string> {
    const payload: JsonRpcPayload = { jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [signedTransaction] };
    const started = performance.now();
    const observe = (ok: boolean) => this.observe?.(this.pair, "eth_sendRawTransaction", (performance.now() - started) / 1000, ok);
    let answer: JsonRpcResult | JsonRpcError | undefined;
    try {
      [answer] = await this.pool.send(payload);
    } catch (error) {
      observe(false);
      throw error;
    }
    observe(true);
    if (answer === undefined) throw new Error("the node sent no answer to eth_sendRawTransaction");
    if ("error" in answer) throw this.provider.getRpcError(payload, answer);
    return answer.result as string;
  }

  /** Signed transactions in one JSON-RPC batch through the endpoint pool (see `EvmChain.broadcastBatch`). */
  async broadcastBatch(signedTransactions: string[]): Promise<Array<PromiseSettledResult<string>>> {
    return (await this.requestAll(signedTransactions.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })))) as Array<
      PromiseSettledResult<string>
    >;
  }

  /**
   * Several calls in one JSON-RPC batch through the endpoint pool, each settling as the node answered it (errors typed
   * as ethers types them). The batch is serialized once: ethers' request queue serializes a growing batch again at each
   * call it adds, which for a burst of deployments' estimates (5 KB of data each) costs more than the node's work.
   */
  async requestAll(calls: ReadonlyArray<{ method: string; params: unknown[] }>): Promise<Array<PromiseSettledResult<unknown>>> {
    const settled: Array<PromiseSettledResult<unknown>> = [];
    for (let first = 0; first < calls.length; first += BATCH_LIMIT) {
      const payloads = calls
        .slice(first, first + BATCH_LIMIT)
        .map(({ method, params }, index): JsonRpcPayload => ({ jsonrpc: "2.0", id: index + 1, method, params }));
      const started = performance.now();
      let answers: Array<JsonRpcResult | JsonRpcError>;
      try {
        answers = await this.pool.send(payloads.length === 1 ? payloads[0]! : payloads);
        this.observe?.(this.pair, payloads.length === 1 ? payloads[0]!.method : "batch", (performance.now() - started) / 1000, true);
      } catch (error) {
        this.observe?.(this.pair, payloads.length === 1 ? payloads[0]!.method : "batch", (performance.now() - started) / 1000, false);
        for (const _ of payloads) settled.push({ status: "rejected", reason: error });
        continue;
      }
      for (const payload of payloads) {
        const answer = answers.find((candidate) => candidate.id === payload.id);
        if (answer === undefined) settled.push({ status: "rejected", reason: new Error(`the node sent no answer to ${payload.method}`) });
        else if ("error" in answer) settled.push({ status: "rejected", reason: this.provider.getRpcError(payload, answer) });
        else settled.push({ status: "fulfilled", value: answer.result });
      }
    }
    return settled;
  }

  endpointStatuses(): EndpointStatus[] {
    return this.pool.statuses();
  }

  probeEndpoints(timeoutMs: number): Promise<EndpointProbe[]> {
    return this.pool.probe(timeoutMs);
  }

  async close(): Promise<void> {
    this.provider.destroy();
  }
}
