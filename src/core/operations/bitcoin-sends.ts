import { randomUUID } from "node:crypto";

import { parseBitcoinAddress } from "../../chains/bitcoin/addresses.js";
import {
  requireBitcoinBackend,
  type BitcoinBackend,
  type BitcoinBackends,
  type BitcoinTransactionStatus,
} from "../../chains/bitcoin/backend.js";
import type { BitcoinSigner } from "../../chains/bitcoin/bitcoin-signer.js";
import { broadcastOutcome } from "../../chains/bitcoin/broadcast-refusals.js";
import { buildSend } from "../../chains/bitcoin/psbt-send.js";
import type { SenderLock } from "../../chains/evm/sender-lock.js";
import type { ChainRegistry } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument, isTokenServiceError } from "../../domain/errors.js";
import { parseUint256 } from "../../domain/units.js";
import type { AdmittedWrite } from "../custody/policies.js";
import type { HeldWallets } from "./held-writes.js";
import type { HolderScope } from "../custody/types.js";
import { neverHeld } from "../../domain/lifecycle.js";
import { BITCOIN_POLL_MS, BitcoinReplacements, bitcoinTransactionRow, parseFeeRate } from "./bitcoin-replacements.js";
import type { ReplacementKind } from "./replacements.js";
import type { BroadcastOutcome, Observation } from "./decide.js";
import type { OperationRecord, OperationStore } from "./types.js";

// Bitcoin sent from held wallets (docs/custody.md): coins selected, a PSBT built and signed with RBF signalled
// (src/chains/bitcoin/psbt-send.ts), recorded `signed` before the broadcast as an EVM send is, and followed by the same
// tracker and the same decide function: the mempool is the pool, a confirmed block the receipt, the tip the head.

/** What a Bitcoin send asks. */
export interface BitcoinSendRequest {
  network: string;
  /** A held wallet's address (native SegWit). */
  sender: string;
  to: string;
  /** Satoshis, a decimal string. */
  amount: string;
  /** sat/vB; default: the backend's estimate for the next two blocks (at least 1). */
  feeRate?: number;
}

export interface BitcoinSendOutcome {
  id: string;
  chain: "bitcoin";
  network: string;
  type: "NATIVE";
  sender: string;
  to: string;
  amount: string;
  /** Satoshis paid to miners, and the rate (sat/vB). */
  fee: string;
  feeRate: number;
  transactionHash: string;
  status: "signed" | "pending";
  blockNumber: null;
}

export class BitcoinSends {
  private readonly replacements: BitcoinReplacements;

  constructor(
    private readonly store: OperationStore,
    private readonly chains: ChainRegistry,
    private readonly backends: BitcoinBackends,
    private readonly lock: SenderLock,
    /** The wallets the service holds: their Bitcoin signers, and their policies, applied before anything is signed. */
    private readonly held: HeldWallets | undefined,
    /** The tracker that follows the records, so that it looks at a new one soon. */
    private readonly follow: (id: string) => void,
  ) {
    this.replacements = new BitcoinReplacements(store, backends, lock, held, follow);
  }

  /** Speeds up (at `feeRate`, sat/vB) or cancels a send still unconfirmed: a BIP 125 replacement (bitcoin-replacements.ts). */
  replace(record: OperationRecord, kind: ReplacementKind, feeRate: unknown): Promise<OperationRecord> {
    return this.replacements.replace(record, kind, parseFeeRate(feeRate));
  }

