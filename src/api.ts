import { tokenServiceFor, type CreateTokenServiceOptions } from "./internal/token-service-for.js";
import type { TokenService } from "./service.js";
import { selectedNetwork } from "./internal/selected-network.js";

export type { CreateTokenServiceOptions } from "./internal/token-service-for.js";
export { configuredRpcUrls } from "./internal/rpc-urls.js";

/**
 * The programmatic front door: the same core the tasks and the HTTP service use. Without `hre`, one is made with this
 * plugin. A script run with `npx hardhat run --network <name>` gets that HTTP network's pair live, as a task would.
 */
export async function createTokenService(options: CreateTokenServiceOptions = {}): Promise<TokenService> {
  let hre = options.hre;
  if (hre === undefined) {
    const [{ createHardhatRuntimeEnvironment }, { default: plugin }] = await Promise.all([import("hardhat/hre"), import("./index.js")]);
    hre = await createHardhatRuntimeEnvironment({ plugins: [plugin] });
  }
  const selected = await selectedNetwork(hre, {});
  if (selected === undefined) return tokenServiceFor(hre, options);
  const pair = `${selected.pair.chain}/${selected.pair.network}`;
  return tokenServiceFor(hre, { ...options, rpcUrls: { [pair]: selected.endpoint, ...options.rpcUrls } });
}

export { TokenService } from "./service.js";
export { hardhatSimulatedChains } from "./internal/simulated-chains.js";
export type {
  SimulatedChainFactory,
  SimulatedChainConnection,
  LazyEndpoint,
  NodeCallObserver,
  EvmChain,
  EvmNetworkInfo,
} from "./evm/chain.js";
export type { EvmChains } from "./evm/chains-registry.js";
export type { Operations } from "./operations/operations.js";
export type {
  OperationRecord,
  OperationStatus,
  OperationTransition,
  OperationStore,
  OperationKind,
  PreparedTransaction,
} from "./operations/types.js";
export type { LaunchOutcome, MintOutcome, FaucetOutcome, OperationContext, PreparedOutcome } from "./operations/operations.js";
export type { TrackerSettings } from "./operations/tracker.js";
// Every result the programmatic API returns has its type exported.
export type { LaunchResult } from "./evm/launch.js";
export type { MintResult } from "./evm/mint.js";
export type { TransactionStatus, TransactionState } from "./evm/transaction-status.js";
export type { Wallet, CreateWalletRequest } from "./wallets.js";
export type { AmountPair } from "./units.js";
export type { NetworkInfo } from "./chains.js";
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
