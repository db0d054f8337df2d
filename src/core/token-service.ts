import path from "node:path";

import { BUILT_IN_CHAINS, requireEvm, rpcEnvironmentVariable, type ChainRegistry, type NetworkInfo } from "../domain/chains.js";
import { ErrorCode, invalidArgument, isTokenServiceError, TokenServiceError } from "../domain/errors.js";
import { parseChainFault, type ChainFaultRequest, type ChainFaultView } from "../domain/faults.js";
import { noBitcoinBackends, requireBitcoinBackend, type BitcoinBackends } from "../chains/bitcoin/backend.js";
import { tokenMetadataEntries } from "../chains/evm/read/balances.js";
import { learntShapes } from "../chains/evm/write/gas-shapes.js";
import type {
  AllowanceRequest,
  AllowanceResult,
  ApproveRequest,
  OwnedTokensRequest,
  OwnedTokensResult,
  TokenInfoRequest,
  TokenInfoResult,
  TransferRequest,
} from "../domain/transfer-requests.js";
import type { EndpointSource, EvmChain, NodeCallObserver, SimulatedChainFactory } from "../chains/evm/chain.js";
import { EvmChains, type DataDirectoryLock, type EvmChainsOptions } from "../chains/evm/chains-registry.js";
import { mintedTokenId } from "../chains/evm/write/mint.js";
import { InProcessSenderLock, type SenderLock } from "../chains/evm/sender-lock.js";
import { getReceipt, getTransactionStatus, waitForTransaction, type TransactionStatus } from "../chains/evm/read/transaction-status.js";
import {
  type BalancesRequest,
  type BalancesResult,
  type FaucetRequest,
  type LaunchRequest,
  type MintRequest,
  type NetworkSummary,
  type TokenBalanceRequest,
  type TokenBalanceResult,
  type TransactionRequest,
  type Unsigned,
} from "../domain/requests.js";
import { ChainWrites } from "./operations/chain-writes.js";
import { FirstUseCompiler } from "../chains/evm/variants/first-use-compiler.js";
import { TokenReads } from "./token-reads.js";
import type { ReplacementOutcome, ReplacementRequest } from "./operations/replacements.js";
import { isFinal } from "../domain/lifecycle.js";
import { FeePolicy } from "./operations/fee-policy.js";
import type { BurnRequest, OwnershipRequest, PauseRequest, RoleRequest } from "../domain/admin-requests.js";
import type { UnsignedRequestOf, WriteCommandName } from "./operations/write-commands.js";
import {
  Operations,
  type ApproveOutcome,
  type BurnOutcome,
  type OwnershipOutcome,
  type PauseOutcome,
  type RoleOutcome,
  type TransferOutcome,
  type FaucetOutcome,
  type LaunchOutcome,
  type MintOutcome,
  type OperationContext,
  type PreparedOutcome,
} from "./operations/operations.js";
import { DEFAULT_TRACKER_SETTINGS, type TrackerSettings } from "./operations/tracker-settings.js";
import type { NonceFiller, NonceHealingObserver } from "./operations/nonce-healing.js";
import type { OperationStore } from "./operations/types.js";
import { Custody } from "./custody/custody.js";
import { MemoryCustodyStore } from "./custody/memory-custody-store.js";
import type { CustodyStore } from "./custody/types.js";
import { kmsOf } from "./custody/kms-config.js";
import { Notifications } from "./notifications/notifications.js";
import { notificationSources } from "./notifications/sources.js";
import type { NotificationStore } from "./notifications/types.js";
import { Verifications } from "./verifications/verifications.js";
import type { VerificationStore } from "./verifications/types.js";
import { readVariable } from "../config/environment.js";
import { createWallet, type CreateWalletRequest, type Wallet } from "./wallets.js";
import { TokenUpgrades } from "./upgrades.js";

