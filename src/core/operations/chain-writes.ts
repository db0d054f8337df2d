import { FirstUseCompiler } from "../../chains/evm/variants/first-use-compiler.js";
import { parseEvmAddress } from "../../domain/addresses.js";
import { parseBitcoinAddress } from "../../chains/bitcoin/addresses.js";
import { requireEvm, type ChainRegistry, type NetworkInfo } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { requireBitcoinBackend, type BitcoinBackends } from "../../chains/bitcoin/backend.js";
import { transactionsCanWait, type EvmChain } from "../../chains/evm/chain.js";
import type { EvmChains } from "../../chains/evm/chains-registry.js";
import type { Signing } from "../../domain/commands.js";
import { prepareTransaction, sendTransaction } from "../../chains/evm/write/send-transaction.js";
import type { BroadcastHooks, FeeRules, TransactionSigner } from "../../chains/evm/write/send-types.js";
import { formatGwei, maxFeeOf, type Fees } from "../../domain/fee-ladder.js";
import { policyDenied } from "../../domain/wallet-policy.js";
import { FeePolicy } from "./fee-policy.js";
import type { WriteIntent } from "./intents.js";
import { senderLockKey, type SenderLock } from "../../chains/evm/sender-lock.js";
import { amountPair, parseUint256 } from "../../domain/units.js";
import { belowOneGwei, withWarnings } from "../../domain/amount-echo.js";
import type { FaucetHooks, FaucetRequest, FaucetResult, PrepareHooks, PreparedTransactionResult } from "../../domain/requests.js";

/** A held wallet's policy ceiling on fees (`maxFeePerGas`), checked before it signs. */
export function assertUnderPolicyFee(signer: TransactionSigner | undefined, fees: Fees): void {
  const ceiling = signer?.maxFeePerGas;
  if (ceiling === undefined || maxFeeOf(fees) <= ceiling) return;
  throw policyDenied(signer!.address, {
    rule: "maxFeePerGas",
    reason: `it would pay ${formatGwei(maxFeeOf(fees))} gwei per gas, over the ${formatGwei(ceiling)} gwei it may`,
  });
}

/** Who signs a write: the key in the request, the caller (a signed transaction), or a held wallet's signer. */
export type WriteSigning = Signing | { signer: TransactionSigner };

function liveNetworkFaucet(info: NetworkInfo, advice: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.LIVE_NETWORK_FAUCET,
    `${info.chain}/${info.network} is a live network: the faucet only serves simulated chains and bitcoin regtest; ${advice}`,
    { field: "network" },
  );
}

/** Runs the intent's checks before signing; the transaction to sign, with the data the checks chose where they did. */
async function checkedTransaction(intent: WriteIntent<unknown>, chain: EvmChain) {
  const checked = await intent.preflight?.(chain);
  const data = checked?.data ?? intent.transaction.data;
  if (data === undefined) throw new Error(`the ${intent.kind} intent names no call data`);
  return { ...intent.transaction, data };
}

/**
 * The chain side of every write: sign a parsed command (or check the caller's signature) and send it, with hooks for
 * the recorder. Not public: every door writes through `Operations`, which records each write before it is broadcast.
 */
export class ChainWrites {
  constructor(
    private readonly evm: EvmChains,
    private readonly lock: SenderLock,
    private readonly bitcoin: BitcoinBackends,
    /** Each pair's fee ceiling and replace-after blocks. */
    readonly feePolicy: FeePolicy = new FeePolicy(),
    /** Compiles the token variants the build does not ship, on their first launch. */
    readonly variants: FirstUseCompiler = new FirstUseCompiler(),
  ) {}

  /** The Bitcoin backends, for sends from held wallets. */
  get bitcoinBackends(): BitcoinBackends {
    return this.bitcoin;
  }

  /** The lock every send takes, shared by replicas where the store provides it. */
  get senderLock(): SenderLock {
    return this.lock;
  }

  /** The service's chains, where requests and records name their pair. */
  get chains(): ChainRegistry {
    return this.evm.chains;
  }

  /** Checks, signs (or takes the caller's signature) and sends an intent; resolves once the node accepted it. */
  async send<Answer>(intent: WriteIntent<Answer>, signing: WriteSigning, hooks: BroadcastHooks): Promise<Answer> {
    const { pair, sender } = intent.command;
    const chain = await this.evmChain(pair, intent.kind === "launch" ? "token launch" : intent.kind);
    const transaction = await checkedTransaction(intent, chain);
    const feeRules = this.feeRules(chain, "privateKey" in signing, "signer" in signing ? signing.signer : undefined);
    const sent = await sendTransaction(chain, this.lock, { sender, ...signing, ...transaction, feeRules }, hooks);
    return intent.answer(sent, chain);
  }

