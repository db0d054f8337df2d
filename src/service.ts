import { parseBitcoinAddress, parseEvmAddress } from "./addresses.js";
import { allNetworks, requireEvm, resolveNetwork, rpcEnvironmentVariable, type NetworkInfo } from "./chains.js";
import { ErrorCode, TokenServiceError, invalidArgument, isTokenServiceError } from "./errors.js";
import { noBitcoinBackends, type BitcoinBackends } from "./bitcoin/backend.js";
import { readBalances, readErc721Balance } from "./evm/balances.js";
import type { TransactionLike } from "ethers";

import type { EvmChain, EvmNetworkInfo, LazyEndpoint, NodeCallObserver, SimulatedChainFactory } from "./evm/chain.js";
import { EvmChains } from "./evm/chains-registry.js";
import { SharedChainReads } from "./evm/read-memo.js";
import { DataDirectory } from "./data-directory.js";
import { MemoryOperationStore } from "./operations/memory-store.js";
import { Operations } from "./operations/operations.js";
import { DEFAULT_TRACKER_SETTINGS, type TrackerSettings } from "./operations/tracker.js";
import type { OperationStore } from "./operations/types.js";
import { launchToken, prepareLaunch, type LaunchHooks, type LaunchParams, type LaunchResult, type Signing } from "./evm/launch.js";
import { mintToken, mintedTokenId, prepareMint, type MintParams, type MintResult } from "./evm/mint.js";
import type { BroadcastHooks } from "./evm/send-transaction.js";
import { InProcessSenderLock, type SenderLock } from "./evm/sender-lock.js";
import { getReceipt, getTransactionStatus, waitForTransaction, type TransactionStatus } from "./evm/transaction-status.js";
import { assertKeyDerivesSender } from "./keys.js";
import { parseErc20Params, parseErc721Params, parseTokenType, type TokenType } from "./token-params.js";
import { amountPair, parseUint256, type AmountPair } from "./units.js";
import { createWallet, type CreateWalletRequest, type Wallet } from "./wallets.js";

export interface TokenServiceOptions {
  /** Where simulated chains come from (the plugin passes Hardhat's EDR); without one, only configured endpoints are served. */
  simulatedChainFactory?: SimulatedChainFactory;
  /** Live endpoints keyed "chain/network" (a configuration variable is read on first use); `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>` fills the gaps. */
  rpcUrls?: Record<string, string | LazyEndpoint>;
  env?: NodeJS.ProcessEnv;
  /** Simulated chains: 0 mines on send (default), N mines a block every N seconds. */
  blockTimeSeconds?: number;
  /** Simulated chains keep their state here between runs when set. */
  dataDir?: string;
  /** The same, already described by its owner (the caller claims and releases it); wins over `dataDir`. */
  dataDirectory?: DataDirectory;
  /** Serializes sends per chain and sender; the HTTP service passes a PostgreSQL-backed one. */
  senderLock?: SenderLock;
  bitcoin?: BitcoinBackends;
  requestTimeoutMs?: number;
  /** Told of every call to an EVM node, for metrics. */
  onNodeCall?: NodeCallObserver;
  /** false: EVM pairs without an endpoint are not served instead of simulated in this process. Default true. */
  simulatedChains?: boolean;
  /** Where launch, mint and faucet records live; default this process's memory (the HTTP service passes its database). */
  operationStore?: OperationStore;
  /** Confirmations, drop and reorg windows, leases of the operation tracker. */
  tracker?: Partial<TrackerSettings>;
  /** How long a prepared (unsigned) launch or mint keeps its nonce reserved for the sender; default 120 s. */
  nonceReservationMs?: number;
}

export interface PairRequest {
  chain: string;
  network: string;
}

export interface BalancesRequest extends PairRequest {
  address: string;
  erc20TokenContractAddresses?: string[];
}

export interface BalanceEntry extends AmountPair {
  contractAddress?: string;
  decimals?: number;
  symbol?: string;
  confirmed?: AmountPair;
  unconfirmed?: AmountPair;
}

export interface BalancesResult {
  chain: string;
  network: string;
  address: string;
  simulated: boolean;
  balances: Record<string, BalanceEntry>;
}

export interface TokenBalanceRequest extends PairRequest {
  address: string;
  tokenAddress: string;
  type: string;
}

export interface TokenBalanceResult {
  chain: string;
  network: string;
  address: string;
  tokenAddress: string;
  type: "erc20" | "erc721";
  balance: string;
  simulated: boolean;
  tokenIds?: string[];
  tokenIdsTruncated?: boolean;
  uiBalance?: string;
  decimals?: number;
  symbol?: string;
}

