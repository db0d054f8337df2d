import { requireBitcoinBackend, type BitcoinBackend, type BitcoinBackends } from "../../chains/bitcoin/backend.js";
import type { BitcoinSigner } from "../../chains/bitcoin/bitcoin-signer.js";
import { broadcastOutcome } from "../../chains/bitcoin/broadcast-refusals.js";
import {
  buildCancel,
  buildReplacement,
  DEFAULT_INCREMENTAL_RELAY_FEE_RATE,
  type PreviousBitcoinSend,
  type SignedBitcoinSend,
} from "../../chains/bitcoin/psbt-send.js";
import type { SenderLock } from "../../chains/evm/sender-lock.js";
import { ErrorCode, TokenServiceError, invalidArgument, isTokenServiceError } from "../../domain/errors.js";
import {
  isFinal,
  type BitcoinSpend,
  type OperationRecord,
  type OperationTransaction,
  type TransactionRole,
} from "../../domain/lifecycle.js";
import type { HeldWallets } from "./held-writes.js";
import type { ReplacementKind } from "./replacements.js";
import type { NewOperationTransaction, OperationStore } from "./types.js";

// Speed-up and cancel of a Bitcoin send from a held wallet: BIP 125 replacements (docs/decisions/0055). A speed-up
// spends the same coins to the same payment at a higher fee rate, the fee taken from the change (confirmed coins added
// when the change cannot pay it); a cancel spends the same coins back to the sender. Each is written as one of the
// record's transactions before its broadcast, as an EVM replacement is, and the tracker settles the record by whichever
// of them a block holds: a cancel mined ends it `cancelled`.

/** The most a caller may ask per vbyte: bitcoind's default maxfeerate. */
export const MAX_FEE_RATE = 10_000;

/** How often a Bitcoin record is looked at: blocks come every ten minutes, regtest's when told. */
export const BITCOIN_POLL_MS = 1_000;

/** A `feeRate` from a request (sat/vB, 1 to 10,000), or undefined when none was given. */
export function parseFeeRate(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const rate = typeof value === "string" ? Number(value) : value;
  if (typeof rate !== "number" || !Number.isFinite(rate) || rate < 1 || rate > MAX_FEE_RATE) {
    throw invalidArgument("feeRate", `feeRate must be a number of sat/vB from 1 to ${MAX_FEE_RATE}`);
  }
  return rate;
}

/** How a signed send is kept with its record: its coins, fee and outputs, satoshis as decimal strings. */
export function spendOf(built: SignedBitcoinSend): BitcoinSpend {
  const output = (found: { address: string; value: bigint; vout: number } | undefined) =>
    found === undefined ? null : { address: found.address, value: found.value.toString(), vout: found.vout };
  return {
    fee: built.fee.toString(),
    vsize: built.vsize,
    feeRate: built.feeRate,
    inputs: built.inputs.map((input) => ({ txid: input.txid, vout: input.vout, value: input.value.toString() })),
    payment: output(built.payment),
    change: output(built.change),
  };
}

/**
 * How one of a record's Bitcoin transactions is stored: its coins and fee in `bitcoin`, no fees per gas, and nonce 0
 * (Bitcoin has none: a replacement conflicts with it by spending its coins). `rawTransaction` null: the record's own.
 */
export function bitcoinTransactionRow(
  built: SignedBitcoinSend,
  role: TransactionRole,
  rung: number,
  rawTransaction: string | null,
): NewOperationTransaction {
  return {
    transactionHash: built.txid,
    role,
    rung,
    nonce: 0,
    rawTransaction,
    signature: null,
    maxFeePerGas: null,
    maxPriorityFeePerGas: null,
    gasPrice: null,
    bitcoin: spendOf(built),
    broadcast: true,
  };
}

function previousOf(txid: string, spend: BitcoinSpend): PreviousBitcoinSend {
  return {
    txid,
    fee: BigInt(spend.fee),
    vsize: spend.vsize,
    inputs: spend.inputs.map((input) => ({ txid: input.txid, vout: input.vout, value: BigInt(input.value) })),
    ...(spend.payment === null ? {} : { payment: { ...spend.payment, value: BigInt(spend.payment.value) } }),
  };
}

/** The transaction a Bitcoin record follows now, with its spend; undefined for a record made before spends were kept. */
export function followedTransaction(record: OperationRecord): (OperationTransaction & { bitcoin: BitcoinSpend }) | undefined {
  const hash = record.transactionHash?.toLowerCase();
  const found = record.transactions.find((transaction) => transaction.transactionHash === hash);
  return found?.bitcoin === undefined ? undefined : (found as OperationTransaction & { bitcoin: BitcoinSpend });
}

export class BitcoinReplacements {
  constructor(
    private readonly store: OperationStore,
    private readonly backends: BitcoinBackends,
    private readonly lock: SenderLock,
    private readonly held: HeldWallets | undefined,
    /** Told once a replacement was sent, so the tracker looks at the record soon. */
    private readonly onSent: (id: string) => void,
  ) {}

