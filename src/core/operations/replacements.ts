import { Transaction, getAddress, type TransactionLike } from "ethers";

import type { EvmChain } from "../../chains/evm/chain.js";
import { translateProviderError } from "../../chains/evm/provider-errors.js";
import { cancelGas, PLAIN_TRANSFER_GAS } from "../../chains/evm/write/estimates.js";
import { feeFields, feesOfFeeData, feesOfTransaction } from "../../chains/evm/write/transaction-fields.js";
import { parseSignedTransaction, toPreparedTransaction, type PreparedTransaction } from "../../chains/evm/write/signed-transaction.js";
import type { TransactionSigner } from "../../chains/evm/write/send-types.js";
import { storedRawTransaction } from "./stored-transactions.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { ceilingOf, formatGwei, isReplacementOf, maxFeeOf, nextStep, replacementFees, type Fees } from "../../domain/fee-ladder.js";
import { isFinal, type OperationTransaction, type TransactionRole } from "../../domain/lifecycle.js";
import { currentTransaction, feesOf } from "./decide.js";
import { assertUnderPolicyFee } from "./chain-writes.js";
import { feeCapExceeded, type FeePolicy } from "./fee-policy.js";
import { isAlreadyKnown, isTransient } from "./tracker-sends.js";
import type { NewOperationTransaction, OperationRecord, OperationStore } from "./types.js";

/** Speed-up: the same call at the same nonce with higher fees; cancel: a zero-value transfer to the sender in its place. */
export type ReplacementKind = "speed-up" | "cancel";

export interface ReplacementRequest {
  /**
   * The replacement the caller signed, as prepared (a caller-signed send's speed-up or cancel): checked to be the same
   * call (or a cancel) at the operation's nonce, from its sender, with fees raised enough, under the ceiling.
   */
  signedTransaction?: string;
  /** A Bitcoin operation's replacement rate, sat/vB (default: the backend's next-block estimate); EVM replacements take none. */
  feeRate?: number;
}

/** A replacement prepared for the caller to sign: submit it signed (`signedTransaction`) to the same route. */
export interface PreparedReplacement {
  operationId: string;
  chain: string;
  network: string;
  sender: string;
  /** What it is: the same call with higher fees, or the cancel. */
  replacement: ReplacementKind;
  /** The transaction it replaces: the one the operation follows now. */
  replaces: string;
  unsignedTransaction: PreparedTransaction;
  /** The operation's fee ceiling (wei): no replacement may pay more per gas. */
  ceiling: string;
}

export type ReplacementOutcome = { sent: OperationRecord } | { prepared: PreparedReplacement };

interface Followed {
  record: OperationRecord & { sender: string; nonce: number; transactionHash: string };
  chain: EvmChain;
  /** The transaction it follows now, and the first one it was sent as (parsed from their raw forms where no row has them). */
  current: { transactionHash: string; fees: Fees; rung: number; role: TransactionRole };
  original: Transaction;
  ceiling: bigint;
}

/**
 * Speeds up or cancels an unfinished operation: with the step its send signed ahead (a key-in-body send), or, where none
 * is left, by preparing the replacement for the caller to sign and taking it back signed — the prepare and submit of
 * a launch. Each replacement is written as sent before it is broadcast, as the record of a send is.
 */
export class Replacements {
  constructor(
    private readonly store: OperationStore,
    private readonly feePolicy: FeePolicy,
    private readonly chainOf: (record: OperationRecord) => Promise<EvmChain>,
    /** Told once a replacement was sent, so the tracker looks at the record soon. */
    private readonly onSent: (id: string) => void,
    /** The signer of a record's sender when the service holds its key (a held wallet): replacements are signed now. */
    private readonly heldSignerOf: (record: OperationRecord) => Promise<TransactionSigner | undefined> = async () => undefined,
    /** A Bitcoin operation's speed-up or cancel: a BIP 125 replacement its held wallet signs (bitcoin-replacements.ts). */
    private readonly bitcoin?: (record: OperationRecord, kind: ReplacementKind, feeRate: number | undefined) => Promise<OperationRecord>,
  ) {}

