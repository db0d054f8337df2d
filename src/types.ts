import type { ConfigurationVariable, ResolvedConfigurationVariable } from "hardhat/types/config";

export interface TokenServiceUserConfig {
  /**
   * Live JSON-RPC endpoints per chain and network, e.g. `{ ethereum: { sepolia: configVariable("SEPOLIA_RPC_URL") } }`;
   * a list (`[configVariable("SEPOLIA_RPC_URL"), "https://backup.example"]`) is tried in that order, failing over.
   */
  rpc?: Record<string, Record<string, string | ConfigurationVariable | Array<string | ConfigurationVariable>>>;
  /** Where simulated chains and the service database live; default `.token-service` in the project. */
  dataDir?: string;
  /** Seconds between blocks on the simulated chains of `serve`; 0 mines on send. Default 2. */
  blockTime?: number;
}

export interface TokenServiceConfig {
  /** Keyed "chain/network": one endpoint, or a list tried in order. */
  rpc: Record<string, ResolvedConfigurationVariable | ResolvedConfigurationVariable[]>;
  /**
   * The configuration variable behind each `rpc` entry that is one, keyed like `rpc`: named when it has no value. A list's
   * entries: the variable of each, undefined for a URL written out.
   */
  rpcVariables: Record<string, string | Array<string | undefined>>;
  dataDir: string;
  blockTime: number;
}