  /**
   * Sends `amount` satoshis from a held wallet: its coins selected and signed under a lock on the wallet (two sends
   * never pick the same coins), recorded, then broadcast. A refusal by the node ends the record `failed` and is thrown;
   * no answer leaves it `signed` for the tracker to send again.
   */
  async send(request: BitcoinSendRequest, context: { apiKeyId?: string | null; id?: string } = {}): Promise<BitcoinSendOutcome> {
    const info = this.chains.resolve("bitcoin", request.network);
    const sender = parseBitcoinAddress(request.sender, info.network, "sender");
    const to = parseBitcoinAddress(request.to, info.network, "to");
    const amount = parseUint256(request.amount, "amount");
    if (amount === 0n) throw invalidArgument("amount", "amount must be greater than 0 (satoshis)");
    const asked = parseFeeRate(request.feeRate);
    const scope: HolderScope = context.apiKeyId === undefined ? "operator" : { apiKeyId: context.apiKeyId };
    const signer = await this.held?.bitcoinSignerFor(scope, info.network, sender);
    if (signer === undefined) {
      throw invalidArgument("sender", `${sender} is no held wallet of yours on bitcoin/${info.network}: Bitcoin is sent from held wallets`);
    }
    const backend = requireBitcoinBackend(this.backends, info.network);
    const id = context.id ?? randomUUID();
    const write: AdmittedWrite = {
      pair: { chain: "bitcoin", network: info.network },
      kind: "transfer",
      value: amount,
      recipients: [to],
      contract: null,
      sender,
      operationId: id,
    };
    const spent = async () => {
      const record = await this.store.getOperation(id).catch(() => undefined);
      return record !== undefined && !neverHeld(record);
    };
    const run = () => this.sendAdmitted(info.network, id, sender, to, amount, asked, signer, backend, context);
    return this.held === undefined ? run() : this.held.admit(write, run, spent);
  }

  private async sendAdmitted(
    network: string,
    id: string,
    sender: string,
    to: string,
    amount: bigint,
    asked: number | undefined,
    signer: BitcoinSigner,
    backend: BitcoinBackend,
    context: { apiKeyId?: string | null },
  ): Promise<BitcoinSendOutcome> {
    return this.lock.withLock(`bitcoin:${network}:${sender}`, async () => {
      const [coins, feeRate] = await Promise.all([backend.listUnspent(sender), asked ?? backend.feeRate(2)]);
      const built = await buildSend({
        sender: { network: network, signer, addressType: "p2wpkh", address: sender },
        coins,
        to,
        amount,
        feeRate,
      });
      await this.store.insertOperation({
        id,
        apiKeyId: context.apiKeyId ?? null,
        kind: "transfer",
        chain: "bitcoin",
        network: network,
        tokenType: "NATIVE",
        params: { to, amount: amount.toString(), fee: built.fee.toString(), feeRate: built.feeRate },
        transactions: [bitcoinTransactionRow(built, "original", 0, null)],
        sender,
        transactionHash: built.txid,
        contractAddress: null,
        rawTransaction: built.hex,
        error: null,
        status: "signed",
        reason: "signed",
        checkInMs: BITCOIN_POLL_MS,
      });
      let status: "signed" | "pending" = "signed";
      try {
        await backend.broadcast(built.hex);
        await this.store.changeOperation(id, {
          status: "pending",
          from: ["signed"],
          reason: "accepted by the node",
          checkInMs: BITCOIN_POLL_MS,
        });
        status = "pending";
      } catch (error) {
        // Refused for good: nothing reached the chain, the record ends failed and the caller is told why. Anything else
        // (no answer, a full mempool) may pass: the record stays signed and the tracker sends it again.
        if (isTokenServiceError(error) && error.code === ErrorCode.TRANSACTION_REJECTED && broadcastOutcome(error)?.kind === "final") {
          await this.store.changeOperation(id, {
            status: "failed",
            from: ["signed"],
            reason: `the node refused it: ${error.message}`,
            error: { code: error.code, message: error.message },
            checkInMs: null,
          });
          throw error;
        }
      }
      this.follow(id);
      return {
        id,
        chain: "bitcoin",
        network: network,
        type: "NATIVE",
        sender,
        to,
        amount: amount.toString(),
        fee: built.fee.toString(),
        feeRate: built.feeRate,
        transactionHash: built.txid,
        status,
        blockNumber: null,
      };
    });
  }

