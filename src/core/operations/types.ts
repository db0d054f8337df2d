import type { ReservationFiller } from "../../chains/evm/write/reservation-fillers.js";
import type { PreparedTransaction } from "../../chains/evm/write/signed-transaction.js";
import type { OperationRecord, OperationStatus, OperationTransaction } from "../../domain/lifecycle.js";

export type {
  OperationKind,
  OperationRecord,
  OperationStatus,
  OperationTransition,
  OperationTransaction,
  StuckNotice,
  TransactionRole,
} from "../../domain/lifecycle.js";
export { FINAL_STATUSES } from "../../domain/lifecycle.js";

/** A transaction of an operation as it is written: its raw form with it (public once broadcast), and its nonce. */
export interface NewOperationTransaction extends Omit<OperationTransaction, "broadcastAt">, StoredTransaction {
  nonce: number;
  /** Written as about to be broadcast (true), or signed ahead to be sent later (false: a fee ladder's step). */
  broadcast: boolean;
}

export type NewOperation = Omit<
  OperationRecord,
  "createdAt" | "updatedAt" | "transitions" | "blockNumber" | "blockHash" | "result" | "nonce" | "rawTransaction" | "stuck" | "transactions"
> &
  Partial<Pick<OperationRecord, "blockNumber" | "blockHash" | "result" | "nonce" | "rawTransaction">> & {
    /** Its transactions, written with it in one commit: the first one sent, and a key-in-body send's ladder signed ahead. */
    transactions?: NewOperationTransaction[];
    /** Why the record starts in its status; becomes the first transition. */
    reason?: string;
    /** When the tracker first looks at it; default at once. */
    checkInMs?: number;
    /** A tracker lease taken with the insert: the process broadcasting it keeps other processes' trackers away meanwhile. */
    lease?: { owner: string; ms: number };
  };

/** A tracker's or a request's change to a record; one write. */
export interface OperationChange {
  /** Omitted: the status stays, only the fields and the next check change. */
  status?: OperationStatus;
  /** Recorded as a transition when given, even without a status change (a re-broadcast). */
  reason?: string;
  /** Applied only if the record is in one of these states (guards races with other writers). */
  from?: readonly OperationStatus[];
  blockNumber?: number | null;
  blockHash?: string | null;
  result?: Record<string, unknown> | null;
  error?: { code: string; message: string } | null;
  /** When the tracker looks again; null stops tracking. Undefined keeps the schedule. */
  checkInMs?: number | null;
  /** Set when the record is first seen missing from the node, cleared when seen again. */
  missingSince?: Date | null;
  /** The transaction it follows now: a replacement or the cancel the node took, or whichever of its transactions was mined. */
  transactionHash?: string;
  /** The head when the transaction it follows was sent (or first seen pending): its replace-after blocks count from there. */
  broadcastBlock?: number | null;
  /** The stuck notice (its setting is the `operation.stuck` event), or null to clear it. */
  stuck?: { transactionHash: string; reason: string } | null;
}

/** A record a tracker holds the lease of, with the tracker-only fields. */
export interface LeasedOperation extends OperationRecord {
  missingSince: string | null;
  /** When the record left pending for mined (or cancelled); drives the reorg watch. */
  minedAt: string | null;
  /** The head when the transaction it follows was sent, or first seen pending; null until the tracker saw one. */
  broadcastBlock: number | null;
}

export interface LeaseFilter {
  skip?: ReadonlySet<string>;
  only?: ReadonlySet<string>;
  /**
   * Taken before their check time too (still unfinished, and free or this owner's), and before any other due record:
   * records a tracker knows are ready.
   */
  early?: ReadonlySet<string>;
}

