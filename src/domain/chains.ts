import { ErrorCode, TokenServiceError } from "./errors.js";

export type ChainKind = "evm" | "bitcoin";

/**
 * The rollup family of an EVM chain, where it changes what a transaction costs: an OP Stack chain also charges an L1
 * data fee (read from its GasPriceOracle predeploy), which the funds check counts; an Arbitrum chain's L1 cost is in
 * the gas its node estimates, so nothing more is asked.
 */
export type Rollup = "op-stack" | "arbitrum";
export const ROLLUPS: readonly Rollup[] = ["op-stack", "arbitrum"];

export interface NetworkInfo {
  chain: string;
  network: string;
  kind: ChainKind;
  /** EVM chain id; undefined for bitcoin. */
  chainId: number | undefined;
  nativeSymbol: string;
  nativeDecimals: number;
  note?: string;
  rollup?: Rollup;
  /** Where a chain that is not built in was declared: `tokenService.chains` or `TOKEN_SERVICE_CHAINS`. */
  declaredIn?: string;
}

export interface NetworkDefinition {
  chainId?: number;
  note?: string;
}

/** One chain: its currency and its networks. The built-in ones are below; others are declared in configuration. */
export interface ChainDefinition {
  kind: ChainKind;
  nativeSymbol: string;
  nativeDecimals: number;
  networks: Readonly<Record<string, NetworkDefinition>>;
  /** Generic network names from the interface document, mapped to this chain's own. */
  aliases?: Readonly<Record<string, string>>;
  rollup?: Rollup;
  declaredIn?: string;
}

const BUILT_IN = {
  ethereum: {
    kind: "evm",
    nativeSymbol: "ETH",
    nativeDecimals: 18,
    networks: {
      mainnet: { chainId: 1 },
      sepolia: { chainId: 11155111 },
      holesky: { chainId: 17000 },
      hoodi: { chainId: 560048 },
      rinkeby: {
        chainId: 4,
        note: "Rinkeby shut down in 2023; kept for the interface document's flows (simulated unless you configure an endpoint).",
      },
    },
    aliases: { testnet: "sepolia" },
  },
  binance_smart_chain: {
    kind: "evm",
    nativeSymbol: "BNB",
    nativeDecimals: 18,
    networks: { mainnet: { chainId: 56 }, testnet: { chainId: 97 } },
    aliases: {},
  },
  base: {
    kind: "evm",
    nativeSymbol: "ETH",
    nativeDecimals: 18,
    networks: { mainnet: { chainId: 8453 }, sepolia: { chainId: 84532 } },
    aliases: { testnet: "sepolia" },
    rollup: "op-stack",
  },
  arbitrum: {
    kind: "evm",
    nativeSymbol: "ETH",
    nativeDecimals: 18,
    networks: { mainnet: { chainId: 42161, note: "Arbitrum One." }, sepolia: { chainId: 421614 } },
    aliases: { testnet: "sepolia" },
    rollup: "arbitrum",
  },
  optimism: {
    kind: "evm",
    nativeSymbol: "ETH",
    nativeDecimals: 18,
    networks: { mainnet: { chainId: 10 }, sepolia: { chainId: 11155420 } },
    aliases: { testnet: "sepolia" },
    rollup: "op-stack",
  },
  polygon: {
    kind: "evm",
    nativeSymbol: "POL",
    nativeDecimals: 18,
    networks: { mainnet: { chainId: 137, note: "Polygon PoS." }, amoy: { chainId: 80002 } },
    aliases: { testnet: "amoy" },
  },
  avalanche: {
    kind: "evm",
    nativeSymbol: "AVAX",
    nativeDecimals: 18,
    networks: { mainnet: { chainId: 43114, note: "The C-Chain." }, fuji: { chainId: 43113, note: "The Fuji C-Chain." } },
    aliases: { testnet: "fuji" },
  },
  bitcoin: {
    kind: "bitcoin",
    nativeSymbol: "BTC",
    nativeDecimals: 8,
    networks: { mainnet: {}, testnet: {}, signet: {}, regtest: {} },
    aliases: {},
  },
} as const satisfies Record<string, ChainDefinition>;

export type BuiltInChainName = keyof typeof BUILT_IN;

