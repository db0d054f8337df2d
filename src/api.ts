import { tokenServiceFor, type CreateTokenServiceOptions } from "./hardhat/token-service-for.js";
import type { TokenService } from "./core/token-service.js";
import { selectedNetwork } from "./hardhat/selected-network.js";
import { projectChains } from "./hardhat/project-chains.js";

export type { CreateTokenServiceOptions } from "./hardhat/token-service-for.js";
export { configuredRpcUrls } from "./hardhat/rpc-urls.js";

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
  const chains = options.chains ?? projectChains(hre, options.env ?? process.env);
  const selected = await selectedNetwork(hre, {}, chains);
  if (selected === undefined) return tokenServiceFor(hre, { ...options, chains });
  const pair = `${selected.pair.chain}/${selected.pair.network}`;
  return tokenServiceFor(hre, { ...options, chains, rpcUrls: { [pair]: selected.endpoint, ...options.rpcUrls } });
}

export { TokenService } from "./core/token-service.js";
export { hardhatSimulatedChains } from "./hardhat/simulated-chains.js";
export type {
  SimulatedChainFactory,
  SimulatedChainConnection,
  LazyEndpoint,
  NodeCallObserver,
  EvmChain,
  EvmNetworkInfo,
} from "./chains/evm/chain.js";
export type { EvmChains } from "./chains/evm/chains-registry.js";
export type { Operations } from "./core/operations/operations.js";
export type { OperationRecord, OperationStatus, OperationTransition, OperationStore, OperationKind } from "./core/operations/types.js";
export type { PreparedTransaction } from "./chains/evm/write/signed-transaction.js";
export type {
  LaunchOutcome,
  MintOutcome,
  TransferOutcome,
  ApproveOutcome,
  BurnOutcome,
  PauseOutcome,
  RoleOutcome,
  OwnershipOutcome,
  Outcome,
  FaucetOutcome,
  OperationContext,
  PreparedOutcome,
} from "./core/operations/operations.js";
export type { TrackerSettings } from "./core/operations/tracker-settings.js";
export type { PreparedReplacement, ReplacementKind, ReplacementOutcome, ReplacementRequest } from "./core/operations/replacements.js";
export type { OperationTransaction, StuckNotice, TransactionRole } from "./domain/lifecycle.js";
// Every result the programmatic API returns has its type exported.
export type { LaunchResult, MintResult } from "./domain/requests.js";
export type { AssetType, TokenStandard } from "./domain/asset-types.js";
export type { TransactionStatus, TransactionState } from "./chains/evm/read/transaction-status.js";
export type { Wallet, CreateWalletRequest } from "./core/wallets.js";
export type { AmountPair } from "./domain/units.js";
export type { AmountEcho, AmountWarning, SupplyEcho, Warned } from "./domain/amount-echo.js";
export { WarningCode } from "./domain/amount-echo.js";
export type { NetworkInfo, ChainDefinition, NetworkDefinition, Rollup } from "./domain/chains.js";
export type * from "./core/token-service.js";
export { TokenServiceError, ErrorCode, RecordErrorCode, ERROR_CATALOG, isTokenServiceError } from "./domain/errors.js";
export type { AnyErrorCode, ErrorDescriptor } from "./domain/errors.js";
export { allNetworks, resolveNetwork, CHAIN_NAMES, rpcEnvironmentVariable, ChainRegistry, BUILT_IN_CHAINS } from "./domain/chains.js";
export { chainRegistry, type ChainRegistryOptions } from "./config/chain-registry.js";
export { createWallet } from "./core/wallets.js";
export { formatUnits } from "./domain/units.js";
export type { SenderLock } from "./chains/evm/sender-lock.js";
export { InProcessSenderLock } from "./chains/evm/sender-lock.js";
export type { BitcoinBackend, BitcoinBackends, BitcoinBalance } from "./chains/bitcoin/backend.js";
export { bitcoinBackendsFromEnv, bitcoindVariable, esploraVariable } from "./chains/bitcoin/backends.js";
export { DEFAULT_ESPLORA_URLS } from "./chains/bitcoin/esplora.js";