  /**
   * The pair's fee ceiling, checked before signing; and, for a send whose key is at hand on a chain where a transaction
   * can wait unmined, its fee ladder and cancel signed ahead (a simulated chain without faults has none).
   */
  feeRules(chain: EvmChain, keyAtHand: boolean, signer?: TransactionSigner): FeeRules {
    const cap = this.feePolicy.capOf(chain.info);
    return {
      check: (fees) => {
        this.feePolicy.assertUnderCap(chain.info, maxFeeOf(fees), "the fee a transaction needs now is");
        assertUnderPolicyFee(signer, fees);
      },
      cap: cap?.wei,
      signAhead: keyAtHand && transactionsCanWait(chain),
    };
  }

  /** The transaction `send` would sign, for the sender to sign instead, with its nonce reserved through `hooks`. */
  async prepare(intent: WriteIntent<unknown>, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { pair, sender } = intent.command;
    const chain = await this.evmChain(pair, intent.kind === "launch" ? "token launch" : intent.kind);
    const checked = await checkedTransaction(intent, chain);
    const feeRules = this.feeRules(chain, false);
    const { transaction, expiresAt } = await prepareTransaction(chain, this.lock, { sender, ...checked, feeRules }, hooks);
    const { contractAddress, tokenType } = intent.record(Number(transaction.nonce));
    return {
      chain: pair.chain,
      network: pair.network,
      ...(tokenType !== null ? { type: tokenType as PreparedTransactionResult["type"] } : {}),
      sender,
      transaction,
      expiresAt,
      ...(intent.kind === "launch" && contractAddress !== null ? { contractAddress } : {}),
    };
  }

  /**
   * `hooks.beforeGrant` runs once the request is checked, before a simulated chain's balance changes (the place to
   * write a durable record); `hooks.grantId` names the grant in the chain's journal, so a record can be settled later.
   */
  async faucet(request: FaucetRequest, hooks: FaucetHooks = {}): Promise<FaucetResult> {
    const info = this.chains.resolve(request.chain, request.network);
    const defaultAmount = 10n * 10n ** BigInt(info.nativeDecimals);
    const amount = request.amount === undefined || request.amount === "" ? defaultAmount : parseUint256(request.amount, "amount");
    if (amount === 0n) throw invalidArgument("amount", "amount must be greater than 0");
    if (info.kind === "bitcoin") {
      const address = parseBitcoinAddress(request.address, info.network, "address");
      if (info.network !== "regtest") throw liveNetworkFaucet(info, "fund the address with a real transfer");
      const backend = requireBitcoinBackend(this.bitcoin, info.network);
      if (backend.fund === undefined) throw liveNetworkFaucet(info, "the regtest faucet needs a bitcoind backend");
      const { transactionHash } = await backend.fund(address, amount);
      const balance = await backend.getBalance(address);
      return {
        chain: info.chain,
        network: info.network,
        address,
        amount: amountPair(amount, info.nativeDecimals),
        decimals: info.nativeDecimals,
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
    // A grant below 1 gwei is most often wei meant as ETH ("5"): granted as asked, with a warning.
    return withWarnings(
      {
        chain: info.chain,
        network: info.network,
        address,
        amount: amountPair(amount, info.nativeDecimals),
        decimals: info.nativeDecimals,
        balance: amountPair(balance, info.nativeDecimals),
        simulated: chain.simulated,
      },
      [belowOneGwei(amount, info.nativeDecimals, "amount", info.nativeSymbol)],
    );
  }

  /** Runs `work` holding the sender's nonce lock on `chain`, the one every send from it takes. */
  withSenderLock<T>(chain: EvmChain, sender: string, work: () => Promise<T>): Promise<T> {
    return this.lock.withLock(senderLockKey(chain.info.chainId, sender), work);
  }

  /** Whether a pair is simulated in this process (no endpoint configured for it). */
  isSimulated(info: NetworkInfo): boolean {
    return this.evm.isSimulated(info);
  }

  /** Opens (or reuses) the chain connection for a pair. */
  evmChain(info: NetworkInfo, operation: string): Promise<EvmChain> {
    return this.evm.get(requireEvm(info, operation));
  }
}
