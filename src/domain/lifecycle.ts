// The operation lifecycle as data: the states, every transition the service may make with the webhook event it is, and
// the record's shape in each state. The tracker's decisions (core/operations/decide.ts), the stores' guards on a
// change and the webhook events all read this table; nothing else decides which move is allowed.

import { TOKEN_CALL_KINDS, type TokenCallKindName } from "./kinds/index.js";

/** The kinds the core's write paths know by name; those of domain/kinds/ follow them. */
const BUILT_IN_KINDS = ["launch", "mint", "faucet", "transfer", "approve", "burn", "pause", "deployImplementation", "upgrade"] as const;

/** What the service does on a chain, as one durable record. */
export type OperationKind = (typeof BUILT_IN_KINDS)[number] | TokenCallKindName;
export const OPERATION_KINDS: readonly [OperationKind, ...OperationKind[]] = [
  ...BUILT_IN_KINDS,
  ...TOKEN_CALL_KINDS.map((kind) => kind.name),
];

/**
 * Refuses a record of a kind no module describes. The stores call it where a record is written: since migration 0014 the
 * database holds no list of kinds, so that a kind added in code needs no migration.
 */
export function requireOperationKind(kind: string): OperationKind {
  if (!(OPERATION_KINDS as readonly string[]).includes(kind)) throw new Error(`unknown operation kind ${JSON.stringify(kind)}`);
  return kind as OperationKind;
}

/**
 * signed: written, with its raw transaction, before the broadcast; pending: the node has it; mined: included with the
 * required confirmations; failed: refused, reverted, or its nonce taken by another transaction; dropped: the node lost
 * it and re-broadcasting did not bring it back in time; cancelled: a zero-value transfer to the sender took its nonce
 * instead (a cancel the caller asked for). Only a reorg leaves a final state (mined or cancelled → pending).
 */