/** Who signs a launch or mint: the service with `privateKey`, or the caller, who sends the prepared transaction signed. */
export interface SigningFields {
  /** The sender's key; used to sign, never stored or logged. */
  privateKey?: string;
  /** The transaction `prepareLaunch`/`prepareMint` answered for this same request, signed by the sender. */
  signedTransaction?: string;
}

export interface LaunchRequest extends PairRequest, SigningFields {
  type: string;
  token: unknown;
  sender: string;
}

export interface MintRequest extends PairRequest, SigningFields {
  type: string;
  contractAddress: string;
  to: string;
  tokenId?: string | number;
  uri?: string;
  amount?: string | number;
  sender: string;
}

/** A launch or mint's request as prepared for the caller to sign: no key, no signature. */
export type Unsigned<T> = Omit<T, keyof SigningFields>;

export interface PrepareHooks {
  heldNonces?(): Promise<number[]>;
  /** Reserves the prepared transaction's nonce; answers when the reservation expires, or undefined when the nonce is taken. */
  reserve(transaction: TransactionLike): Promise<string | undefined>;
}

export interface PreparedTransactionResult {
  chain: string;
  network: string;
  type: TokenType;
  sender: string;
  transaction: TransactionLike;
  expiresAt: string;
  /** A launch's: where the token will be, given the prepared nonce. */
  contractAddress?: string;
}

export interface FaucetRequest extends PairRequest {
  address: string;
  /** Smallest units; default 10 of the native currency. */
  amount?: string | number;
}

export interface FaucetHooks {
  grantId?: string;
  beforeGrant?(grant: { chain: string; network: string; address: string; amount: string }): Promise<void>;
}

export interface FaucetResult {
  chain: string;
  network: string;
  address: string;
  amount: AmountPair;
  /** After the grant; Bitcoin's splits into confirmed and unconfirmed. */
  balance: AmountPair & Pick<BalanceEntry, "confirmed" | "unconfirmed">;
  simulated: boolean;
  transactionHash?: string;
}

export interface TransactionRequest extends PairRequest {
  transactionHash: string;
}

export interface NetworkSummary extends NetworkInfo {
  simulated: boolean;
  backend: string;
  endpoint: string;
}

export const MAX_ERC20_CONTRACTS_PER_READ = 50;

function liveNetworkFaucet(info: NetworkInfo, advice: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.LIVE_NETWORK_FAUCET,
    `${info.chain}/${info.network} is a live network: the faucet only serves simulated chains and bitcoin regtest; ${advice}`,
    { field: "network" },
  );
}

function parseTransactionHash(value: unknown): string {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw invalidArgument("transactionHash", "transactionHash must be a 0x-prefixed 32-byte hex string");
  }
  return value.toLowerCase();
}

/** Answers are frozen: one may be given to every equal read at one chain state, and no caller may change what others see. */
function frozenBalances(result: BalancesResult): BalancesResult {
  for (const entry of Object.values(result.balances)) Object.freeze(entry);
  Object.freeze(result.balances);
  return Object.freeze(result);
}

/**
 * The core every front door calls: Hardhat tasks, the programmatic API and the
 * HTTP service only parse input, call one of these methods, and format output.
 */
export class TokenService {
  readonly evm: EvmChains;
  /** Launch, mint and faucet with durable records, followed to a final state. */
  readonly operations: Operations;
  private readonly lock: SenderLock;
  private readonly bitcoin: BitcoinBackends;
  /** Released on close when this service made it (from `dataDir`). */
  private readonly ownDataDirectory: DataDirectory | undefined;
  /** By pair ("ethereum/sepolia"), once a read opened a chain that names its state. */
  private readonly sharedBalanceReads = new Map<string, SharedChainReads<BalancesResult>>();

  constructor(options: TokenServiceOptions) {
    this.ownDataDirectory =
      options.dataDirectory === undefined && options.dataDir !== undefined
        ? new DataDirectory(options.dataDir, "a token service (programmatic API)")
        : undefined;
    const dataDirectory = options.dataDirectory ?? this.ownDataDirectory;
    this.evm = new EvmChains({ ...options, ...(dataDirectory ? { dataDirectory } : {}) });
    this.lock = options.senderLock ?? new InProcessSenderLock();
    this.bitcoin = options.bitcoin ?? noBitcoinBackends;
    this.operations = new Operations(
      this,
      options.operationStore ?? new MemoryOperationStore(),
      { ...DEFAULT_TRACKER_SETTINGS, ...options.tracker },
      options.nonceReservationMs,
    );
  }

