import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { allNetworks, rpcEnvironmentVariable, type NetworkInfo } from "../chains.js";
import type { EvmChain, EvmNetworkInfo } from "./chain.js";
import { LiveChain } from "./live-chain.js";
import { SimulatedChain } from "./simulated-chain.js";

export interface EvmChainsOptions {
  hre: HardhatRuntimeEnvironment;
  /** Endpoints keyed "chain/network" (from the Hardhat config); environment variables fill the gaps. */
  rpcUrls?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  blockTimeSeconds?: number;
  /** Simulated chains journal their state under `<dataDir>/chains` when set. */
  dataDir?: string;
  requestTimeoutMs?: number;
}

/** Lazily opens one connection per EVM pair: live when an endpoint is configured, simulated otherwise. */
export class EvmChains {
  private readonly open = new Map<string, Promise<EvmChain>>();

  constructor(private readonly options: EvmChainsOptions) {}

  endpointFor(info: NetworkInfo): string | undefined {
    const key = `${info.chain}/${info.network}`;
    const env = this.options.env ?? process.env;
    return this.options.rpcUrls?.[key] || env[rpcEnvironmentVariable(info.chain, info.network)] || undefined;
  }

  isSimulated(info: NetworkInfo): boolean {
    return this.endpointFor(info) === undefined;
  }

  get(info: EvmNetworkInfo): Promise<EvmChain> {
    const key = `${info.chain}/${info.network}`;
    let chain = this.open.get(key);
    if (chain === undefined) {
      chain = this.connect(info);
      this.open.set(key, chain);
      // A failed connection is not cached: the next call tries again.
      chain.catch(() => this.open.delete(key));
    }
    return chain;
  }

  private connect(info: EvmNetworkInfo): Promise<EvmChain> {
    const url = this.endpointFor(info);
    if (url !== undefined) {
      return LiveChain.connect(info, url, { requestTimeoutMs: this.options.requestTimeoutMs ?? 15_000 });
    }
    const journalPath =
      this.options.dataDir === undefined ? undefined : path.join(this.options.dataDir, "chains", `${info.chain}-${info.network}.jsonl`);
    return SimulatedChain.start(this.options.hre, info, {
      blockTimeSeconds: this.options.blockTimeSeconds ?? 0,
      ...(journalPath !== undefined ? { journalPath } : {}),
    });
  }

  async close(): Promise<void> {
    const chains = await Promise.allSettled(this.open.values());
    this.open.clear();
    await Promise.all(chains.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)));
  }

  /** Every EVM pair with whether it is simulated, without opening any connection. */
  describe(): Array<EvmNetworkInfo & { simulated: boolean }> {
    return allNetworks()
      .filter((info): info is EvmNetworkInfo => info.kind === "evm")
      .map((info) => ({ ...info, simulated: this.isSimulated(info) }));
  }
}
