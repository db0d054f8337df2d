import type { ConfigurationVariable, ResolvedConfigurationVariable } from "hardhat/types/config";

export interface TokenServiceUserConfig {
  /** Live JSON-RPC endpoints per chain and network, e.g. `{ ethereum: { sepolia: configVariable("SEPOLIA_RPC_URL") } }`. */
  rpc?: Record<string, Record<string, string | ConfigurationVariable>>;
  /** Where simulated chains and the service database live; default `.token-service` in the project. */
  dataDir?: string;
  /** Seconds between blocks on the simulated chains of `serve`; 0 mines on send. Default 2. */
  blockTime?: number;
}

export interface TokenServiceConfig {
  rpc: Record<string, ResolvedConfigurationVariable>;
  /** The configuration variable behind each `rpc` entry that is one, keyed like `rpc`: named when it has no value. */
  rpcVariables: Record<string, string>;
  dataDir: string;
  blockTime: number;
}
