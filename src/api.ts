import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { bitcoinBackendsFromEnv } from "./bitcoin/backends.js";
import { hardhatSimulatedChains } from "./internal/simulated-chains.js";
import { TokenService, type TokenServiceOptions } from "./service.js";

export type CreateTokenServiceOptions = Partial<TokenServiceOptions> & {
  /** A Hardhat runtime with this plugin; one is created when omitted. */
  hre?: HardhatRuntimeEnvironment;
  /** Keep simulated chains in `hre.config.tokenService.dataDir` (as the tasks and `serve` do). Default false: in memory. */
  persistSimulatedChains?: boolean;
};

/** Resolves the live endpoints configured in `tokenService.rpc` (configuration variables included). */
export async function configuredRpcUrls(hre: HardhatRuntimeEnvironment): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(hre.config.tokenService?.rpc ?? {}).map(async ([pair, variable]) => [pair, await variable.get()] as const),
  );
  return Object.fromEntries(entries);
}

/** The programmatic front door: the same core the tasks and the HTTP service use. */
export async function createTokenService(options: CreateTokenServiceOptions = {}): Promise<TokenService> {
  let hre = options.hre;
  if (hre === undefined) {
    const [{ createHardhatRuntimeEnvironment }, { default: plugin }] = await Promise.all([import("hardhat/hre"), import("./index.js")]);
    hre = await createHardhatRuntimeEnvironment({ plugins: [plugin] });
  }
  const rpcUrls = { ...(await configuredRpcUrls(hre)), ...options.rpcUrls };
  const dataDir = options.dataDirectory ? undefined : (options.dataDir ?? (options.persistSimulatedChains ? hre.config.tokenService.dataDir : undefined));
  const bitcoin =
    options.bitcoin ?? bitcoinBackendsFromEnv(options.env ?? process.env, options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {});
  return new TokenService({
    ...options,
    simulatedChainFactory: options.simulatedChainFactory ?? hardhatSimulatedChains(hre),
    rpcUrls,
    bitcoin,
    ...(dataDir !== undefined ? { dataDir } : {}),
  });
}

export { TokenService } from "./service.js";
export { hardhatSimulatedChains } from "./internal/simulated-chains.js";
export type { SimulatedChainFactory, SimulatedChainConnection } from "./evm/chain.js";
export type { OperationRecord, OperationStatus, OperationTransition, OperationStore } from "./operations/types.js";
export type { LaunchOutcome, MintOutcome, FaucetOutcome } from "./operations/operations.js";
export type * from "./service.js";
export { TokenServiceError, ErrorCode, isTokenServiceError } from "./errors.js";
export { allNetworks, resolveNetwork, CHAIN_NAMES, rpcEnvironmentVariable } from "./chains.js";
export { createWallet } from "./wallets.js";
export { formatUnits } from "./units.js";
export type { SenderLock } from "./evm/sender-lock.js";
export { InProcessSenderLock } from "./evm/sender-lock.js";
export type { BitcoinBackend, BitcoinBackends, BitcoinBalance } from "./bitcoin/backend.js";
export { bitcoinBackendsFromEnv, bitcoindVariable, esploraVariable } from "./bitcoin/backends.js";
export { DEFAULT_ESPLORA_URLS } from "./bitcoin/esplora.js";