  async replace(id: string, kind: ReplacementKind, request: ReplacementRequest = {}): Promise<ReplacementOutcome> {
    const record = await this.store.getOperation(id);
    if (record?.chain === "bitcoin" && this.bitcoin !== undefined) {
      if (request.signedTransaction !== undefined) {
        throw invalidArgument("signedTransaction", "a Bitcoin operation is sent from a held wallet: the service signs its replacement");
      }
      return { sent: await this.bitcoin(record, kind, request.feeRate) };
    }
    if (request.feeRate !== undefined) {
      throw invalidArgument("feeRate", "feeRate (sat/vB) is for Bitcoin operations: an EVM replacement pays what the node asks");
    }
    const followed = await this.followed(id, kind, record);
    if (request.signedTransaction !== undefined) return { sent: await this.submit(followed, kind, request.signedTransaction) };
    const needed = await this.needed(followed.chain);
    const ahead = this.signedAhead(followed, kind, needed);
    if (ahead !== undefined) return { sent: await this.sendAhead(followed, kind, ahead) };
    // A held wallet signs its replacement when it is needed, at what the node asks now; checked as a caller's would be.
    const signer = await this.heldSignerOf(followed.record);
    if (signer !== undefined) {
      const unsigned = await this.unsignedReplacement(followed, kind, needed);
      assertUnderPolicyFee(signer, feesOfTransaction(Transaction.from(unsigned)));
      const { raw } = await signer.signTransaction(unsigned);
      return { sent: await this.submit(followed, kind, raw) };
    }
    return { prepared: await this.prepare(followed, kind, needed) };
  }

  /** The operation, checked to be one that can be replaced, with what its replacements are measured against. */
  private async followed(id: string, kind: ReplacementKind, record: OperationRecord | undefined): Promise<Followed> {
    if (record === undefined) throw new TokenServiceError(ErrorCode.OPERATION_NOT_FOUND, `no operation ${id}`, { field: "id" });
    const verb = kind === "cancel" ? "cancel" : "speed up";
    if (isFinal(record.status)) {
      throw new TokenServiceError(ErrorCode.OPERATION_FINAL, `operation ${id} is ${record.status}: there is nothing to ${verb}`, {
        details: { status: record.status, transactionHash: record.transactionHash },
      });
    }
    if (
      record.kind === "faucet" ||
      record.sender === null ||
      record.nonce === null ||
      record.transactionHash === null ||
      record.rawTransaction === null
    ) {
      throw new TokenServiceError(
        ErrorCode.UNSUPPORTED_OPERATION,
        `operation ${id} is a ${record.kind} with no transaction of its own to ${verb}`,
      );
    }
    const chain = await this.chainOf(record);
    const original = Transaction.from(record.rawTransaction);
    const stored = currentTransaction(record);
    const current = stored
      ? { transactionHash: stored.transactionHash, fees: feesOf(stored), rung: stored.rung, role: stored.role }
      : { transactionHash: record.transactionHash.toLowerCase(), fees: feesOfTransaction(original), rung: 0, role: "original" as const };
    const first = record.transactions.find((transaction) => transaction.role === "original");
    const ceiling = ceilingOf(first ? feesOf(first) : feesOfTransaction(original), this.feePolicy.capOf(record)?.wei);
    return { record: record as Followed["record"], chain, current, original, ceiling };
  }

  /** What the node's fee data asks of a transaction now. */
  private async needed(chain: EvmChain): Promise<Fees> {
    try {
      return feesOfFeeData(await chain.provider.getFeeData());
    } catch (error) {
      throw translateProviderError(error, nodeName(chain));
    }
  }

  /** The step its send signed ahead to send now: the next replacement up the ladder, or its cancel; undefined when none fits. */
  private signedAhead(followed: Followed, kind: ReplacementKind, needed: Fees): OperationTransaction | undefined {
    const { record, current } = followed;
    if (kind === "cancel") {
      const cancel = record.transactions.find(
        (transaction) => transaction.role === "cancel" && transaction.transactionHash !== current.transactionHash,
      );
      return cancel !== undefined && isReplacementOf(feesOf(cancel), current.fees) ? cancel : undefined;
    }
    if (current.role === "cancel") return undefined;
    const steps = record.transactions
      .filter((transaction) => transaction.role === "replacement")
      .map((transaction) => ({ ...transaction, fees: feesOf(transaction) }));
    const next = nextStep(steps, current.rung, needed);
    return next !== undefined && isReplacementOf(next.fees, current.fees) ? next : undefined;
  }

  private async sendAhead(followed: Followed, kind: ReplacementKind, step: OperationTransaction): Promise<OperationRecord> {
    const raw = await storedRawTransaction(this.store, followed.record, step);
    const { broadcastAt: _sent, ...fields } = step;
    return this.send(followed, kind, { ...fields, nonce: followed.record.nonce, rawTransaction: raw, signature: null, broadcast: true });
  }