export const OPERATION_STATUSES = ["signed", "pending", "mined", "failed", "dropped", "cancelled"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

export const FINAL_STATUSES: readonly OperationStatus[] = ["mined", "failed", "dropped", "cancelled"];

/** The final states a block holds: watched for a reorg, and left for `pending` when their block is no longer canonical. */
export const INCLUDED_STATUSES: readonly OperationStatus[] = ["mined", "cancelled"];

/** The events a webhook subscription may name: every event a transition of the table emits, and every notice. */
export const OPERATION_EVENTS = [
  "operation.pending",
  "operation.mined",
  "operation.failed",
  "operation.dropped",
  "operation.reorged",
  "operation.cancelled",
  "operation.stuck",
] as const;
export type OperationEvent = (typeof OPERATION_EVENTS)[number];

export interface Transition {
  from: OperationStatus;
  to: OperationStatus;
  /** The webhook event the move is; null: none (a retry within a state is not news). */
  event: OperationEvent | null;
  /** When it happens, in words (documentation and tests). */
  when: string;
}

/** Every state change the service makes. A move that is not here is refused by the stores. */
export const TRANSITIONS: readonly Transition[] = [
  { from: "signed", to: "pending", event: "operation.pending", when: "the node accepted the transaction" },
  { from: "signed", to: "mined", event: "operation.mined", when: "a faucet grant recorded before it was made was made" },
  {
    from: "signed",
    to: "failed",
    event: "operation.failed",
    when: "the node refused the broadcast, a grant failed, or another transaction took its nonce",
  },
  { from: "signed", to: "dropped", event: "operation.dropped", when: "broadcasting failed for the whole drop window" },
  { from: "pending", to: "pending", event: null, when: "re-broadcast, or included but not yet confirmed" },
  { from: "pending", to: "mined", event: "operation.mined", when: "included with the required confirmations" },
  { from: "pending", to: "failed", event: "operation.failed", when: "included and reverted, or another transaction took its nonce" },
  { from: "pending", to: "dropped", event: "operation.dropped", when: "the node lost it and refused it again for the drop window" },
  { from: "pending", to: "cancelled", event: "operation.cancelled", when: "the cancel the caller asked for took the nonce" },
  { from: "mined", to: "pending", event: "operation.reorged", when: "its block left the canonical chain (a reorg)" },
  { from: "cancelled", to: "pending", event: "operation.reorged", when: "the cancel's block left the canonical chain (a reorg)" },
];

/**
 * News about a record that is no move of the table: its state stays. Each is a field of the record, set once (the
 * event is its setting), and cleared when what it reports no longer holds.
 */
export interface Notice {
  event: OperationEvent;
  /** The record's field that holds it. */
  field: "stuck";
  when: string;
}

export const NOTICES: readonly Notice[] = [
  {
    event: "operation.stuck",
    field: "stuck",
    when: "pending past its replace-after blocks with no higher fee left to send: the ladder reached the fee ceiling, the node refused the next step, or a caller-signed send waits for the caller's speed-up",
  },
];

/** How a record may begin, and the event its insertion is: `signed` is none (a launch's path stays one write). */
export const INITIAL_STATES: Readonly<Partial<Record<OperationStatus, OperationEvent | null>>> = {
  signed: null,
  pending: "operation.pending",
  mined: "operation.mined",
};

/** The transition from `from` to `to`, or undefined when the table has none. */
export function transitionOf(from: OperationStatus, to: OperationStatus): Transition | undefined {
  return TRANSITIONS.find((transition) => transition.from === from && transition.to === to);
}

/** The states a record may be in for a change to `to`: the guard a store applies to the write. */
export function sourcesOf(to: OperationStatus): OperationStatus[] {
  return TRANSITIONS.filter((transition) => transition.to === to).map((transition) => transition.from);
}

/**
 * The webhook event a change is, or undefined when it is none. `previous` undefined: the record's insertion. A change
 * that keeps the status (a re-broadcast, a confirmation counted) is none, whatever else it writes.
 */
export function eventOfChange(previous: OperationStatus | undefined, next: OperationStatus): OperationEvent | undefined {
  if (previous === undefined) return INITIAL_STATES[next] ?? undefined;
  if (previous === next) return undefined;
  return transitionOf(previous, next)?.event ?? undefined;
}

/** The event of a notice's field set where it was not (once: setting it again, or clearing it, is none). */
export function noticeOfChange(field: Notice["field"], before: unknown, after: unknown): OperationEvent | undefined {
  if (before !== null && before !== undefined) return undefined;
  if (after === null || after === undefined) return undefined;
  return NOTICES.find((notice) => notice.field === field)?.event;
}

export interface OperationTransition {
  status: OperationStatus;
  at: string;
  reason: string;
}

/**
 * The part a transaction plays in its operation: the one first sent, a replacement with higher fees (the same call at
 * the same nonce), or the cancel (a zero-value transfer to the sender at that nonce).
 */
export const TRANSACTION_ROLES = ["original", "replacement", "cancel"] as const;
export type TransactionRole = (typeof TRANSACTION_ROLES)[number];

/** One transaction an operation was sent as, or signed ahead to be sent as (a key-in-body send's fee ladder). */
export interface OperationTransaction {
  transactionHash: string;
  role: TransactionRole;
  /** Its step on the fee ladder: 0 the original, each replacement one higher; the cancel above every replacement. */
  rung: number;
  /** EIP-1559 fees (wei, decimal strings); a legacy transaction has `gasPrice` instead. */
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  gasPrice: string | null;
  /** When it was written as about to be broadcast (before the broadcast); null: signed ahead, never sent. */
  broadcastAt: string | null;
  /** A Bitcoin transaction's coins and fee (no fees per gas there): what a replacement of it must spend and outbid. */
  bitcoin?: BitcoinSpend;
}

/**
 * What a Bitcoin transaction of an operation spends and pays (satoshis as decimal strings): the coins a replacement
 * must spend again (BIP 125: it conflicts with the original only by sharing them), the fee and size it must outbid,
 * and the payment it must keep (a speed-up) or leave out (a cancel).
 */
export interface BitcoinSpend {
  fee: string;
  /** Virtual size, vB. */
  vsize: number;
  /** sat/vB actually paid. */
  feeRate: number;
  inputs: Array<{ txid: string; vout: number; value: string }>;
  /** The recipient's output; null in a cancel. */
  payment: { address: string; value: string; vout: number } | null;
  /** The sender's own output, when there is one. */
  change: { address: string; value: string; vout: number } | null;
}

/** Why an operation waits with no higher fee the service can send on its own (the `operation.stuck` notice). */
export interface StuckNotice {
  at: string;
  /** The transaction it waits on. */
  transactionHash: string;
  reason: string;
}

/**
 * A launch, mint, transfer, approval, burn, pause (or unpause), role grant or revoke, ownership transfer or faucet call.
 * Never holds a private key; the raw transactions are public once broadcast (and those of its fee ladder, signed ahead,
 * are kept as their fees and signatures: public data once sent).
 */
export interface OperationRecord {
  id: string;
  apiKeyId: string | null;
  kind: OperationKind;
  chain: string;
  network: string;
  /**
   * "ERC20" | "ERC721" for launches and mints, also "NATIVE" | "ERC1155" for transfers, approvals and burns; null for
   * faucet grants, pauses, role changes and ownership transfers (they call any token that has the function).
   */
  tokenType: string | null;
  /** The token fields of a launch, or the other writes' parameters; amounts as strings. */
  params: Record<string, unknown>;
  sender: string | null;
  /** The transaction it was last sent as (a replacement or the cancel, once sent), or the one mined. */
  transactionHash: string | null;
  contractAddress: string | null;
  nonce: number | null;
  /** The first transaction's raw form, as signed; a replacement's is with its `transactions` entry. */
  rawTransaction: string | null;
  status: OperationStatus;
  error: { code: string; message: string } | null;
  blockNumber: number | null;
  blockHash: string | null;
  /** What mining revealed, e.g. the id of an ERC721 mint. */
  result: Record<string, unknown> | null;
  transitions: OperationTransition[];
  /** Set once when it waits with no higher fee to send (webhook `operation.stuck`); cleared by a later replacement. */
  stuck: StuckNotice | null;
  /**
   * Every transaction it was sent as, and those signed ahead (its fee ladder and cancel), oldest step first; read with
   * the record where a reader needs them (empty: the record was read without them, or made before they were kept).
   */
  transactions: OperationTransaction[];
  createdAt: string;
  updatedAt: string;
}

/** What each state guarantees beyond the common fields. */
interface StateFields {
  signed: { blockNumber: null; blockHash: null; error: null };
  pending: { error: null };
  mined: { blockNumber: number; error: null };
  failed: { error: { code: string; message: string } };
  dropped: { error: { code: string; message: string }; blockNumber: null; blockHash: null };
  cancelled: { blockNumber: number; error: null };
}

/** A record in one state, with what that state guarantees (a mined record has its block, a failed one its error). */
export type OperationIn<S extends OperationStatus> = OperationRecord & { status: S } & StateFields[S];
export type SignedOperation = OperationIn<"signed">;
export type PendingOperation = OperationIn<"pending">;
export type MinedOperation = OperationIn<"mined">;
export type FailedOperation = OperationIn<"failed">;
export type DroppedOperation = OperationIn<"dropped">;
export type CancelledOperation = OperationIn<"cancelled">;

/** Narrows a record to its state's type. */
export function isIn<S extends OperationStatus>(record: OperationRecord, status: S): record is OperationIn<S> {
  return record.status === status;
}

export function isFinal(status: OperationStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

/**
 * Whether no node ever held the record's transaction: it went from `signed` straight to `failed` (its broadcast was
 * refused, by the node or by storage before the node saw it, or another transaction took its nonce first). Its signed
 * bytes may be submitted again, as a new operation: a chain includes one hash at most once, so nothing runs twice.
 */
export function neverHeld(record: Pick<OperationRecord, "status" | "transitions">): boolean {
  return (
    record.status === "failed" && record.transitions.every((transition) => transition.status === "signed" || transition.status === "failed")
  );
}