export type * from "../domain/requests.js";
export type * from "../domain/transfer-requests.js";
export type * from "../domain/admin-requests.js";
export type { WriteCommandName, RequestOf, UnsignedRequestOf } from "./operations/write-commands.js";
export { MAX_ERC1155_IDS_PER_READ, MAX_ERC20_CONTRACTS_PER_READ } from "../domain/requests.js";
export type { ChainFaultKind, ChainFaultRequest, ChainFaultView, RpcErrorKind } from "../domain/faults.js";

export interface TokenServiceOptions {
  /**
   * The chains served: the built-in ones and those declared in configuration. Default: the built-in ones (the doors
   * compose theirs with `tokenService.chains` and `TOKEN_SERVICE_CHAINS`: src/compose.ts).
   */
  chains?: ChainRegistry;
  /** Where simulated chains come from (the plugin passes Hardhat's EDR); without one, only configured endpoints are served. */
  simulatedChainFactory?: SimulatedChainFactory;
  /**
   * Live endpoints keyed "chain/network" (a configuration variable is read on first use), one or several tried in order;
   * `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>` fills the gaps.
   */
  rpcUrls?: Record<string, EndpointSource>;
  env?: NodeJS.ProcessEnv;
  /** Simulated chains: 0 mines on send (default), N mines a block every N seconds. */
  blockTimeSeconds?: number;
  /** Simulated chains keep their state here between runs when set (the composition root opens it from `dataDir`). */
  dataDirectory?: DataDirectoryLock;
  /** Release `dataDirectory` when the service closes (the composition root opened it for this service). */
  releaseDataDirectory?: boolean;
  /** Serializes sends per chain and sender; the HTTP service passes a PostgreSQL-backed one. */
  senderLock?: SenderLock;
  bitcoin?: BitcoinBackends;
  requestTimeoutMs?: number;
  /** Told of every call to an EVM node, for metrics. */
  onNodeCall?: NodeCallObserver;
  /** Told how each checkpoint of a simulated chain went (written, or refused by a full disk), for the log. */
  onCheckpoint?: EvmChainsOptions["onCheckpoint"];
  /** false: EVM pairs without an endpoint are not served instead of simulated in this process. Default true. */
  simulatedChains?: boolean;
  /**
   * Where launch, mint and faucet records live. The composition root passes this process's memory by default (the HTTP
   * service passes its database): the core does not pick a store, which lives above it.
   */
  operationStore: OperationStore;
  /**
   * Where the keystore and held wallets live; default this process's memory (the HTTP service passes its database). The
   * passphrase is read from `env`'s TOKEN_SERVICE_KEYSTORE_PASSPHRASE.
   */
  custodyStore?: CustodyStore;
  /** Where chain-notification subscriptions and their events live; without it there are none (the HTTP service passes its database). */
  notificationStore?: NotificationStore;
  /** Told when a notification scan's step failed (a node or the store failing); it is tried again. */
  onScanError?: (pair: string, error: unknown) => void;
  /** Where verifications on explorers live; without it there are none (the HTTP service and `token:verify` pass their database). */
  verificationStore?: VerificationStore;
  /** Told when a verification's step failed (the store failing); it is tried again. */
  onVerificationError?: (error: unknown) => void;
  /** Compiles the token variants the build does not ship; default one keeping them in the data directory's compiled-variants/. */
  variantCompiler?: FirstUseCompiler;
  /** Confirmations, drop and reorg windows, leases of the operation tracker. */
  tracker?: Partial<TrackerSettings>;
  /** How long a prepared (unsigned) launch or mint keeps its nonce reserved for the sender; default 120 s. */
  nonceReservationMs?: number;
  /** Told of every nonce healing of the tracker (a record whose nonce another transaction took, a re-broadcast, a gap). */
  onNonceHealing?: NonceHealingObserver;
  /**
   * Sources of stored transactions that can fill a nonce the service left unused, so that a sender's later transactions
   * are not stranded; asked after the service's own unfinished records (see docs/operations.md, nonces that heal).
   */
  nonceFillers?: readonly NonceFiller[];
  /**
   * Fee ceilings in gwei, keyed "chain/network" (the Hardhat config's `tokenService.feeCaps`): a send that would need
   * more is refused with FEE_CAP_EXCEEDED, and a stuck transaction's replacements climb up to it.
   * `TOKEN_SERVICE_FEE_CAP_<CHAIN>_<NETWORK>` wins.
   */
  feeCaps?: Record<string, string | number>;
  /**
   * Blocks a pending transaction waits before it is replaced, keyed "chain/network" (`tokenService.replaceAfterBlocks`);
   * `TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_<CHAIN>_<NETWORK>` wins, and each chain has a default fitting its block time.
   */
  replaceAfterBlocks?: Record<string, number>;
  /**
   * Simulated chains can be told to misbehave (`chainFaults(pair)`): fee spikes, stalls, drops, reorgs, failing
   * calls. For testing a client's handling; default false (`serve`: TOKEN_SERVICE_CHAIN_FAULTS=on). Live pairs never.
   */
  chainFaults?: boolean;
}

