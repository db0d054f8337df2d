import { FetchRequest, JsonRpcProvider, Network, type JsonRpcPayload, type JsonRpcResult } from "ethers";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import type { EvmChain, EvmNetworkInfo, NodeCallObserver } from "./chain.js";
import { translateProviderError } from "./provider-errors.js";

export interface LiveChainOptions {
  requestTimeoutMs: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
  onNodeCall?: NodeCallObserver;
}

/** A JSON-RPC provider that reports each request (a batch counts once) to an observer. */
class ObservedJsonRpcProvider extends JsonRpcProvider {
  constructor(
    request: FetchRequest,
    network: Network,
    options: ConstructorParameters<typeof JsonRpcProvider>[2],
    private readonly observe: (method: string, seconds: number, ok: boolean) => void,
  ) {
    super(request, network, options);
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const method = Array.isArray(payload) ? (payload.length === 1 ? payload[0]!.method : "batch") : payload.method;
    const started = performance.now();
    try {
      const result = await super._send(payload);
      this.observe(method, (performance.now() - started) / 1000, true);
      return result;
    } catch (error) {
      this.observe(method, (performance.now() - started) / 1000, false);
      throw error;
    }
  }
}

/** The host of an endpoint URL, fit to print. */
export function printableHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return redactEndpoint(url);
  }
}

/** Credentials in an endpoint URL (user:pass@ or an API key in the path) are never printed. */
export function redactEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? "/…" : ""}`;
  } catch {
    return "(invalid URL)";
  }
}

function nodeRequest(url: string, options: Pick<LiveChainOptions, "requestTimeoutMs" | "headers">): FetchRequest {
  const request = new FetchRequest(url);
  request.timeout = options.requestTimeoutMs;
  for (const [name, value] of Object.entries(options.headers ?? {})) request.setHeader(name, value);
  return request;
}

/** The chain id a node reports (`eth_chainId`), asked once. */
export async function askChainId(
  url: string,
  options: Pick<LiveChainOptions, "requestTimeoutMs" | "headers"> & { upstream: string },
): Promise<number> {
  const request = nodeRequest(url, options);
  // A static network only stops ethers asking on its own: the one question is ours.
  const network = Network.from(1);
  const provider = new JsonRpcProvider(request, network, { staticNetwork: network });
  try {
    return Number(BigInt((await provider.send("eth_chainId", [])) as string));
  } catch (error) {
    throw translateProviderError(error, options.upstream);
  } finally {
    provider.destroy();
  }
}

export class LiveChain implements EvmChain {
  readonly simulated = false;
  readonly pollingIntervalMs = 1000;
  readonly endpoint: string;
  readonly provider: JsonRpcProvider;

  private constructor(
    readonly info: EvmNetworkInfo,
    url: string,
    options: LiveChainOptions,
  ) {
    this.endpoint = redactEndpoint(url);
    const request = nodeRequest(url, options);
    // A bare network, not ethers' built-in one for this chain id: that one may carry plugins that reach other hosts than
    // the configured node (for chain id 137, fee data from Polygon's gas station), which the operator did not configure.
    const network = new Network(`${info.chain}-${info.network}`, info.chainId);
    // Calls issued in the same tick travel together in one JSON-RPC batch. No response cache (ethers keeps
    // identical reads for 250 ms by default): a cached "pending" nonce would make back-to-back sends collide.
    const providerOptions = { staticNetwork: network, batchMaxCount: 100, batchStallTime: 5, cacheTimeout: -1 };
    const observe = options.onNodeCall;
    const pair = `${info.chain}/${info.network}`;
    this.provider =
      observe === undefined
        ? new JsonRpcProvider(request, network, providerOptions)
        : new ObservedJsonRpcProvider(request, network, providerOptions, (method, seconds, ok) => observe(pair, method, seconds, ok));
  }

  /** Connects and refuses an endpoint that serves another chain than the pair's. */
  static async connect(info: EvmNetworkInfo, url: string, options: LiveChainOptions): Promise<LiveChain> {
    const chain = new LiveChain(info, url, options);
    let reported: bigint;
    try {
      reported = BigInt((await chain.provider.send("eth_chainId", [])) as string);
    } catch (error) {
      chain.provider.destroy();
      throw translateProviderError(error, `the ${info.chain}/${info.network} endpoint ${chain.endpoint}`);
    }
    if (reported !== BigInt(info.chainId)) {
      chain.provider.destroy();
      throw new TokenServiceError(
        ErrorCode.CHAIN_ID_MISMATCH,
        `the endpoint configured for ${info.chain}/${info.network} (${chain.endpoint}) serves chain id ${reported}, expected ${info.chainId}`,
        { field: "network", details: { expectedChainId: info.chainId, reportedChainId: Number(reported) } },
      );
    }
    return chain;
  }

  async broadcast(signedTransaction: string): Promise<string> {
    return (await this.provider.send("eth_sendRawTransaction", [signedTransaction])) as string;
  }

  async close(): Promise<void> {
    this.provider.destroy();
  }
}
