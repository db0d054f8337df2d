import { existsSync } from "node:fs";
import path from "node:path";

import { EnvironmentError, readFamilyVariable, readVariable } from "../../config/environment.js";
import { endpointList } from "../../config/variable-values.js";
import { BUILT_IN_CHAINS, rpcEnvironmentVariable, type ChainRegistry, type NetworkInfo } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import type { EndpointSource, EvmChain, EvmNetworkInfo, LazyEndpoint, NodeCallObserver, SimulatedChainFactory } from "./chain.js";
import type { EndpointStatus, FailoverPolicy } from "./endpoint-pool.js";
import { LiveChain, printableHost } from "./live-chain.js";
import type { CheckpointOutcome } from "./checkpointer.js";
import { SimulatedChain, type JournalReplay } from "./simulated-chain.js";

/**
 * What chains and the core use of a data directory and its one-writer lock. Declared here, below the store that keeps
 * it on disk (src/store/data-directory.ts implements it), so that neither imports the store.
 */
export interface DataDirectoryLock {
  readonly path: string;
  /** Takes the directory for this process; idempotent; throws DATA_DIR_IN_USE while another process holds it. */
  claim(): void;
  release(): void;
}

export interface EvmChainsOptions {
  /** The chains served; default the built-in ones. */
  chains?: ChainRegistry;
  /** Where simulated chains come from; without one, pairs with no endpoint are not served. */
  simulatedChainFactory?: SimulatedChainFactory;
  /** Endpoints keyed "chain/network" (from the Hardhat config, read on first use); environment variables fill the gaps. */
  rpcUrls?: Record<string, EndpointSource>;
  env?: NodeJS.ProcessEnv;
  blockTimeSeconds?: number;
  /** Simulated chains journal their state under `<dataDirectory>/chains` when set, claiming the directory first. */
  dataDirectory?: DataDirectoryLock;
  requestTimeoutMs?: number;
  /** Told of every call to a node, for metrics. */
  onNodeCall?: NodeCallObserver;
  /** false: a pair without an endpoint is not served (replicas must not each simulate a private chain). Default true. */
  simulatedChains?: boolean;
  /** Told when a simulated chain started from a journal that had lines it could not trust (set aside, not replayed). */
  onJournalLoss?(info: EvmNetworkInfo, replay: JournalReplay): Promise<void>;
  /** Simulated chains can be told to misbehave (src/chains/evm/faults.ts). Default false; live pairs never. */
  chainFaults?: boolean;
  /** Told how each checkpoint of a simulated chain went (see checkpointer.ts). */
  onCheckpoint?(info: EvmNetworkInfo, outcome: CheckpointOutcome): void;
  /** Told after a reorg fault replaced a simulated chain's blocks from `fromBlock` on. */
  onReorg?(info: EvmNetworkInfo, fromBlock: number): Promise<void>;
}

/**
 * Reads a lazy endpoint's URL. A configuration variable without a value is an error naming it, said of `subject`
 * ("ethereum/sepolia is live"), with how to set it.
 */
export async function readEndpoint(subject: string, source: LazyEndpoint, field = "network"): Promise<string> {
  try {
    return await source.get();
  } catch (error) {
    if (source.variable === undefined) throw error;
    const where = source.origin === undefined ? "" : ` (${source.origin})`;
    throw new TokenServiceError(
      ErrorCode.BACKEND_NOT_CONFIGURED,
      `${subject} through the configuration variable ${source.variable}${where}, which has no value: set it (export ${source.variable}=… or npx hardhat keystore set ${source.variable})`,
      { field, details: { variable: source.variable } },
    );
  }
}

/** Where one endpoint of a list is, fit to print: its host, or the variable that will give it. */
function endpointWhere(source: string | LazyEndpoint): string {
  if (typeof source === "string") return printableHost(source);
  return source.variable !== undefined ? `configuration variable ${source.variable}` : (source.host ?? "a configured endpoint");
}

/** Lazily opens one connection per EVM pair: live when an endpoint is configured, simulated otherwise. */
export class EvmChains {
  private readonly open = new Map<string, Promise<EvmChain>>();
  /** The open chains that connected, by pair: what /health and /metrics report on without waiting. */
  private readonly connected = new Map<string, EvmChain>();