/** The faults of one simulated pair: start one, list the active ones, clear them. */
export interface ChainFaultControl {
  /** Starts a fault (or makes it at once: a reorg, a drop without a length); `fault` is checked, a bad field named. */
  inject(fault: ChainFaultRequest): Promise<ChainFaultView>;
  /** The active faults, oldest first. */
  list(): ChainFaultView[];
  /** Ends every active fault, or the one with this id (CHAIN_FAULT_NOT_FOUND when none is active). */
  clear(id?: string): Promise<ChainFaultView[]>;
}

function parseTransactionHash(value: unknown): string {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw invalidArgument("transactionHash", "transactionHash must be a 0x-prefixed 32-byte hex string");
  }
  return value.toLowerCase();
}

/**
 * The core every front door calls: Hardhat tasks, the programmatic API and the
 * HTTP service only parse input, call one of these methods, and format output.
 */
export class TokenService {
  /** Every chain and network this service knows: requests are resolved here. */
  readonly chains: ChainRegistry;
  readonly evm: EvmChains;
  /** Launch, mint and faucet with durable records, followed to a final state. */
  readonly operations: Operations;
  /** The wallets the service holds and signs for (docs/custody.md). */
  readonly custody: Custody;
  /** Chain notifications (docs/notifications.md), when a store keeps them. */
  readonly notifications: Notifications | undefined;
  /** Verification of launched tokens on explorers (docs/tokens.md#verifying-a-token), when a store keeps them. */
  readonly verifications: Verifications | undefined;
  /** The token variants compiled on first use (docs/decisions/0062-variants-compiled-on-first-use.md). */
  readonly variants: FirstUseCompiler;
  /** Upgrades of the service's upgradeable launches (docs/decisions/0066-upgrade-write.md). */
  readonly upgrades: TokenUpgrades;
  private readonly bitcoin: BitcoinBackends;
  /** Released on close when the composition root opened it for this service. */
  private readonly ownDataDirectory: DataDirectoryLock | undefined;
  /** Balance and token reads. */
  private readonly reads: TokenReads;