  /**
   * What the backend says of a record's transactions (its first, and any speed-up or cancel sent since), as decide reads
   * a node's: the one in a block (a receipt at its height), one in the mempool, or none known (the one it follows sent
   * again here: the broadcast's outcome). A mined record is checked against its block: its transaction in another
   * block, or in none, is a reorg.
   */
  async observe(record: OperationRecord): Promise<Observation> {
    const backend = requireBitcoinBackend(this.backends, record.network);
    const followed = record.transactionHash!.toLowerCase();
    if (record.status === "mined" || record.status === "cancelled") {
      const status = await backend.transactionStatus(followed);
      // Not in a block at all is as final a "no longer canonical" as another block: "" differs from every hash.
      return { kind: "canonical", hash: status.state === "confirmed" ? status.blockHash : "", pollMs: BITCOIN_POLL_MS };
    }
    const sent = sentTransactions(record);
    const [statuses, head] = await Promise.all([Promise.all(sent.map((txid) => backend.transactionStatus(txid))), backend.tipHeight()]);
    const seen = observationOf(followed, sent, statuses, head);
    if (seen !== undefined) return seen;
    return { kind: "broadcast", outcome: await this.sendAgain(record, backend), pollMs: BITCOIN_POLL_MS, head };
  }

  /** Sends the transaction the record follows again: its first's raw form is the record's, a replacement's its row's. */
  private async sendAgain(record: OperationRecord, backend: BitcoinBackend): Promise<BroadcastOutcome> {
    try {
      const followed = record.transactionHash!.toLowerCase();
      const first = record.transactions.find((transaction) => transaction.role === "original")?.transactionHash;
      const raw =
        first === undefined || first === followed
          ? record.rawTransaction!
          : ((await this.store.storedTransaction(record.id, followed))?.rawTransaction ?? record.rawTransaction!);
      await backend.broadcast(raw);
      return { kind: "accepted" };
    } catch (error) {
      const typed = isTokenServiceError(error)
        ? error
        : new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, "the Bitcoin backend did not answer the broadcast");
      const retry =
        !isTokenServiceError(error) || typed.code !== ErrorCode.TRANSACTION_REJECTED || broadcastOutcome(typed)?.kind === "retry";
      return { kind: "refused", error: { code: typed.code, message: typed.message }, transient: retry };
    }
  }
}

/** The txids a record was sent as (its first alone, for a record made before they were kept), the one it follows first. */
function sentTransactions(record: OperationRecord): string[] {
  const followed = record.transactionHash!.toLowerCase();
  const others = record.transactions
    .filter((transaction) => transaction.broadcastAt !== null && transaction.transactionHash !== followed)
    .map((transaction) => transaction.transactionHash);
  return [followed, ...others];
}

/**
 * What the statuses of a record's transactions (`sent[i]` is `statuses[i]`) tell decide: the one a block holds (its
 * receipt names it, so the record follows it), else one the mempool holds (named when it is not the one followed: a
 * replacement sent before a crash, or the original a replacement failed to displace), else nothing: undefined.
 */
export function observationOf(
  followed: string,
  sent: readonly string[],
  statuses: readonly BitcoinTransactionStatus[],
  head: number,
): Observation | undefined {
  const confirmed = statuses.findIndex((status) => status.state === "confirmed");
  if (confirmed >= 0) {
    const status = statuses[confirmed] as Extract<BitcoinTransactionStatus, { state: "confirmed" }>;
    const receipt = { blockNumber: status.blockHeight, blockHash: status.blockHash, status: 1, transactionHash: sent[confirmed]! };
    return { kind: "chain", simulated: false, pollMs: BITCOIN_POLL_MS, head, receipt, inPool: false };
  }
  const pooled = statuses.findIndex((status) => status.state === "mempool");
  if (pooled < 0) return undefined;
  return {
    kind: "chain",
    simulated: false,
    pollMs: BITCOIN_POLL_MS,
    head,
    receipt: null,
    inPool: true,
    ...(sent[pooled] !== followed ? { pooled: sent[pooled]! } : {}),
  };
}