  readonly chains: ChainRegistry;

  constructor(private readonly options: EvmChainsOptions) {
    this.chains = options.chains ?? BUILT_IN_CHAINS;
  }

  /** The pair's endpoints: as configured (`rpcUrls`), else from its environment variable; undefined when simulated. */
  private endpointSource(info: NetworkInfo): EndpointSource | undefined {
    const configured = this.options.rpcUrls?.[`${info.chain}/${info.network}`];
    if (configured && (!Array.isArray(configured) || configured.length > 0)) return configured;
    const variable = rpcEnvironmentVariable(info.chain, info.network);
    let url: string | undefined;
    try {
      url = readFamilyVariable(this.options.env ?? process.env, "rpc", variable);
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      // Set but unusable: the pair is not simulated in its stead; each use says which variable to fix.
      const refusal = new TokenServiceError(ErrorCode.BACKEND_NOT_CONFIGURED, error.message, { field: "network", details: { variable } });
      return { host: `misconfigured (fix ${variable})`, get: () => Promise.reject(refusal) };
    }
    if (!url) return undefined;
    // Several, comma-separated: tried in that order.
    const urls = endpointList(url);
    if (urls.length === 1) return { host: printableHost(url), origin: variable, get: async () => url };
    return urls.map((entry) => ({ host: printableHost(entry), origin: variable, get: async () => entry }));
  }

  /**
   * Where a live pair's nodes are, fit to print (each host, or the variable that will give it, and where they were
   * configured): "a.example, b.example via TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA"; undefined when simulated.
   */
  endpointLabel(info: NetworkInfo): string | undefined {
    const source = this.endpointSource(info);
    if (source === undefined) return undefined;
    const sources = typeof source === "string" || !Array.isArray(source) ? [source as string | LazyEndpoint] : source;
    const where = sources.map(endpointWhere).join(", ");
    const origins = new Set(sources.map((entry) => (typeof entry === "string" ? undefined : entry.origin)));
    const [origin] = origins;
    return origins.size === 1 && origin !== undefined ? `${where} via ${origin}` : where;
  }

  /** Whether simulated chains are started with faults on. */
  get faultsEnabled(): boolean {
    return this.options.chainFaults === true;
  }

  isSimulated(info: NetworkInfo): boolean {
    return this.endpointSource(info) === undefined;
  }

  /** The endpoints, reading configuration variables only now: a missing one fails this pair alone, naming it. */
  private async endpointUrls(info: NetworkInfo, source: EndpointSource): Promise<string[]> {
    const sources = typeof source === "string" || !Array.isArray(source) ? [source as string | LazyEndpoint] : source;
    return Promise.all(
      sources.map((entry) => (typeof entry === "string" ? entry : readEndpoint(`${info.chain}/${info.network} is live`, entry))),
    );
  }

  /** When an endpoint counts as down and for how long, from the environment; a bad value fails the live pairs, naming it. */
  private failoverPolicy(): Partial<FailoverPolicy> {
    const env = this.options.env ?? process.env;
    try {
      return {
        failureThreshold: readVariable(env, "TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD"),
        cooldownMs: readVariable(env, "TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS"),
      };
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      throw new TokenServiceError(ErrorCode.BACKEND_NOT_CONFIGURED, error.message, {
        field: "network",
        details: { variable: error.variable },
      });
    }
  }

  /** A pair this process would simulate in memory (no endpoint, simulated chains on). */
  simulatesPrivately(info: NetworkInfo): boolean {
    return this.isSimulated(info) && this.options.simulatedChains !== false && this.options.simulatedChainFactory !== undefined;
  }

  get(info: EvmNetworkInfo): Promise<EvmChain> {
    const key = `${info.chain}/${info.network}`;
    let chain = this.open.get(key);
    if (chain === undefined) {
      chain = this.connect(info);
      this.open.set(key, chain);
      chain.then(
        (connected) => this.connected.set(key, connected),
        // A failed connection is not cached: the next call tries again.
        () => this.open.delete(key),
      );
    }
    return chain;
  }