  /** The replacement for the caller to sign: the minimum bump, raised to what the node asks now, held under the ceiling. */
  private async prepare(followed: Followed, kind: ReplacementKind, needed: Fees): Promise<PreparedReplacement> {
    const { record, current, ceiling } = followed;
    return {
      operationId: record.id,
      chain: record.chain,
      network: record.network,
      sender: record.sender,
      replacement: kind,
      replaces: current.transactionHash,
      unsignedTransaction: toPreparedTransaction(await this.unsignedReplacement(followed, kind, needed)),
      ceiling: ceiling.toString(),
    };
  }

  /** The replacement's transaction: the same call (or the cancel) at the nonce, with the least fees that replace it. */
  private async unsignedReplacement(followed: Followed, kind: ReplacementKind, needed: Fees): Promise<TransactionLike> {
    const { record, chain, current, original, ceiling } = followed;
    const fees = replacementFees(current.fees, needed, ceiling);
    if (fees === undefined) {
      throw feeCapExceeded(
        record,
        { wei: ceiling, source: this.feePolicy.capOf(record)?.source ?? "the operation's own ceiling: 8 times its first max fee" },
        maxFeeOf(current.fees) + (maxFeeOf(current.fees) + 7n) / 8n,
        `a replacement of ${current.transactionHash} needs at least`,
      );
    }
    const call =
      kind === "cancel"
        ? { to: record.sender, data: "0x", value: 0n, gasLimit: (await cancelGas(chain, record.sender)) ?? PLAIN_TRANSFER_GAS }
        : { to: original.to, data: original.data, value: original.value, gasLimit: original.gasLimit };
    return { chainId: chain.info.chainId, nonce: record.nonce, ...call, ...feeFields(fees) };
  }

  /** A replacement the caller signed: the same call (or a cancel) at the nonce, fees raised enough and under the ceiling. */
  private async submit(followed: Followed, kind: ReplacementKind, signedTransaction: string): Promise<OperationRecord> {
    const { record, chain, current, original, ceiling } = followed;
    const transaction = parseSignedTransaction(signedTransaction, getAddress(record.sender));
    const hash = transaction.hash!.toLowerCase();
    const sent = record.transactions.find((each) => each.transactionHash === hash && each.broadcastAt !== null);
    if (sent !== undefined || hash === record.transactionHash.toLowerCase()) {
      throw new TokenServiceError(ErrorCode.ALREADY_SUBMITTED, `signedTransaction was already sent for operation ${record.id}`, {
        field: "signedTransaction",
        details: { operationId: record.id, status: record.status },
      });
    }
    const expected =
      kind === "cancel"
        ? { to: record.sender, data: "0x", value: 0n }
        : { to: original.to, data: original.data, value: original.value, gasLimit: original.gasLimit };
    const compared: Array<[string, unknown, unknown]> = [
      ["chainId", transaction.chainId, chain.info.chainId],
      ["nonce", transaction.nonce, record.nonce],
      ["type", transaction.type === 2 ? 2 : 0, current.fees.type],
      ["to", transaction.to?.toLowerCase() ?? null, expected.to?.toLowerCase() ?? null],
      ["value", transaction.value, expected.value],
      ["data", transaction.data.toLowerCase(), expected.data.toLowerCase()],
      ...("gasLimit" in expected ? [["gasLimit", transaction.gasLimit, expected.gasLimit] as [string, unknown, unknown]] : []),
    ];
    const mismatch = compared.find(([, signed, wanted]) => String(signed) !== String(wanted));
    const extra = (transaction.accessList?.length ?? 0) > 0 || (transaction.authorizationList?.length ?? 0) > 0;
    if (mismatch !== undefined || extra || (kind === "cancel" && transaction.gasLimit < PLAIN_TRANSFER_GAS)) {
      const property = mismatch?.[0] ?? (extra ? "accessList" : "gasLimit");
      throw new TokenServiceError(
        ErrorCode.TRANSACTION_MISMATCH,
        `signedTransaction's ${property} is not what ${kind === "cancel" ? "a cancel (a zero-value transfer to the sender at the operation's nonce)" : "a speed-up of this operation (its call, at its nonce and gas limit)"} has: sign the prepared replacement unchanged`,
        { field: "signedTransaction", details: { property } },
      );
    }
    const fees = feesOfTransaction(transaction);
    if (!isReplacementOf(fees, current.fees)) {
      throw new TokenServiceError(
        ErrorCode.TRANSACTION_MISMATCH,
        `signedTransaction's fees do not replace ${current.transactionHash}: every fee must be at least 12.5 % higher (max fee ${formatGwei(maxFeeOf(current.fees))} gwei now): sign the prepared replacement unchanged`,
        { field: "signedTransaction", details: { property: fees.type === 2 ? "maxFeePerGas" : "gasPrice" } },
      );
    }
    if (maxFeeOf(fees) > ceiling) {
      throw feeCapExceeded(
        record,
        { wei: ceiling, source: this.feePolicy.capOf(record)?.source ?? "the operation's own ceiling: 8 times its first max fee" },
        maxFeeOf(fees),
        "signedTransaction pays",
      );
    }
    const rung = Math.max(current.rung, ...record.transactions.map((each) => each.rung)) + 1;
    return this.send(followed, kind, {
      transactionHash: hash,
      role: kind === "cancel" ? "cancel" : "replacement",
      rung,
      nonce: record.nonce,
      rawTransaction: transaction.serialized,
      signature: null,
      ...columnsOf(fees),
      broadcast: true,
    });
  }

