import type { ConfigurationVariable, ResolvedConfigurationVariable } from "hardhat/types/config";

import type { ChainDefinition, Rollup } from "./domain/chains.js";

/** A network of a chain declared in `tokenService.chains`. */
export interface TokenServiceNetworkUserConfig {
  chainId: number;
  /** Its live JSON-RPC endpoint; left out, the pair is simulated (unless `TOKEN_SERVICE_RPC_*` or a Hardhat network gives one). */
  rpc?: string | ConfigurationVariable;
  note?: string;
}

/** An EVM chain the service does not build in, e.g. `linea: { nativeSymbol: "ETH", networks: { mainnet: { chainId: 59144 } } }`. */
export interface TokenServiceChainUserConfig {
  nativeSymbol: string;
  /** Default 18. */
  nativeDecimals?: number;
  /** `op-stack`: the L1 data fee counts in the funds check; `arbitrum`: informative (its node's gas estimate covers L1). */
  rollup?: Rollup;
  networks: Record<string, TokenServiceNetworkUserConfig>;
}

export interface TokenServiceUserConfig {
  /**
   * Live JSON-RPC endpoints per chain and network, e.g. `{ ethereum: { sepolia: configVariable("SEPOLIA_RPC_URL") } }`;
   * a list (`[configVariable("SEPOLIA_RPC_URL"), "https://backup.example"]`) is tried in that order, failing over.
   */
  rpc?: Record<string, Record<string, string | ConfigurationVariable | Array<string | ConfigurationVariable>>>;
  /** EVM chains besides the built-in ones, by name. */
  chains?: Record<string, TokenServiceChainUserConfig>;
  /** Where simulated chains and the service database live; default `.token-service` in the project. */
  dataDir?: string;
  /** Seconds between blocks on the simulated chains of `serve`; 0 mines on send. Default 2. */
  blockTime?: number;
  /**
   * Fee ceilings in gwei per chain and network, e.g. `{ ethereum: { mainnet: 40 } }`: a send that would pay more per gas
   * is refused (FEE_CAP_EXCEEDED), and a stuck transaction's replacements climb up to it.
   */
  feeCaps?: Record<string, Record<string, number | string>>;
  /** Blocks a pending transaction waits before it is replaced with higher fees, per chain and network. */
  replaceAfterBlocks?: Record<string, Record<string, number>>;
}

export interface TokenServiceConfig {
  /** Keyed "chain/network": one endpoint, or a list tried in order. */
  rpc: Record<string, ResolvedConfigurationVariable | ResolvedConfigurationVariable[]>;
  /**
   * The configuration variable behind each `rpc` entry that is one, keyed like `rpc`: named when it has no value. A list's
   * entries: the variable of each, undefined for a URL written out.
   */
  rpcVariables: Record<string, string | Array<string | undefined>>;
  /** The chains of `tokenService.chains`, checked. */
  chains: Record<string, ChainDefinition>;
  dataDir: string;
  blockTime: number;
  /** Fee ceilings in gwei (as written), keyed "chain/network". */
  feeCaps: Record<string, string>;
  /** Replace-after blocks, keyed "chain/network". */
  replaceAfterBlocks: Record<string, number>;
}
