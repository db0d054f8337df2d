import { FetchRequest, JsonRpcProvider, Network } from "ethers";

import { ErrorCode, TokenServiceError } from "../errors.js";
import type { EvmChain, EvmNetworkInfo } from "./chain.js";
import { translateProviderError } from "./provider-errors.js";

export interface LiveChainOptions {
  requestTimeoutMs: number;
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
    const request = new FetchRequest(url);
    request.timeout = options.requestTimeoutMs;
    const network = Network.from(info.chainId);
    // Calls issued in the same tick travel together in one JSON-RPC batch. No response cache (ethers keeps
    // identical reads for 250 ms by default): a cached "pending" nonce would make back-to-back sends collide.
    this.provider = new JsonRpcProvider(request, network, { staticNetwork: network, batchMaxCount: 100, batchStallTime: 5, cacheTimeout: -1 });
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
