import { ErrorCode, TokenServiceError } from "./errors.js";

export type ChainKind = "evm" | "bitcoin";

export interface NetworkInfo {
  chain: ChainName;
  network: string;
  kind: ChainKind;
  /** EVM chain id; undefined for bitcoin. */
  chainId: number | undefined;
  nativeSymbol: string;
  nativeDecimals: number;
  note?: string;
}

interface ChainDefinition {
  kind: ChainKind;
  nativeSymbol: string;
  nativeDecimals: number;
  networks: Record<string, { chainId?: number; note?: string }>;
  /** Generic network names from the interface document, mapped to this chain's own. */
  aliases: Record<string, string>;
}

const CHAINS = {
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
  bitcoin: {
    kind: "bitcoin",
    nativeSymbol: "BTC",
    nativeDecimals: 8,
    networks: { mainnet: {}, testnet: {}, signet: {}, regtest: {} },
    aliases: {},
  },
} as const satisfies Record<string, ChainDefinition>;

export type ChainName = keyof typeof CHAINS;
export const CHAIN_NAMES = Object.keys(CHAINS) as ChainName[];
export const EVM_CHAIN_NAMES = CHAIN_NAMES.filter((name) => CHAINS[name].kind === "evm");

function definition(chain: ChainName): ChainDefinition {
  return CHAINS[chain];
}

export function isChainName(value: unknown): value is ChainName {
  return typeof value === "string" && Object.hasOwn(CHAINS, value);
}

export function parseChain(value: unknown, field = "chain"): ChainName {
  if (typeof value !== "string" || value === "") {
    throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `${field} is required; one of: ${CHAIN_NAMES.join(", ")}`, {
      field,
    });
  }
  if (!isChainName(value)) {
    throw new TokenServiceError(ErrorCode.UNSUPPORTED_CHAIN, `unknown chain "${value}"; one of: ${CHAIN_NAMES.join(", ")}`, {
      field,
      details: { allowed: CHAIN_NAMES },
    });
  }
  return value;
}

export function networkNames(chain: ChainName): string[] {
  return Object.keys(definition(chain).networks);
}

/** Resolves a (chain, network) pair, accepting the document's generic `testnet`. */
export function resolveNetwork(chainValue: unknown, networkValue: unknown): NetworkInfo {
  const chain = parseChain(chainValue);
  const def = definition(chain);
  const allowed = [...networkNames(chain), ...Object.keys(def.aliases)];
  if (typeof networkValue !== "string" || networkValue === "") {
    throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `network is required; for ${chain} one of: ${allowed.join(", ")}`, {
      field: "network",
    });
  }
  const network = Object.hasOwn(def.aliases, networkValue) ? def.aliases[networkValue]! : networkValue;
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
  };
}

export function allNetworks(): NetworkInfo[] {
  return CHAIN_NAMES.flatMap((chain) => networkNames(chain).map((network) => resolveNetwork(chain, network)));
}

export function requireEvm(info: NetworkInfo, operation: string): NetworkInfo & { chainId: number } {
  if (info.kind !== "evm" || info.chainId === undefined) {
    throw new TokenServiceError(
      ErrorCode.UNSUPPORTED_OPERATION,
      `${operation} is available on ${EVM_CHAIN_NAMES.join(" and ")}, not on ${info.chain}`,
      { field: "chain" },
    );
  }
  return info as NetworkInfo & { chainId: number };
}

/** The environment variable that points an EVM pair at a live JSON-RPC endpoint. */
export function rpcEnvironmentVariable(chain: string, network: string): string {
  return `TOKEN_SERVICE_RPC_${chain}_${network}`.toUpperCase();
}