  /**
   * Replaces the transaction the Bitcoin record `first` (as the caller read it) follows: a speed-up at `feeRate` (default: the backend's next-block rate,
   * at least what BIP 125 asks above the current one), or a cancel. Under the wallet's lock, as its sends are: a send
   * choosing coins meanwhile would see the replaced change as spent, then not.
   */
  async replace(first: OperationRecord, kind: ReplacementKind, asked: number | undefined): Promise<OperationRecord> {
    const id = first.id;
    return this.lock.withLock(`bitcoin:${first.network}:${first.sender}`, async () => {
      // Read again under the lock: another speed-up may have gone first.
      const record = (await this.store.getOperation(id)) ?? first;
      const verb = kind === "cancel" ? "cancel" : "speed up";
      assertReplaceable(record, verb);
      const current = followedTransaction(record);
      if (current === undefined) {
        throw new TokenServiceError(
          ErrorCode.UNSUPPORTED_OPERATION,
          `operation ${id} was sent before the service kept the coins of its Bitcoin transactions: there is nothing it can ${verb}`,
        );
      }
      const signer = await this.held?.bitcoinSignerFor("operator", record.network, record.sender!);
      if (signer === undefined) {
        throw new TokenServiceError(
          ErrorCode.UNSUPPORTED_OPERATION,
          `${record.sender} is no longer a held wallet: the service cannot sign a replacement`,
        );
      }
      const backend = requireBitcoinBackend(this.backends, record.network);
      const built = await this.build(record, current, kind, asked, signer, backend);
      return this.send(record, current, kind, built, backend);
    });
  }

  private async build(
    record: OperationRecord,
    current: OperationTransaction & { bitcoin: BitcoinSpend },
    kind: ReplacementKind,
    asked: number | undefined,
    signer: BitcoinSigner,
    backend: BitcoinBackend,
  ): Promise<SignedBitcoinSend> {
    const [status, coins, estimate] = await Promise.all([
      backend.transactionStatus(current.transactionHash),
      backend.listUnspent(record.sender!),
      asked === undefined ? backend.feeRate(1) : Promise.resolve(asked),
    ]);
    if (status.state === "confirmed") {
      throw new TokenServiceError(
        ErrorCode.OPERATION_FINAL,
        `operation ${record.id}'s transaction ${current.transactionHash} is in block ${status.blockHeight}: it can no longer be replaced`,
        { details: { status: record.status, transactionHash: current.transactionHash } },
      );
    }
    if (status.state === "mempool") {
      // An output the backend no longer lists as unspent is spent by a mempool transaction, which the replacement evicts.
      for (const output of [current.bitcoin.change, current.bitcoin.payment]) {
        if (output === null) continue;
        const listed = coins.some((coin) => coin.txid === current.transactionHash && coin.vout === output.vout);
        if (!listed && output.address === record.sender) {
          throw new TokenServiceError(
            ErrorCode.OUTPUT_SPENT,
            `a later transaction, still unconfirmed, spends ${current.transactionHash}:${output.vout}: replacing it would evict that one; speed up the later send instead (a child's fee pays for its parent)`,
            { details: { output: `${current.transactionHash}:${output.vout}` } },
          );
        }
      }
    }
    const previous = previousOf(current.transactionHash, current.bitcoin);
    // Unasked: the next-block estimate, or the least above the current rate that BIP 125 takes, whichever is higher.
    const feeRate = asked ?? Math.min(MAX_FEE_RATE, Math.max(estimate, current.bitcoin.feeRate + DEFAULT_INCREMENTAL_RELAY_FEE_RATE));
    const sender = { network: record.network, signer, addressType: "p2wpkh" as const, address: record.sender! };
    if (kind === "cancel" || previous.payment === undefined) return buildCancel({ sender, previous, feeRate });
    return buildReplacement({ sender, previous, feeRate, coins });
  }

  /** Writes the replacement as sent, broadcasts it, and has the record follow it; a refusal is the caller's answer. */
  private async send(
    record: OperationRecord,
    current: OperationTransaction,
    kind: ReplacementKind,
    built: SignedBitcoinSend,
    backend: BitcoinBackend,
  ): Promise<OperationRecord> {
    const cancel = kind === "cancel" || current.role === "cancel";
    const rung = Math.max(...record.transactions.map((each) => each.rung)) + 1;
    await this.store.recordTransaction(record.id, bitcoinTransactionRow(built, cancel ? "cancel" : "replacement", rung, built.hex));
    try {
      await backend.broadcast(built.hex);
    } catch (error) {
      // Refused for good (a fee the node finds too low, a coin spent meanwhile): the record follows what it followed.
      // No answer: the node may have it; the tracker follows whichever of the record's transactions it holds.
      if (isTokenServiceError(error) && error.code === ErrorCode.TRANSACTION_REJECTED && broadcastOutcome(error)?.kind === "final")
        throw error;
      this.onSent(record.id);
      return (await this.store.getOperation(record.id)) ?? record;
    }
    const rate = `${built.feeRate} sat/vB, fee ${built.fee} sat`;
    await this.store.changeOperation(record.id, {
      status: "pending",
      from: ["signed", "pending"],
      reason: cancel
        ? `cancel sent: ${built.txid} (the same coins back to the sender, ${rate}) in place of ${current.transactionHash}`
        : `sped up: replaced by ${built.txid} (${rate})`,
      transactionHash: built.txid,
      stuck: null,
      missingSince: null,
      checkInMs: BITCOIN_POLL_MS,
    });
    this.onSent(record.id);
    return (await this.store.getOperation(record.id)) ?? record;
  }
}

function assertReplaceable(record: OperationRecord, verb: string): void {
  if (isFinal(record.status)) {
    throw new TokenServiceError(ErrorCode.OPERATION_FINAL, `operation ${record.id} is ${record.status}: there is nothing to ${verb}`, {
      details: { status: record.status, transactionHash: record.transactionHash },
    });
  }
  if (record.sender === null || record.transactionHash === null) {
    throw new TokenServiceError(ErrorCode.UNSUPPORTED_OPERATION, `operation ${record.id} has no transaction of its own to ${verb}`);
  }
}