  /**
   * Writes the replacement as sent (with the first transaction, for a record made before they were kept), broadcasts it,
   * and has the record follow it. A refusal is the caller's answer; a broadcast whose answer was lost leaves it to the
   * tracker, which follows whichever of the record's transactions the node holds.
   */
  private async send(
    followed: Followed,
    kind: ReplacementKind,
    transaction: NewOperationTransaction & { rawTransaction: string },
  ): Promise<OperationRecord> {
    const { record, chain, current, original } = followed;
    if (!record.transactions.some((each) => each.role === "original")) {
      await this.store.recordTransaction(record.id, {
        transactionHash: original.hash!.toLowerCase(),
        role: "original",
        rung: 0,
        nonce: record.nonce,
        // The record's own raw form.
        rawTransaction: null,
        signature: null,
        ...columnsOf(feesOfTransaction(original)),
        broadcast: true,
      });
    }
    await this.store.recordTransaction(record.id, transaction);
    const node = nodeName(chain);
    let head: number;
    try {
      [, head] = await Promise.all([
        chain.broadcast(transaction.rawTransaction).catch((error: unknown) => {
          // The same replacement sent before (by the tracker, or a retry): it is on the node.
          if (!isAlreadyKnown(error)) throw error;
        }),
        chain.provider.getBlockNumber(),
      ]);
    } catch (error) {
      const typed = translateProviderError(error, node);
      // No answer: the node may have it; the tracker follows whichever of the record's transactions it holds.
      if (isTransient(typed) || (await this.nonceUsed(followed))) {
        // Or the nonce is used already (one of its transactions was mined, won the race): the tracker settles it.
        this.onSent(record.id);
        return (await this.store.getOperation(record.id)) ?? record;
      }
      throw typed;
    }
    const fee = `max fee ${formatGwei(BigInt(transaction.maxFeePerGas ?? transaction.gasPrice ?? 0))} gwei`;
    const reason =
      kind === "cancel"
        ? `cancel sent: ${transaction.transactionHash} (a zero-value transfer to the sender at nonce ${record.nonce}, ${fee}) in place of ${current.transactionHash}`
        : `sped up: replaced by ${transaction.transactionHash} (${fee})`;
    // The node has it: a record still `signed` (its first broadcast's answer was lost, or the process that sent it
    // stopped before its tracker looked) is `pending` now.
    await this.store.changeOperation(record.id, {
      status: "pending",
      from: ["signed", "pending"],
      reason,
      transactionHash: transaction.transactionHash,
      broadcastBlock: head,
      stuck: null,
      missingSince: null,
    });
    this.onSent(record.id);
    return (await this.store.getOperation(record.id)) ?? record;
  }

  /** Whether the chain has mined a transaction at the record's nonce (a replacement came too late). */
  private async nonceUsed({ chain, record }: Followed): Promise<boolean> {
    try {
      // A fresh read on purpose: a request asks it (there is no tracker pass, nor its memo, here), right after the node
      // refused the replacement; only a count read after that refusal tells "too late, the nonce was used" from a refusal.
      return (await chain.provider.getTransactionCount(record.sender, "latest")) > record.nonce;
    } catch {
      return false;
    }
  }
}

/** A transaction's fees as its stored row keeps them: decimal strings, the EIP-1559 pair or a legacy price. */
export function columnsOf(fees: Fees): Pick<NewOperationTransaction, "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice"> {
  return fees.type === 2
    ? { maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(), gasPrice: null }
    : { maxFeePerGas: null, maxPriorityFeePerGas: null, gasPrice: fees.gasPrice.toString() };
}

function nodeName(chain: EvmChain): string {
  return `the ${chain.info.chain}/${chain.info.network} node`;
}