/** The part of the store the core's operations need; the HTTP service's SQL store and an in-memory one implement it. */
export interface OperationStore {
  insertOperation(operation: NewOperation): Promise<void>;
  getOperation(id: string): Promise<OperationRecord | undefined>;
  /**
   * Applies `change` if `from` allows; with `leaseOwner`, only while that lease holds, and ends it. Returns the record
   * after, possibly without its transactions and its first raw form (read them with getOperation).
   */
  changeOperation(id: string, change: OperationChange, leaseOwner?: string): Promise<OperationRecord | undefined>;
  /**
   * A tracker pass's changes at once (one transaction where the store has them), each as `changeOperation` with
   * `leaseOwner`. A record may have several, applied in order: its lease ends with the last. A record's entry is the
   * record after its change, or after a later change of it in the pass (a store may write a record's last two changes
   * as one update); undefined where its change did not apply.
   */
  changeOperations(
    changes: ReadonlyArray<{ id: string; change: OperationChange }>,
    leaseOwner: string,
  ): Promise<Array<OperationRecord | undefined>>;
  /**
   * Leases up to `limit` records due for a check (unfinished, or mined within their watch), skipping those another
   * owner leases and, per `filter`, those this process is still broadcasting (`skip`) or all but its own (`only`).
   */
  leaseDueOperations(owner: string, leaseMs: number, limit: number, filter?: LeaseFilter): Promise<LeasedOperation[]>;
  /** Ends every lease `owner` holds, so other trackers take its records at once (a process stopping cleanly). */
  releaseLeases(owner: string): Promise<void>;
  /**
   * Makes every `mined` record of a pair due for a check now (a simulated chain lost part of its journal: the tracker
   * finds out which transactions are gone), or those mined in block `fromBlock` or later (a reorg fault replaced them).
   * Answers how many.
   */
  recheckMined(chain: string, network: string, fromBlock?: number): Promise<number>;
  /**
   * Makes every `mined` or `cancelled` record still in its reorg watch (a check to come) due now, on every pair: a
   * tracker starting knows no block yet, and looks at each once. Answers how many.
   */
  recheckWatched(): Promise<number>;
  /** The record of a transaction, by any hash it was sent under on a pair (a replaced one too). */
  findByTransactionHash(chain: string, network: string, transactionHash: string): Promise<OperationRecord | undefined>;
  /**
   * Writes one of an operation's transactions as about to be broadcast (`broadcast`), before it is: a replacement or
   * cancel signed now, or a step of its ladder signed ahead (then only marked). Answers the record, with its transactions.
   */
  recordTransaction(operationId: string, transaction: NewOperationTransaction): Promise<OperationRecord | undefined>;
  /** How one of an operation's transactions is stored (rebuilt into its raw form by rawTransactionOf); undefined: not one of them. */
  storedTransaction(operationId: string, transactionHash: string): Promise<StoredTransaction | undefined>;
  /**
   * The cancel a send signed ahead for the sender's `nonce` on the pair (the newest operation's, should several have had
   * that nonce): what can fill the nonce once its operation ended without taking it.
   */
  signedCancelAt(
    chain: string,
    network: string,
    sender: string,
    nonce: number,
  ): Promise<{ operationId: string; rawTransaction: string } | undefined>;
  /**
   * The nonces the sender may not take on the pair, ascending: those of its signed or pending records (the node may not
   * have them yet) and of its live reservations (prepared for a caller to sign).
   */
  heldNonces(chain: string, network: string, sender: string): Promise<number[]>;
  /**
   * The sender's unfinished records (`signed` or `pending`) on the pair from nonce `fromNonce` up, in nonce order, at
   * most `limit`: what the tracker may send again to fill a nonce the node lost.
   */
  unfinishedOfSender(chain: string, network: string, sender: string, fromNonce: number, limit: number): Promise<UnfinishedTransaction[]>;
  /**
   * Reserves `nonce` for a prepared transaction until `ttlMs` from now (on the store's clock). An expired reservation of
   * that nonce is replaced. Answers when it expires (ISO time), or undefined when a live one holds the nonce (another
   * process prepared it first).
   */
  reserveNonce(reservation: NewNonceReservation): Promise<string | undefined>;
  /** The reservation of `nonce`, live or expired, or undefined when none was ever made (or it was replaced and purged). */
  getNonceReservation(chain: string, network: string, sender: string, nonce: number): Promise<NonceReservation | undefined>;
  /** The nonces of the sender's live reservations on the pair that keep no filler yet, ascending. */
  unfilledReservations(chain: string, network: string, sender: string): Promise<number[]>;
  /**
   * Keeps beside each reservation a filler: a zero-value transfer from the sender to itself at its nonce, signed ahead by
   * a key-in-body send that took a nonce above it, for the tracker to send if the reservation expires unused (its nonce
   * would strand the sends above it). A reservation keeps the first filler it is given, also when a later prepare takes
   * its nonce again after it expired. Written before that send's record.
   */
  keepReservationFillers(chain: string, network: string, sender: string, fillers: readonly ReservationFiller[]): Promise<void>;
  /** The filler kept beside the sender's reservation of `nonce` once that reservation expired; undefined while it is live, or with none. */
  reservationFillerAt(chain: string, network: string, sender: string, nonce: number): Promise<ExpiredReservationFiller | undefined>;
}

export interface ExpiredReservationFiller {
  rawTransaction: string;
  /** When the reservation it fills expired (ISO time). */
  expiresAt: string;
}

/**
 * How one of an operation's transactions is kept: its raw form (`rawTransaction`); or, for a step of a fee ladder signed
 * ahead, only its `signature`: it is the operation's first transaction with the step's fees, and storing five copies of
 * a 5 KB deployment for steps that are rarely sent costs every send; or neither, for the first transaction itself (the
 * record's own `rawTransaction`).
 */
export interface StoredTransaction {
  rawTransaction: string | null;
  /** r ‖ s ‖ v (65 bytes, 0x hex) over the first transaction with this one's fees. */
  signature: string | null;
}

/** An unfinished record's transaction, as `unfinishedOfSender` lists it. */
export interface UnfinishedTransaction {
  id: string;
  nonce: number;
  status: OperationStatus;
  transactionHash: string | null;
  /** Its first transaction's raw form (the record's). */
  rawTransaction: string | null;
  /** The transaction it follows, when that is not its first (a replacement or cancel sent): its fees and how it is stored. */
  followed:
    (Pick<OperationTransaction, "transactionHash" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice"> & StoredTransaction) | null;
}

export interface NewNonceReservation {
  chain: string;
  network: string;
  sender: string;
  nonce: number;
  transaction: PreparedTransaction;
  ttlMs: number;
}

export interface NonceReservation {
  chain: string;
  network: string;
  sender: string;
  nonce: number;
  transaction: PreparedTransaction;
  expiresAt: string;
  /** Still before `expiresAt`, on the store's clock. */
  live: boolean;
}