/** About how often each built-in EVM chain makes a block, in seconds: what a default counted in blocks is measured by. */
const BLOCK_SECONDS: Readonly<Record<string, number>> = {
  ethereum: 12,
  binance_smart_chain: 0.75,
  base: 2,
  arbitrum: 0.25,
  optimism: 2,
  polygon: 2,
  avalanche: 2,
};

/** How long a pending transaction waits for inclusion before the service replaces it with higher fees: three Ethereum slots. */
export const REPLACE_AFTER_SECONDS = 36;
/** The same wait on a declared chain, whose block time the service does not know: set its variable to fit. */
export const DECLARED_CHAIN_REPLACE_AFTER_BLOCKS = 10;

/**
 * The blocks a pending transaction of `chain` waits for inclusion before it is replaced, by default: about
 * REPLACE_AFTER_SECONDS of its blocks, at least 3 (`TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_<CHAIN>_<NETWORK>` overrides it).
 */
export function defaultReplaceAfterBlocks(chain: string): number {
  const seconds = BLOCK_SECONDS[chain];
  return seconds === undefined ? DECLARED_CHAIN_REPLACE_AFTER_BLOCKS : Math.max(3, Math.ceil(REPLACE_AFTER_SECONDS / seconds));
}

/** The environment variable that sets a pair's fee ceiling, in gwei. */
export function feeCapEnvironmentVariable(chain: string, network: string): string {
  return `TOKEN_SERVICE_FEE_CAP_${chain}_${network}`.toUpperCase();
}

/** The environment variable that sets how many blocks a pair's pending transaction waits before it is replaced. */
export function replaceAfterBlocksEnvironmentVariable(chain: string, network: string): string {
  return `TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_${chain}_${network}`.toUpperCase();
}

/** The environment variable that points an EVM pair at a live JSON-RPC endpoint. */
export function rpcEnvironmentVariable(chain: string, network: string): string {
  return `TOKEN_SERVICE_RPC_${chain}_${network}`.toUpperCase();
}

/**
 * The chains and networks one service serves: the built-in ones, and those declared in its configuration. Every door
 * resolves a request's (chain, network) through the service's registry, so a declared chain is known everywhere.
 */
export class ChainRegistry {
  /** Every chain's name, the built-in ones first. */
  readonly names: readonly string[];
  readonly evmNames: readonly string[];
  private readonly chains: ReadonlyMap<string, ChainDefinition>;

  constructor(chains: Readonly<Record<string, ChainDefinition>>) {
    this.chains = new Map(Object.entries(chains));
    this.names = [...this.chains.keys()];
    this.evmNames = this.names.filter((name) => this.chains.get(name)!.kind === "evm");
    // Each EVM pair is found by its chain id (a Hardhat network's chainId, a node's answer): two would be ambiguous.
    const byChainId = new Map<number, string>();
    for (const info of this.all()) {
      if (info.chainId === undefined) continue;
      const taken = byChainId.get(info.chainId);
      if (taken !== undefined) throw new Error(`chain id ${info.chainId} is both ${taken}'s and ${info.chain}/${info.network}'s`);
      byChainId.set(info.chainId, `${info.chain}/${info.network}`);
    }
  }

  /** The built-in chains and `declared` ones (names the built-in ones do not take; checked by src/config/chain-declarations.ts). */
  withDeclared(declared: Readonly<Record<string, ChainDefinition>>): ChainRegistry {
    const clash = Object.keys(declared).find((name) => Object.hasOwn(BUILT_IN, name));
    if (clash !== undefined) throw new Error(`${clash} is a built-in chain`);
    return Object.keys(declared).length === 0 ? this : new ChainRegistry({ ...Object.fromEntries(this.chains), ...declared });
  }

  isChain(value: unknown): boolean {
    return typeof value === "string" && this.chains.has(value);
  }

  isBuiltIn(chain: string): boolean {
    return Object.hasOwn(BUILT_IN, chain);
  }

  /** The chains declared in configuration, by name. */
  declared(): Record<string, ChainDefinition> {
    return Object.fromEntries([...this.chains].filter(([name]) => !this.isBuiltIn(name)));
  }