  networks(): NetworkSummary[] {
    return allNetworks().map((info) => {
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
    return createWallet(request);
  }

  /**
   * Where the chain names its state (simulated chains), equal balance reads at the same state share one answer, in
   * flight and after; a transaction, a faucet grant or a block moves the state on. Live nodes are asked every time.
   */
  async getBalances(request: BalancesRequest): Promise<BalancesResult> {
    const info = resolveNetwork(request.chain, request.network);
    const shared = this.sharedBalanceReads.get(`${info.chain}/${info.network}`);
    const contracts = request.erc20TokenContractAddresses ?? [];
    // Reads compare by their addresses as given (===): equal inputs, equal verdicts, a refusal included. A differently
    // written address is another read, with the same answer.
    if (shared !== undefined && typeof request.address === "string" && Array.isArray(contracts)) {
      return shared.read(request.address, contracts, () => this.readBalances(info, request).then(frozenBalances));
    }
    return this.readBalances(info, request).then(frozenBalances);
  }

  private async readBalances(info: NetworkInfo, request: BalancesRequest): Promise<BalancesResult> {
    const contracts = request.erc20TokenContractAddresses ?? [];
    if (info.kind === "bitcoin") {
      const address = parseBitcoinAddress(request.address, info.network, "address");
      if (contracts.length > 0)
        throw invalidArgument("erc20TokenContractAddresses", "erc20TokenContractAddresses applies to EVM chains only");
      const balance = await this.bitcoinBackend(info.network).getBalance(address);
      return { chain: info.chain, network: info.network, address, simulated: false, balances: { [info.nativeSymbol]: balance } };
    }
    const address = parseEvmAddress(request.address, "address");
    if (contracts.length > MAX_ERC20_CONTRACTS_PER_READ) {
      throw invalidArgument(
        "erc20TokenContractAddresses",
        `at most ${MAX_ERC20_CONTRACTS_PER_READ} contracts per read (got ${contracts.length})`,
      );
    }
    const tokenAddresses = [...new Set(contracts.map((value, index) => parseEvmAddress(value, `erc20TokenContractAddresses[${index}]`)))];
    const chain = await this.evmChain(info, "balance read");
    const pair = `${info.chain}/${info.network}`;
    if (!this.sharedBalanceReads.has(pair)) {
      const shared = SharedChainReads.of<BalancesResult>(chain);
      if (shared !== undefined) this.sharedBalanceReads.set(pair, shared);
    }
    const { native, tokens } = await readBalances(chain, address, tokenAddresses);
    const balances: Record<string, BalanceEntry> = { [info.nativeSymbol]: native };
    const symbolCounts = new Map<string, number>();
    for (const token of tokens) symbolCounts.set(token.symbol, (symbolCounts.get(token.symbol) ?? 0) + 1);
    for (const token of tokens) {
      // Two tokens sharing a symbol (or one named like the native currency) are keyed by contract address instead.
      const key = symbolCounts.get(token.symbol) === 1 && token.symbol !== info.nativeSymbol ? token.symbol : token.contractAddress;
      balances[key] = {
        balance: token.balance,
        uiBalance: token.uiBalance,
        contractAddress: token.contractAddress,
        decimals: token.decimals,
        symbol: token.symbol,
      };
    }
    return { chain: info.chain, network: info.network, address, simulated: chain.simulated, balances };
  }

  async getTokenBalance(request: TokenBalanceRequest): Promise<TokenBalanceResult> {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "token balance read");
    const address = parseEvmAddress(request.address, "address");
    const tokenAddress = parseEvmAddress(request.tokenAddress, "tokenAddress");
    const type = parseTokenType(request.type);
    const chain = await this.evmChain(info, "token balance read");
    const base = { chain: info.chain, network: info.network, address, tokenAddress, simulated: chain.simulated };
    if (type === "ERC721") {
      const balance = await readErc721Balance(chain, address, tokenAddress);
      return { ...base, type: "erc721", ...balance };
    }
    const {
      tokens: [token],
    } = await readBalances(chain, address, [tokenAddress], "tokenAddress");
    return {
      ...base,
      type: "erc20",
      balance: token!.balance,
      uiBalance: token!.uiBalance,
      decimals: token!.decimals,
      symbol: token!.symbol,
    };
  }

  /** Validates everything before any network call, then deploys; resolves once the node accepted the transaction. */
  async launchToken(request: LaunchRequest, hooks: LaunchHooks = {}): Promise<LaunchResult> {
    const { info, sender, params } = this.launchPlan(request);
    const signing = this.signing(request, sender);
    const chain = await this.evmChain(info, "token launch");
    return launchToken(chain, this.lock, sender, signing, params, hooks);
  }

  /** The deployment `launchToken` would send, for the sender to sign, with its nonce reserved through `hooks`. */
  async prepareLaunch(request: Unsigned<LaunchRequest>, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { info, sender, params } = this.launchPlan(request);
    const chain = await this.evmChain(info, "token launch");
    const prepared = await prepareLaunch(chain, this.lock, sender, params, hooks);
    return { chain: info.chain, network: info.network, type: params.type, sender, ...prepared };
  }

  async mintToken(request: MintRequest, hooks: BroadcastHooks = {}): Promise<MintResult> {
    const { info, sender, params } = this.mintPlan(request);
    const signing = this.signing(request, sender);
    const chain = await this.evmChain(info, "mint");
    return mintToken(chain, this.lock, sender, signing, params, hooks);
  }

  /** The mint `mintToken` would send, for the sender to sign, with its nonce reserved through `hooks`. */
  async prepareMint(request: Unsigned<MintRequest>, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { info, sender, params } = this.mintPlan(request);
    const chain = await this.evmChain(info, "mint");
    const prepared = await prepareMint(chain, this.lock, sender, params, hooks);
    return { chain: info.chain, network: info.network, type: params.type, sender, ...prepared };
  }

  private launchPlan(request: Unsigned<LaunchRequest>): { info: EvmNetworkInfo; sender: string; params: LaunchParams } {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "token launch");
    const type = parseTokenType(request.type);
    const sender = parseEvmAddress(request.sender, "sender");
    const params: LaunchParams =
      type === "ERC20" ? { type, token: parseErc20Params(request.token, sender) } : { type, token: parseErc721Params(request.token) };
    return { info, sender, params };
  }