  private connect(info: EvmNetworkInfo): Promise<EvmChain> {
    const source = this.endpointSource(info);
    if (source !== undefined) {
      // Headers come with a Hardhat network's url, which is always one endpoint.
      const headers = typeof source !== "string" && !Array.isArray(source) ? (source as LazyEndpoint).headers : undefined;
      return this.endpointUrls(info, source).then((urls) =>
        LiveChain.connect(info, urls, {
          requestTimeoutMs: this.options.requestTimeoutMs ?? 15_000,
          failover: this.failoverPolicy(),
          ...(headers ? { headers } : {}),
          ...(this.options.onNodeCall ? { onNodeCall: this.options.onNodeCall } : {}),
        }),
      );
    }
    const factory = this.options.simulatedChainFactory;
    if (this.options.simulatedChains === false || factory === undefined) {
      return Promise.reject(
        new TokenServiceError(
          ErrorCode.BACKEND_NOT_CONFIGURED,
          `${info.chain}/${info.network} is not served: simulated chains are off; set ${rpcEnvironmentVariable(info.chain, info.network)} to its JSON-RPC endpoint`,
          { field: "network" },
        ),
      );
    }
    // A journal has one writer: two processes appending to it would reuse each other's nonces.
    this.options.dataDirectory?.claim();
    const journalPath = this.journalPath(info);
    const onReorg = this.options.onReorg;
    let checkpointEntries: number;
    try {
      checkpointEntries = readVariable(this.options.env ?? process.env, "TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES");
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      return Promise.reject(
        new TokenServiceError(ErrorCode.BACKEND_NOT_CONFIGURED, error.message, { field: "network", details: { variable: error.variable } }),
      );
    }
    const onCheckpoint = this.options.onCheckpoint;
    return SimulatedChain.start(factory, info, {
      ...(this.options.onNodeCall ? { onNodeCall: this.options.onNodeCall } : {}),
      checkpointEntries,
      ...(onCheckpoint ? { onCheckpoint: (outcome: CheckpointOutcome) => onCheckpoint(info, outcome) } : {}),
      blockTimeSeconds: this.options.blockTimeSeconds ?? 0,
      ...(journalPath !== undefined ? { journalPath } : {}),
      ...(this.options.chainFaults
        ? {
            faults: {
              requestTimeoutMs: this.options.requestTimeoutMs ?? 15_000,
              ...(onReorg ? { onReorg: (fromBlock: number) => onReorg(info, fromBlock) } : {}),
            },
          }
        : {}),
    }).then(async (chain) => {
      const replay = chain.replay;
      if (replay !== undefined && (replay.tornBytes > 0 || replay.rejectedLines > 0)) await this.options.onJournalLoss?.(info, replay);
      return chain;
    });
  }

  private journalPath(info: EvmNetworkInfo): string | undefined {
    const directory = this.options.dataDirectory;
    return directory === undefined ? undefined : path.join(directory.path, "chains", `${info.chain}-${info.network}.jsonl`);
  }

  /** Starts every simulated chain that has a journal (state to resume), and says what each replay took. */
  async openJournaled(): Promise<JournalReplay[]> {
    const journaled = this.describe().filter((info) => this.simulatesPrivately(info) && existsSync(this.journalPath(info) ?? ""));
    const chains = await Promise.all(journaled.map((info) => this.get(info)));
    return chains.flatMap((chain) => (chain instanceof SimulatedChain && chain.replay ? [chain.replay] : []));
  }

  /** The chains open now, by pair (what the service's `retained()` looks into). */
  openChains(): Array<[pair: string, chain: EvmChain]> {
    return [...this.connected];
  }

  /** Each connected live pair's endpoints with their states, in the order requests try them. */
  endpointStatuses(): Array<{ pair: string; endpoints: EndpointStatus[] }> {
    return [...this.connected].flatMap(([pair, chain]) =>
      chain.endpointStatuses === undefined ? [] : [{ pair, endpoints: chain.endpointStatuses() }],
    );
  }

  async close(): Promise<void> {
    const chains = await Promise.allSettled(this.open.values());
    this.open.clear();
    this.connected.clear();
    await Promise.all(chains.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)));
  }

  /** Every EVM pair with whether it is simulated, without opening any connection. */
  describe(): Array<EvmNetworkInfo & { simulated: boolean }> {
    return this.chains
      .all()
      .filter((info): info is EvmNetworkInfo => info.kind === "evm")
      .map((info) => ({ ...info, simulated: this.isSimulated(info) }));
  }
}