  parseChain(value: unknown, field = "chain"): string {
    if (typeof value !== "string" || value === "") {
      throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `${field} is required; one of: ${this.names.join(", ")}`, { field });
    }
    if (!this.isChain(value)) {
      throw new TokenServiceError(ErrorCode.UNSUPPORTED_CHAIN, `unknown chain "${value}"; one of: ${this.names.join(", ")}`, {
        field,
        details: { allowed: [...this.names] },
      });
    }
    return value;
  }

  networkNames(chain: string): string[] {
    return Object.keys(this.chains.get(chain)?.networks ?? {});
  }

  /** A chain's generic network names (`testnet`) and the networks they stand for. */
  aliases(chain: string): Readonly<Record<string, string>> {
    return this.chains.get(chain)?.aliases ?? {};
  }

  /** Resolves a (chain, network) pair, accepting the document's generic `testnet`. */
  resolve(chainValue: unknown, networkValue: unknown): NetworkInfo {
    const chain = this.parseChain(chainValue);
    const def = this.chains.get(chain)!;
    const aliases = def.aliases ?? {};
    const allowed = [...this.networkNames(chain), ...Object.keys(aliases)];
    if (typeof networkValue !== "string" || networkValue === "") {
      throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `network is required; for ${chain} one of: ${allowed.join(", ")}`, {
        field: "network",
      });
    }
    const network = Object.hasOwn(aliases, networkValue) ? aliases[networkValue]! : networkValue;
    if (!Object.hasOwn(def.networks, network)) {
      throw new TokenServiceError(
        ErrorCode.UNSUPPORTED_NETWORK,
        `unknown network "${networkValue}" for ${chain}; one of: ${allowed.join(", ")}`,
        { field: "network", details: { allowed } },
      );
    }
    const entry = def.networks[network]!;
    return {
      chain,
      network,
      kind: def.kind,
      chainId: entry.chainId,
      nativeSymbol: def.nativeSymbol,
      nativeDecimals: def.nativeDecimals,
      ...(entry.note !== undefined ? { note: entry.note } : {}),
      ...(def.rollup !== undefined ? { rollup: def.rollup } : {}),
      ...(def.declaredIn !== undefined ? { declaredIn: def.declaredIn } : {}),
    };
  }

  /** Every pair, chain by chain. */
  all(): NetworkInfo[] {
    return this.names.flatMap((chain) => this.networkNames(chain).map((network) => this.resolve(chain, network)));
  }

  /** The EVM pair with this chain id, if any. */
  pairOfChainId(chainId: number): (NetworkInfo & { chainId: number }) | undefined {
    return this.all().find((info): info is NetworkInfo & { chainId: number } => info.kind === "evm" && info.chainId === chainId);
  }
}

/** The chains every service knows without configuration. */
export const BUILT_IN_CHAINS = new ChainRegistry(BUILT_IN);

export const CHAIN_NAMES: readonly string[] = BUILT_IN_CHAINS.names;
export const EVM_CHAIN_NAMES: readonly string[] = BUILT_IN_CHAINS.evmNames;

export function isChainName(value: unknown): value is BuiltInChainName {
  return BUILT_IN_CHAINS.isChain(value);
}

export function parseChain(value: unknown, field = "chain"): string {
  return BUILT_IN_CHAINS.parseChain(value, field);
}

export function networkNames(chain: string): string[] {
  return BUILT_IN_CHAINS.networkNames(chain);
}

/** Resolves a built-in (chain, network) pair; a service resolves through its own registry (`service.chains`). */
export function resolveNetwork(chainValue: unknown, networkValue: unknown): NetworkInfo {
  return BUILT_IN_CHAINS.resolve(chainValue, networkValue);
}

/** Every built-in pair. */
export function allNetworks(): NetworkInfo[] {
  return BUILT_IN_CHAINS.all();
}

export function requireEvm(info: NetworkInfo, operation: string): NetworkInfo & { chainId: number } {
  if (info.kind !== "evm" || info.chainId === undefined) {
    throw new TokenServiceError(ErrorCode.UNSUPPORTED_OPERATION, `${operation} is available on EVM chains, not on ${info.chain}`, {
      field: "chain",
    });
  }
  return info as NetworkInfo & { chainId: number };
}