  constructor(options: TokenServiceOptions) {
    this.ownDataDirectory = options.releaseDataDirectory ? options.dataDirectory : undefined;
    const dataDirectory = options.dataDirectory;
    this.chains = options.chains ?? BUILT_IN_CHAINS;
    this.evm = new EvmChains({
      ...options,
      chains: this.chains,
      ...(dataDirectory ? { dataDirectory } : {}),
      // A chain that lost journal lines may lack transactions its records say are mined from the first block the loss
      // could change: the tracker checks each of those (the blocks below it were replayed as they were).
      onJournalLoss: async (info, replay) => {
        const count = await this.operations.store.recheckMined(info.chain, info.network, replay.lossFromBlock);
        if (count > 0) {
          this.operations.start();
          this.operations.tracker.kick();
        }
      },
      // A reorg fault replaced blocks: the records mined in them are checked against the new chain, as after a live reorg.
      onReorg: async (info, fromBlock) => {
        const count = await this.operations.store.recheckMined(info.chain, info.network, fromBlock);
        if (count > 0) {
          this.operations.start();
          this.operations.tracker.kick();
        }
      },
    });
    this.bitcoin = options.bitcoin ?? noBitcoinBackends;
    this.reads = new TokenReads(this.chains, this.evm, this.bitcoin);
    const feePolicy = new FeePolicy({
      ...(options.feeCaps ? { feeCaps: options.feeCaps } : {}),
      ...(options.replaceAfterBlocks ? { replaceAfterBlocks: options.replaceAfterBlocks } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    this.variants =
      options.variantCompiler ??
      new FirstUseCompiler(dataDirectory !== undefined ? { directory: path.join(dataDirectory.path, "compiled-variants") } : {});
    const writes = new ChainWrites(this.evm, options.senderLock ?? new InProcessSenderLock(), this.bitcoin, feePolicy, this.variants);
    const env = options.env ?? process.env;
    this.custody = new Custody(options.custodyStore ?? new MemoryCustodyStore(), this.chains, {
      passphrase: readVariable(env, "TOKEN_SERVICE_KEYSTORE_PASSPHRASE"),
      ...(options.senderLock !== undefined ? { lock: options.senderLock } : {}),
      ...kmsOf(env),
    });
    this.operations = new Operations(
      writes,
      options.operationStore,
      { ...DEFAULT_TRACKER_SETTINGS, ...options.tracker },
      options.nonceReservationMs,
      {
        ...(options.onNonceHealing !== undefined ? { observe: options.onNonceHealing } : {}),
        ...(options.nonceFillers !== undefined ? { fillers: options.nonceFillers } : {}),
      },
      this.custody,
    );
    this.upgrades = new TokenUpgrades({
      chains: this.chains,
      evmChain: (info) => this.evmChain(info, "an upgrade"),
      operations: this.operations,
      variants: this.variants,
    });
    this.notifications =
      options.notificationStore === undefined
        ? undefined
        : new Notifications(options.notificationStore, this.chains, notificationSources(this.evm, this.bitcoin), {
            ...(options.onScanError ? { onError: options.onScanError } : {}),
          });
    const operationStore = options.operationStore;
    this.verifications =
      options.verificationStore === undefined
        ? undefined
        : new Verifications(options.verificationStore, {
            chains: this.chains,
            isLive: (info) => !this.evm.isSimulated(info),
            getOperation: (id) => operationStore.getOperation(id),
            variants: this.variants,
            env,
            ...(options.onVerificationError ? { onError: options.onVerificationError } : {}),
          });
  }

  networks(): NetworkSummary[] {
    return this.chains.all().map((info) => {
      if (info.kind === "evm") {
        const endpoint = this.evm.endpointLabel(info);
        if (endpoint !== undefined) return { ...info, simulated: false, backend: "json-rpc", endpoint };
        return this.evm.simulatesPrivately(info)
          ? { ...info, simulated: true, backend: "edr", endpoint: "in-process EDR (simulated)" }
          : {
              ...info,
              simulated: false,
              backend: "none",
              endpoint: `not served (set ${rpcEnvironmentVariable(info.chain, info.network)})`,
            };
      }
      const described = this.bitcoin.describe(info.network);
      return {
        ...info,
        simulated: false,
        backend: described?.backend ?? "none",
        endpoint: described?.endpoint ?? `not configured (set ${this.bitcoin.configurationHint(info.network)})`,
      };
    });
  }

  createWallet(request: CreateWalletRequest): Wallet {
    return createWallet(request, this.chains);
  }

  /**
   * Where the chain names its state (simulated chains), equal balance reads at the same state share one answer, in
   * flight and after; a transaction, a faucet grant or a block moves the state on. Live nodes are asked every time.
   */
  getBalances(request: BalancesRequest): Promise<BalancesResult> {
    return this.reads.getBalances(request);
  }

  getTokenBalance(request: TokenBalanceRequest): Promise<TokenBalanceResult> {
    return this.reads.getTokenBalance(request);
  }

  /**
   * Deploys a token as a recorded operation: written before it is broadcast (with its signed raw transaction), then
   * followed to mined, failed or dropped. Resolves once the node accepted the transaction; `operations.settle` waits on.
   */
  launch(request: LaunchRequest, context?: OperationContext): Promise<LaunchOutcome> {
    return this.operations.launch(request, context);
  }

  /** A mint as a recorded operation, like `launch`. */
  mint(request: MintRequest, context?: OperationContext): Promise<MintOutcome> {
    return this.operations.mint(request, context);
  }

  /** The deployment `launch` would send, unsigned, for the sender to sign; its nonce is reserved until `expiresAt`. */
  prepareLaunch(request: Unsigned<LaunchRequest>): Promise<PreparedOutcome> {
    return this.operations.prepareLaunch(request);
  }

  /** The mint `mint` would send, unsigned, for the sender to sign; its nonce is reserved until `expiresAt`. */
  prepareMint(request: Unsigned<MintRequest>): Promise<PreparedOutcome> {
    return this.operations.prepareMint(request);
  }

  /**
   * Moves native currency (NATIVE) or a token (ERC20 `transfer`, ERC721 and ERC1155 `safeTransferFrom`) from the sender,
   * as a recorded operation like `launch`; refused before signing when the sender lacks what it would move.
   */
  transfer(request: TransferRequest, context?: OperationContext): Promise<TransferOutcome> {
    return this.operations.transfer(request, context);
  }

  /** Approves a spender: an ERC20 allowance, one ERC721 token, or every token of the sender (`all`), like `launch`. */
  approve(request: ApproveRequest, context?: OperationContext): Promise<ApproveOutcome> {
    return this.operations.approve(request, context);
  }

  /** The transfer `transfer` would send, unsigned, for the sender to sign; its nonce is reserved until `expiresAt`. */
  prepareTransfer(request: Unsigned<TransferRequest>): Promise<PreparedOutcome> {
    return this.operations.prepareTransfer(request);
  }

  /** The approval `approve` would send, unsigned, for the sender to sign; its nonce is reserved until `expiresAt`. */
  prepareApprove(request: Unsigned<ApproveRequest>): Promise<PreparedOutcome> {
    return this.operations.prepareApprove(request);
  }

  /**
   * Burns the sender's own tokens (ERC20 `amount`, ERC721 `tokenId`, ERC1155 `tokenId` and `amount`), as a recorded
   * operation like `launch`; refused before signing when the token cannot be burned or the sender lacks the tokens.
   */
  burn(request: BurnRequest, context?: OperationContext): Promise<BurnOutcome> {
    return this.operations.write("burn", request, context);
  }

  /** Pauses (`paused: true`) or unpauses a pausable token, as a recorded operation like `launch`. */
  pause(request: PauseRequest, context?: OperationContext): Promise<PauseOutcome> {
    return this.operations.write("pause", request, context);
  }

  /** Grants `role` to `account` on a token with AccessControl (launched with access "roles"), like `launch`. */
  grantRole(request: RoleRequest, context?: OperationContext): Promise<RoleOutcome> {
    return this.operations.write("grantRole", request, context);
  }

  /** Revokes `role` from `account`, like `grantRole`. */
  revokeRole(request: RoleRequest, context?: OperationContext): Promise<RoleOutcome> {
    return this.operations.write("revokeRole", request, context);
  }

  /** Makes `newOwner` the owner of an Ownable token (launched with access "ownable"), like `launch`. */
  transferOwnership(request: OwnershipRequest, context?: OperationContext): Promise<OwnershipOutcome> {
    return this.operations.write("transferOwnership", request, context);
  }

  /**
   * Any write's transaction, by its name (launch, mint, transfer, approve, burn, pause, grantRole, revokeRole,
   * transferOwnership), unsigned, for the sender to sign; its nonce is reserved until `expiresAt`. Submit it signed as
   * `signedTransaction` with the same request.
   */
  prepare<N extends WriteCommandName>(name: N, request: UnsignedRequestOf<N>): Promise<PreparedOutcome> {
    return this.operations.prepare(name, request);
  }

  /** What `owner` lets `spender` do with its tokens: an ERC20 allowance, an ERC721 token's approval, operator approval. */
  getAllowance(request: AllowanceRequest): Promise<AllowanceResult> {
    return this.reads.getAllowance(request);
  }

  /** A token's name, symbol, decimals, supply, paused state, and the options it was found to have. */
  getTokenInfo(request: TokenInfoRequest): Promise<TokenInfoResult> {
    return this.reads.getTokenInfo(request);
  }

  /**
   * A page of the ERC721 or ERC1155 ids `owner` holds on a contract (ERC1155 with the amount of each), ascending, after
   * the cursor's id. The cursor names the last id
   * of the page before, so it never expires; ids the owner gained below it since are on no later page.
   */
  listOwnedTokens(request: OwnedTokensRequest): Promise<OwnedTokensResult> {
    return this.reads.listOwnedTokens(request);
  }

  /**
   * Replaces an unfinished operation's transaction with the same call at higher fees: the next step its key-in-body send
   * signed ahead (`{ sent }`), or, with none, the replacement for the caller to sign (`{ prepared }`), taken back as
   * `signedTransaction`. See `operations.speedUp`.
   */
  speedUp(id: string, request?: ReplacementRequest): Promise<ReplacementOutcome> {
    return this.operations.speedUp(id, request);
  }

  /**
   * Cancels an unfinished operation: a zero-value transfer to its sender at its nonce with higher fees, sent or
   * prepared as `speedUp`. It ends `cancelled` when the cancel lands, `mined` when its transaction won the race.
   */
  cancelOperation(id: string, request?: ReplacementRequest): Promise<ReplacementOutcome> {
    return this.operations.cancel(id, request);
  }

  /** Funds an address on a simulated chain or bitcoin regtest, as a recorded operation. */
  faucet(request: FaucetRequest, context?: OperationContext): Promise<FaucetOutcome> {
    return this.operations.faucet(request, context);
  }

  /** The ERC721 token id a mined mint produced. */
  async mintedTokenId(request: TransactionRequest & { contractAddress: string }): Promise<string | undefined> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "mint");
    const receipt = await getReceipt(await this.evmChain(info, "mint"), parseTransactionHash(request.transactionHash));
    return receipt === null ? undefined : mintedTokenId(receipt, request.contractAddress);
  }

  /**
   * What the node says of a transaction. One it does not know, but a recorded operation sent (signed before a
   * crash, lost from the pool, undone by a reorg), answers with its record's state instead of TRANSACTION_NOT_FOUND.
   */
  async getTransaction(request: TransactionRequest): Promise<TransactionStatus> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "transaction lookup");
    const hash = parseTransactionHash(request.transactionHash);
    const chain = await this.evmChain(info, "transaction lookup");
    let onChain: TransactionStatus | undefined;
    let notFound: TokenServiceError | undefined;
    try {
      onChain = await getTransactionStatus(chain, hash);
    } catch (error) {
      if (!isTokenServiceError(error, ErrorCode.TRANSACTION_NOT_FOUND)) throw error;
      notFound = error;
    }
    // Mined (or reverted): the node's word. Pending or unknown: its operation's record may know more.
    if (onChain !== undefined && onChain.status !== "pending") return onChain;
    const record = await this.operations.store.findByTransactionHash(info.chain, info.network, hash);
    if (record === undefined) {
      if (onChain !== undefined) return onChain;
      throw notFound!;
    }
    const unknown = { transactionHash: hash, blockNumber: null, confirmations: 0, contractAddress: null, simulated: chain.simulated };
    const follows = record.transactionHash?.toLowerCase();
    if (follows !== undefined && follows !== hash) {
      // Replaced: mined only if it wins the race while its operation is unfinished; never once another took its nonce.
      return { ...unknown, status: isFinal(record.status) ? "dropped" : "pending", replaced: true, replacedBy: follows };
    }
    if (onChain !== undefined) return onChain;
    return { ...unknown, status: record.status === "failed" || record.status === "dropped" ? record.status : "pending" };
  }

  /** Resolves when mined, or with status "pending" once `timeoutMs` passed or `signal` aborted. */
  async waitForTransaction(request: TransactionRequest & { timeoutMs?: number; signal?: AbortSignal }): Promise<TransactionStatus> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "transaction lookup");
    const chain = await this.evmChain(info, "transaction lookup");
    return waitForTransaction(chain, parseTransactionHash(request.transactionHash), request.timeoutMs ?? 120_000, request.signal);
  }

  /**
   * Probes a network's own Bitcoin Core node. Public Esplora defaults are not
   * probed: a health check should not send traffic to a third party.
   */
  async pingBitcoin(network: string): Promise<"ready" | "not probed"> {
    const backend = requireBitcoinBackend(this.bitcoin, network);
    if (backend.kind !== "bitcoind" || backend.ping === undefined) return "not probed";
    await backend.ping();
    return "ready";
  }

  /**
   * The faults of a simulated pair, to make it misbehave on purpose. Refused with CHAIN_FAULTS_OFF unless the service
   * was made with `chainFaults: true`, and with LIVE_NETWORK_FAULTS on a pair served by a live node. Starts the pair's
   * chain if it is not running yet.
   */
  async chainFaults(pair: { chain: string; network: string }): Promise<ChainFaultControl> {
    if (!this.evm.faultsEnabled) {
      throw new TokenServiceError(
        ErrorCode.CHAIN_FAULTS_OFF,
        "chain faults are off: start the service with TOKEN_SERVICE_CHAIN_FAULTS=on (the programmatic API: chainFaults: true), on a service of your own",
      );
    }
    const info = requireEvm(this.chains.resolve(pair.chain, pair.network), "chain faults");
    const endpoint = this.evm.endpointLabel(info);
    if (endpoint !== undefined) {
      throw new TokenServiceError(
        ErrorCode.LIVE_NETWORK_FAULTS,
        `${info.chain}/${info.network} is live (${endpoint}): faults are made only on simulated chains`,
        { field: "network", details: { endpoint } },
      );
    }
    const faults = (await this.evm.get(info)).faults;
    if (faults === undefined) throw new Error(`${info.chain}/${info.network} was started without its faults`);
    return {
      inject: async (fault) => faults.inject(parseChainFault(fault)),
      list: () => faults.list(),
      clear: (id) => faults.clear(id),
    };
  }

  /** Opens (or reuses) the chain connection for a pair. */
  evmChain(info: NetworkInfo, operation: string): Promise<EvmChain> {
    return this.evm.get(requireEvm(info, operation));
  }

  /**
   * What the service holds in memory, entry by entry, beside its store: the tracker's records in flight and each open
   * chain's caches. None of it grows with history (docs/operations.md, "Memory"); tests check that it does not.
   * @internal
   */
  retained(): RetainedEntries {
    return {
      tracker: this.operations.tracker.retained(),
      following: this.operations.tracker.following(),
      chains: Object.fromEntries(
        this.evm
          .openChains()
          .map(([pair, chain]) => [pair, { tokenMetadata: tokenMetadataEntries(chain), gasShapes: learntShapes(chain) }]),
      ),
    };
  }

  async close(): Promise<void> {
    await this.operations.stop();
    await this.notifications?.stop();
    await this.verifications?.stop();
    await Promise.all([this.evm.close(), this.bitcoin.close(), this.custody.close()]);
    this.ownDataDirectory?.release();
  }
}

export type { TokenType } from "../domain/token-params.js";

/** The sizes `TokenService.retained()` reports. */
export interface RetainedEntries {
  tracker: { waiters: number; broadcasting: number; accepted: number; own: number };
  /**
   * The live chains' head followers that watch mined records for reorgs: the heights watched (a record's block, for its
   * watch: an hour by default), and the hashes and receipts they keep.
   */
  following: { watchedHeights: number; hashes: number; blocksWithReceipts: number; receiptsByHash: number };
  /** By pair: token symbols and decimals kept, and deployment shapes whose gas is kept. */
  chains: Record<string, { tokenMetadata: number; gasShapes: number }>;
}