  private mintPlan(request: Unsigned<MintRequest>): { info: EvmNetworkInfo; sender: string; params: MintParams } {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "mint");
    const type = parseTokenType(request.type);
    const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
    const to = parseEvmAddress(request.to, "to");
    const sender = parseEvmAddress(request.sender, "sender");
    let params: MintParams;
    if (type === "ERC20") {
      if (request.tokenId !== undefined || request.uri !== undefined) {
        throw invalidArgument(request.tokenId !== undefined ? "tokenId" : "uri", "tokenId and uri apply to ERC721 mints only");
      }
      if (request.amount === undefined)
        throw invalidArgument("amount", "amount is required for an ERC20 mint (smallest units, decimal string)");
      params = { type, contractAddress, to, amount: parseUint256(request.amount, "amount") };
    } else {
      if (request.amount !== undefined)
        throw invalidArgument("amount", "amount applies to ERC20 mints only; an ERC721 mint creates one token");
      if (request.uri !== undefined && typeof request.uri !== "string") throw invalidArgument("uri", "uri must be a string");
      params = {
        type,
        contractAddress,
        to,
        ...(request.tokenId !== undefined ? { tokenId: parseUint256(request.tokenId, "tokenId") } : {}),
        ...(request.uri ? { uri: request.uri } : {}),
      };
    }
    return { info, sender, params };
  }

  /** The caller's key (checked to derive the sender), or the transaction the caller signed (checked when sent). */
  private signing(request: SigningFields, sender: string): Signing {
    if (request.signedTransaction !== undefined) {
      if (request.privateKey !== undefined)
        throw invalidArgument("signedTransaction", "give privateKey or signedTransaction, not both (a signed transaction needs no key)");
      return { signedTransaction: request.signedTransaction };
    }
    return { privateKey: assertKeyDerivesSender(request.privateKey, sender) };
  }

  /** The ERC721 token id a mined mint produced. */
  async mintedTokenId(request: TransactionRequest & { contractAddress: string }): Promise<string | undefined> {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "mint");
    const receipt = await getReceipt(await this.evmChain(info, "mint"), parseTransactionHash(request.transactionHash));
    return receipt === null ? undefined : mintedTokenId(receipt, request.contractAddress);
  }

  /**
   * `hooks.beforeGrant` runs once the request is checked, before a simulated chain's balance changes (the place to
   * write a durable record); `hooks.grantId` names the grant in the chain's journal, so a record can be settled later.
   */
  async faucet(request: FaucetRequest, hooks: FaucetHooks = {}): Promise<FaucetResult> {
    const info = resolveNetwork(request.chain, request.network);
    const defaultAmount = 10n * 10n ** BigInt(info.nativeDecimals);
    const amount = request.amount === undefined || request.amount === "" ? defaultAmount : parseUint256(request.amount, "amount");
    if (amount === 0n) throw invalidArgument("amount", "amount must be greater than 0");
    if (info.kind === "bitcoin") {
      const address = parseBitcoinAddress(request.address, info.network, "address");
      if (info.network !== "regtest") throw liveNetworkFaucet(info, "fund the address with a real transfer");
      const backend = this.bitcoinBackend(info.network);
      if (backend.fund === undefined) throw liveNetworkFaucet(info, "the regtest faucet needs a bitcoind backend");
      const { transactionHash } = await backend.fund(address, amount);
      const balance = await backend.getBalance(address);
      return {
        chain: info.chain,
        network: info.network,
        address,
        amount: amountPair(amount, info.nativeDecimals),
        balance,
        simulated: false,
        transactionHash,
      };
    }
    const address = parseEvmAddress(request.address, "address");
    // Checked before connecting: a live node that is down should still get the faucet's answer.
    if (!this.evm.isSimulated(info)) throw liveNetworkFaucet(info, "fund the address with a real transfer");
    const chain = await this.evmChain(requireEvm(info, "faucet"), "faucet");
    if (chain.fund === undefined) throw liveNetworkFaucet(info, "fund the address with a real transfer");
    const fund = chain.fund.bind(chain);
    // Read and raised under one lock, so that two grants to one address cannot both pass the check.
    const balance = await this.lock.withLock(`faucet:${chain.info.chainId}:${address.toLowerCase()}`, async () => {
      const current = await chain.provider.getBalance(address);
      const room = (1n << 256n) - 1n - current;
      if (amount > room) {
        throw invalidArgument("amount", `a balance is a uint256: ${address} holds ${current} and can receive at most ${room} more`, {
          available: room.toString(),
        });
      }
      await hooks.beforeGrant?.({ chain: info.chain, network: info.network, address, amount: amount.toString() });
      return fund(address, amount, hooks.grantId);
    });
    return {
      chain: info.chain,
      network: info.network,
      address,
      amount: amountPair(amount, info.nativeDecimals),
      balance: amountPair(balance, info.nativeDecimals),
      simulated: chain.simulated,
    };
  }

  /**
   * What the node says of a transaction. One it does not know, but a recorded operation sent (signed before a
   * crash, lost from the pool, undone by a reorg), answers with its record's state instead of TRANSACTION_NOT_FOUND.
   */
  async getTransaction(request: TransactionRequest): Promise<TransactionStatus> {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "transaction lookup");
    const hash = parseTransactionHash(request.transactionHash);
    const chain = await this.evmChain(info, "transaction lookup");
    try {
      return await getTransactionStatus(chain, hash);
    } catch (error) {
      if (!isTokenServiceError(error, ErrorCode.TRANSACTION_NOT_FOUND)) throw error;
      const record = await this.operations.store.findByTransactionHash(info.chain, info.network, hash);
      if (record === undefined) throw error;
      const status = record.status === "failed" || record.status === "dropped" ? record.status : "pending";
      return { transactionHash: hash, status, blockNumber: null, confirmations: 0, contractAddress: null, simulated: chain.simulated };
    }
  }

  /** Resolves when mined, or with status "pending" once `timeoutMs` passed or `signal` aborted. */
  async waitForTransaction(request: TransactionRequest & { timeoutMs?: number; signal?: AbortSignal }): Promise<TransactionStatus> {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "transaction lookup");
    const chain = await this.evmChain(info, "transaction lookup");
    return waitForTransaction(chain, parseTransactionHash(request.transactionHash), request.timeoutMs ?? 120_000, request.signal);
  }

  /**
   * Probes a network's own Bitcoin Core node. Public Esplora defaults are not
   * probed: a health check should not send traffic to a third party.
   */
  async pingBitcoin(network: string): Promise<"ready" | "not probed"> {
    const backend = this.bitcoinBackend(network);
    if (backend.kind !== "bitcoind" || backend.ping === undefined) return "not probed";
    await backend.ping();
    return "ready";
  }

  /** Opens (or reuses) the chain connection for a pair. */
  evmChain(info: NetworkInfo, operation: string): Promise<EvmChain> {
    return this.evm.get(requireEvm(info, operation));
  }

  async close(): Promise<void> {
    await this.operations.stop();
    await Promise.all([this.evm.close(), this.bitcoin.close()]);
    this.ownDataDirectory?.release();
  }

  private bitcoinBackend(network: string) {
    const backend = this.bitcoin.get(network);
    if (backend === undefined) {
      throw new TokenServiceError(
        ErrorCode.BACKEND_NOT_CONFIGURED,
        `no backend configured for bitcoin/${network}: set ${this.bitcoin.configurationHint(network)}`,
        { field: "network" },
      );
    }
    return backend;
  }
}

export type { TokenType };
