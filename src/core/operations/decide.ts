import { ErrorCode, RecordErrorCode } from "../../domain/errors.js";
import { covers, formatGwei, maxFeeOf, nextStep, type Fees, type LadderStep } from "../../domain/fee-ladder.js";
import type { OperationTransaction } from "../../domain/lifecycle.js";
import type { OperationChange, LeasedOperation } from "./types.js";

// The tracker's judgement, without I/O: given a record, what was just observed of it on the chain and the policy, the
// change to write, or the one action to take before judging again (send the stored transaction, make the grant). The
// tracker gathers observations and carries out actions; every move it writes is one of the lifecycle table's.

/** What the tracker's settings say about judging a record. */
export interface DecidePolicy {
  /** Confirmations a live transaction needs before it is `mined` (simulated chains: 1). */
  confirmations: number;
  /** How long a transaction that cannot be (re-)broadcast is tried before it is `dropped`. */
  dropAfterMs: number;
  /** How long a mined transaction on a live network is re-checked for a reorg. */
  reorgWatchMs: number;
  /**
   * How long a mined record's block may be missing from the node before it counts as gone: a node behind the chain (one
   * of a load balancer's, a block or two late) has no block at that height yet, as a chain rewound has none.
   */
  behindGraceMs: number;
}

/** How the node answered a broadcast of the stored raw transaction. */
export type BroadcastOutcome =
  | { kind: "accepted" }
  | { kind: "already-known" }
  | {
      kind: "refused";
      error: { code: string; message: string };
      transient: boolean;
      /**
       * Refused as too cheap for the chain now (its max fee under the base fee, or a price the pool will not take): the
       * transaction is still good, and is taken once fees fall (some nodes drop such a transaction from their pool).
       */
      underpriced?: boolean;
      /** Refused as "nonce too low": a transaction at its nonce is mined (read on the raw error). */
      nonceUsed?: boolean;
    };

/** What the tracker (or the request that sent it) saw of a record's transaction. */
export type Observation =
  /**
   * The request that sent it heard the node accept it; with what the chain showed at this first look when its
   * transaction was already in a block (a chain that mines as it accepts).
   */
  | { kind: "accepted-here"; included?: ChainObservation }
  /** A launch or mint recorded without a transaction hash: there is nothing to follow. */
  | { kind: "no-transaction" }
  /** The node or the pair's configuration failed while looking: nothing is known. */
  | { kind: "node-error" }
  /** A faucet grant: whether the pair is still simulated and the grant is in its journal (with the balance after). */
  | { kind: "grant"; simulated: boolean; granted: boolean; balance?: bigint; chainLabel: string }
  /** A faucet grant made just now, after a restart. */
  | { kind: "granted"; balance: bigint }
  /**
   * A mined record's block: the canonical hash at its height now (null: no block there). `simulated`: a simulated
   * chain's record looked at after a reorg fault, not watched any longer once its block is found canonical. `followed`:
   * the live chain's head follower took over the record's watch (it reports a reorg that reaches the block, and the
   * records mined from there are looked at then): the record is looked at once more, when its watch ends.
   */
  | { kind: "canonical"; hash: string | null; pollMs: number; simulated?: boolean; followed?: boolean }
  /** The node's view of an unfinished record's transaction. */
  | {
      kind: "chain";
      simulated: boolean;
      pollMs: number;
      head: number;
      /** The receipt of whichever of its transactions was mined (`transactionHash`: which; absent, the one it follows). */
      receipt: { blockNumber: number; blockHash: string; status: number | null; transactionHash?: string } | null;
      /** With no receipt: whether the node still holds one of its transactions. */
      inPool: boolean;
      /**
       * With no receipt: the node answers the transaction by hash, yet its next nonce for the sender is the record's
       * own, so it holds nothing it could include there (anvil under load loses a transaction so, and then refuses the
       * same bytes as "already imported"). Counted as not in the pool.
       */
      heldNowhere?: true;
      /** Which one the node holds, when it is another than the one the record follows (a replacement sent before a crash). */
      pooled?: string;
      /** What an ERC721 mint minted, read from the receipt's logs: its token id, or a batch's, in recipients' order. */
      minted?: { tokenId: string } | { tokenIds: string[] };
      /** The pair's replace-after blocks: a pending transaction not included after as many is replaced. */
      replaceAfterBlocks?: number;
      /** What the node's fee data asks of a transaction now; read when the replace-after blocks are past. */
      needed?: Fees;
      /** The least the head takes (its base fee plus the node's tip), read with `needed`: paying it is waiting in line. */
      floor?: Fees;
      /**
       * Past its replace-after blocks while the sender's mined nonce count is still below its nonce: it waits for the
       * sender's own earlier transactions, not for lower fees.
       */
      behindOwnNonces?: true;
      /**
       * With no receipt and not in the pool: the sender's nonce count at the block with the required confirmations, when
       * it is past the record's nonce. Another transaction took that nonce (sent elsewhere, or replacing this one): none
       * of the record's transactions can be mined any more.
       */
      nonceTakenBy?: { confirmedNonce: number };
    }
  /**
   * The tracker sent the stored raw transaction (the node did not know it); with the head and the pair's replace-after
   * blocks, to tell a transaction the node refuses as too cheap past them (stuck) from one it just lost.
   */
  | {
      kind: "broadcast";
      outcome: BroadcastOutcome;
      pollMs: number;
      head?: number;
      replaceAfterBlocks?: number;
      heldNowhere?: true;
      /**
       * A nonce below the record's is reserved for a prepared transaction, live: the node cannot take this one before it
       * (a chain mining on send refuses it), and the gap is the reservation's, filled once it expires unused.
       */
      behindReservation?: true;
    }
  /** The tracker sent a step of the record's fee ladder (written as sent first), as `decide` asked. */
  | { kind: "replaced"; transactionHash: string; outcome: BroadcastOutcome; pollMs: number; head: number; lost?: true };

/** The node's view of an unfinished record's transaction. */
export type ChainObservation = Extract<Observation, { kind: "chain" }>;

export type Decision =
  /** `then`: a second move written after `change` in the same write (a transaction accepted and already in a block). */
  | { change: OperationChange; then?: OperationChange }
  | { action: "broadcast" }
  | { action: "grant" }
  /** Send this step of the fee ladder, signed ahead, in place of the transaction the record follows. */
  | { action: "replace"; transactionHash: string; /** The node lost the one it replaces and would not take it again. */ lost?: true };

/** After a node error, look again in this long. */
export const RETRY_AFTER_ERROR_MS = 2_000;

/**
 * How soon a mined record is looked at again: often while it is young, then less as it ages (reorgs are shallow),
 * so an hour's watch costs each record about fifty looks instead of one every few seconds.
 */
export function reorgCheckInMs(pollMs: number, minedForMs: number): number {
  return Math.max(pollMs * 5, Math.round(minedForMs / 10));
}

const change = (value: OperationChange): Decision => ({ change: value });

/** The change (or the action) an observation of `record` calls for, at `now` (ms since the epoch). */
export function decide(record: LeasedOperation, observation: Observation, policy: DecidePolicy, now: number): Decision {
  switch (observation.kind) {
    case "accepted-here":
      if (record.status !== "signed") return change({});
      if (observation.included?.receipt) return decideOnChain(record, observation.included, policy);
      return change({ status: "pending", reason: "accepted by the node", checkInMs: 0 });
    case "node-error":
      return change({ checkInMs: RETRY_AFTER_ERROR_MS });
    case "no-transaction":
      return change({ status: "failed", reason: "no transaction hash recorded", checkInMs: null });
    case "grant":
      if (record.status === "mined") {
        // A grant looked at again after its chain lost journal lines: made again if it is gone, so the balance is back.
        return observation.simulated && !observation.granted ? { action: "grant" } : change({ checkInMs: null });
      }
      return decideGrantOnChain(observation);
    case "granted":
      if (record.status === "mined") return change({ result: { balance: observation.balance.toString() }, checkInMs: null });
      return change({
        status: "mined",
        reason: "granted after a restart (the process that recorded it stopped first)",
        result: { balance: observation.balance.toString() },
        checkInMs: null,
      });
    case "canonical":
      return change(decideReorg(record, observation, policy, now));
    case "chain":
      return decideOnChain(record, observation, policy);
    case "broadcast":
      return change(decideBroadcast(record, observation, policy, now));
    case "replaced":
      return change(decideReplaced(record, observation));
  }
}

/** The fees a stored transaction was signed with. */
export function feesOf(transaction: Pick<OperationTransaction, "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice">): Fees {
  return transaction.gasPrice !== null
    ? { type: 0, gasPrice: BigInt(transaction.gasPrice) }
    : { type: 2, maxFeePerGas: BigInt(transaction.maxFeePerGas ?? 0), maxPriorityFeePerGas: BigInt(transaction.maxPriorityFeePerGas ?? 0) };
}

/** The record's transaction it follows now, among its stored ones (undefined for a record made before they were kept). */
export function currentTransaction(record: Pick<LeasedOperation, "transactions" | "transactionHash">): OperationTransaction | undefined {
  const hash = record.transactionHash?.toLowerCase();
  return record.transactions.find((transaction) => transaction.transactionHash === hash);
}

/** Whether a pending record has waited its replace-after blocks since its transaction was sent (the tracker then reads the fees). */
export function replacementDue(record: LeasedOperation, head: number, replaceAfterBlocks: number): boolean {
  return (
    record.status === "pending" &&
    record.stuck === null &&
    record.broadcastBlock !== null &&
    head - record.broadcastBlock >= replaceAfterBlocks
  );
}

/** Whether the transaction a record follows pays at least what the head takes (unknown: no). */
function paysTheFloor(record: LeasedOperation, floor: Fees | undefined): boolean {
  const current = currentTransaction(record);
  return floor !== undefined && current !== undefined && covers(feesOf(current), floor);
}

/**
 * A pending record past its replace-after blocks: the next step of its ladder (the lowest that pays what the node asks
 * now, else the highest), or, with none left above the transaction it follows, the stuck notice (once: it is then set).
 */
function decideReplacement(record: LeasedOperation, needed: Fees | undefined, head: number, poll: number, lost = false): Decision {
  const current = currentTransaction(record);
  const steps: Array<LadderStep & { transactionHash: string }> = record.transactions
    .filter((transaction) => transaction.role === "replacement")
    .map((transaction) => ({ rung: transaction.rung, fees: feesOf(transaction), transactionHash: transaction.transactionHash }));
  const next = current?.role === "cancel" ? undefined : nextStep(steps, current?.rung ?? 0, needed);
  if (next !== undefined) return { action: "replace", transactionHash: next.transactionHash, ...(lost ? { lost: true as const } : {}) };
  return change({ stuck: stuckNotice(record, head, lost), checkInMs: poll });
}

/** Why a record past its replace-after blocks has no higher fee the service can send on its own. */
function stuckNotice(record: LeasedOperation, head: number, lost = false): { transactionHash: string; reason: string } {
  const current = currentTransaction(record);
  const replacements = record.transactions.filter((transaction) => transaction.role === "replacement");
  const waited = lost
    ? `lost by the node (it holds nothing at nonce ${record.nonce}) and refused again as already known`
    : `not included ${head - record.broadcastBlock!} blocks after it was sent`;
  const ceiling = record.transactions.find((transaction) => transaction.role === "cancel");
  let reason: string;
  if (current?.role === "cancel") reason = `the cancel is ${waited}, at the fee ceiling`;
  else if (replacements.length === 0) {
    reason = `${waited}, and no higher-fee replacement is signed for it (a caller-signed send): speed it up (POST /api/v1/operations/${record.id}/speed-up), or cancel it`;
  } else {
    const at = current === undefined ? "" : ` (max fee ${formatGwei(maxFeeOf(feesOf(current)))} gwei)`;
    reason = `${waited}${at}: the ladder's last replacement is sent${ceiling ? `; the ceiling (${formatGwei(maxFeeOf(feesOf(ceiling)))} gwei) is kept for a cancel` : ""}`;
  }
  return { transactionHash: record.transactionHash!, reason };
}

/** How the node answered a step of the ladder the tracker sent. */
function decideReplaced(record: LeasedOperation, observation: Extract<Observation, { kind: "replaced" }>): OperationChange {
  const { outcome, transactionHash, pollMs, head } = observation;
  if (outcome.kind === "refused") {
    if (outcome.transient) return { checkInMs: RETRY_AFTER_ERROR_MS };
    // The node will not take it (not enough funds for the higher fee, or a price bump it wants higher): nothing more
    // is tried on its own; the transaction it follows stays, and so does a manual speed-up or cancel.
    return {
      stuck: {
        transactionHash: record.transactionHash!,
        reason: `the node refused the replacement ${transactionHash}: ${outcome.error.message}`,
      },
      checkInMs: pollMs,
    };
  }
  const step = record.transactions.find((transaction) => transaction.transactionHash === transactionHash.toLowerCase());
  const fees = step === undefined ? "" : `, max fee ${formatGwei(maxFeeOf(feesOf(step)))} gwei`;
  return {
    status: "pending",
    reason: observation.lost
      ? `replaced by ${transactionHash} (the node lost the transaction and would not take it again${fees})`
      : `replaced by ${transactionHash} (not included ${head - (record.broadcastBlock ?? head)} blocks after it was sent${fees})`,
    transactionHash,
    broadcastBlock: head,
    missingSince: null,
    checkInMs: pollMs,
  };
}

function decideGrantOnChain(observation: Extract<Observation, { kind: "grant" }>): Decision {
  if (!observation.simulated) {
    return change({ status: "failed", reason: `${observation.chainLabel} is no longer simulated: nothing was granted`, checkInMs: null });
  }
  if (!observation.granted) return { action: "grant" };
  // The balance right after the grant is gone with the process: the answer a retry gets says the balance now.
  return change({
    status: "mined",
    reason: "granted (found in the chain's journal)",
    result: { balance: String(observation.balance ?? 0n) },
    checkInMs: null,
  });
}

/**
 * A `mined` record goes back to `pending` when its block is no longer the canonical one at its height: on a live
 * network, or on a simulated chain whose reorg fault replaced that block.
 */
function decideReorg(
  record: LeasedOperation,
  observation: Extract<Observation, { kind: "canonical" }>,
  policy: DecidePolicy,
  now: number,
): OperationChange {
  const reorg = (why: string): OperationChange => ({
    status: "pending",
    reason: `reorg: block ${record.blockNumber} (${record.blockHash}) ${why}`,
    blockNumber: null,
    blockHash: null,
    missingSince: null,
    checkInMs: observation.pollMs,
  });
  // Another block at its height: the chain chose another branch. A simulated chain has no node behind: a missing block
  // there is its reorg fault's.
  if (observation.hash === null ? observation.simulated : observation.hash !== record.blockHash) return reorg("is no longer canonical");
  if (observation.hash === null) {
    // No block at its height: a node behind (it will have the same block soon) or a chain rewound (it never will).
    // Looked at again soon; gone only once missing for the grace.
    const since = record.missingSince === null ? now : Date.parse(record.missingSince);
    if (now - since < policy.behindGraceMs) return { missingSince: new Date(since), checkInMs: observation.pollMs };
    return reorg(`is no longer canonical: no block at its height for ${Math.round((now - since) / 1000)} s`);
  }
  const seen = record.missingSince !== null ? { missingSince: null } : {};
  if (observation.simulated) return { ...seen, checkInMs: null };
  const minedForMs = record.minedAt === null ? Infinity : now - Date.parse(record.minedAt);
  if (minedForMs >= policy.reorgWatchMs) return { ...seen, checkInMs: null };
  const watchLeftMs = policy.reorgWatchMs - minedForMs;
  return { ...seen, checkInMs: observation.followed ? watchLeftMs : reorgCheckInMs(observation.pollMs, minedForMs) };
}

function decideOnChain(record: LeasedOperation, observation: ChainObservation, policy: DecidePolicy): Decision {
  const { receipt, head, pollMs: poll } = observation;
  if (record.status === "mined" || record.status === "cancelled") return change(decideMinedOnSimulatedChain(record, observation));
  // Whichever of its transactions the node mined (or holds) is the one the record follows from now on.
  const found = receipt?.transactionHash ?? observation.pooled;
  const follows = found !== undefined && found.toLowerCase() !== record.transactionHash?.toLowerCase() ? { transactionHash: found } : {};
  // Accepted by the node (the request that sent it heard so, or it died before its tracker looked), and already in a
  // block: pending, and on from there in the same write, each move with its event.
  if (record.status === "signed" && receipt !== null) {
    const accepted: OperationChange = {
      status: "pending",
      reason: "accepted by the node",
      ...follows,
      missingSince: null,
      broadcastBlock: head,
      checkInMs: 0,
    };
    const pending: LeasedOperation = {
      ...record,
      status: "pending",
      transactionHash: accepted.transactionHash ?? record.transactionHash,
      missingSince: null,
      broadcastBlock: head,
    };
    const next = decideOnChain(pending, observation, policy);
    return "change" in next ? { change: accepted, then: next.change } : change(accepted);
  }
  if (receipt !== null) {
    // A receipt in block N shows the chain is at N at least: the pass may have read its head just before that block (on
    // a node that mines as it accepts, a burst's blocks come between the two answers), and no block can be short of
    // the one confirmation it has itself.
    const confirmations = Math.max(head, receipt.blockNumber) - receipt.blockNumber + 1;
    const required = observation.simulated ? 1 : policy.confirmations;
    const block = { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, missingSince: null, ...follows };
    if (confirmations < required) {
      const moved = record.blockHash !== receipt.blockHash;
      return change({
        status: "pending",
        ...block,
        ...(moved ? { reason: `included in block ${receipt.blockNumber}; waiting for ${required} confirmations` } : {}),
        checkInMs: poll,
      });
    }
    const keepWatching = !observation.simulated && policy.reorgWatchMs > 0;
    const minedHash = (receipt.transactionHash ?? record.transactionHash ?? "").toLowerCase();
    const mined = record.transactions.find((transaction) => transaction.transactionHash === minedHash);
    if (mined?.role === "cancel") {
      return change({
        status: "cancelled",
        reason:
          record.chain === "bitcoin"
            ? `cancelled: ${minedHash}, the same coins back to the sender, was mined in block ${receipt.blockNumber}`
            : `cancelled: the zero-value transfer ${minedHash} took nonce ${record.nonce} in block ${receipt.blockNumber}`,
        ...block,
        checkInMs: keepWatching ? reorgCheckInMs(poll, 0) : null,
      });
    }
    if (receipt.status !== 1) {
      return change({
        status: "failed",
        reason: `reverted in block ${receipt.blockNumber}`,
        error: { code: RecordErrorCode.TRANSACTION_REVERTED, message: `the transaction reverted in block ${receipt.blockNumber}` },
        ...block,
        checkInMs: null,
      });
    }
    const minted = observation.minted;
    const replaced = mined !== undefined && mined.role !== "original" ? ` (as ${mined.role} ${minedHash})` : "";
    return change({
      status: "mined",
      reason: `included in block ${receipt.blockNumber}${required > 1 ? ` with ${confirmations} confirmations` : ""}${replaced}`,
      ...block,
      ...(minted !== undefined ? { result: { ...record.result, ...minted } } : {}),
      checkInMs: keepWatching ? reorgCheckInMs(poll, 0) : null,
    });
  }
  if (observation.inPool) {
    if (record.status === "signed") {
      return change({
        status: "pending",
        reason: "accepted by the node",
        ...follows,
        missingSince: null,
        broadcastBlock: head,
        checkInMs: poll,
      });
    }
    if (Object.keys(follows).length > 0) {
      // A replacement sent before a crash, whose record was not told: it is the one the node holds.
      return change({
        status: "pending",
        reason: `replaced by ${found}`,
        ...follows,
        broadcastBlock: head,
        missingSince: null,
        checkInMs: poll,
      });
    }
    const seen = { ...(record.missingSince !== null ? { missingSince: null } : {}), checkInMs: poll };
    // Waiting behind the sender's own lower nonces (a burst on a chain that mines a block per transaction): not held back
    // by its fees, so no step of its ladder; its replace-after blocks count from its turn.
    if (record.broadcastBlock === null || observation.behindOwnNonces) return change({ ...seen, broadcastBlock: head });
    if (observation.replaceAfterBlocks !== undefined && replacementDue(record, head, observation.replaceAfterBlocks)) {
      // Held, and paying what the head takes: waiting in line (a node that mines a block per transaction, busy with
      // other senders'), not held back by its fees. A higher fee would not help; its count starts again.
      if (paysTheFloor(record, observation.floor)) return change({ ...seen, broadcastBlock: head });
      const decision = decideReplacement(record, observation.needed, head, poll);
      return "change" in decision ? change({ ...seen, ...decision.change }) : decision;
    }
    return change(seen);
  }
  // The chain decided: another transaction has the nonce, with the confirmations a mined record needs. Sending this one
  // again would only be refused ("nonce too low") until the drop window ran out.
  if (observation.nonceTakenBy !== undefined && record.nonce !== null) {
    const next = observation.nonceTakenBy.confirmedNonce;
    return change({
      status: "failed",
      reason: `nonce ${record.nonce} was taken by another transaction from ${record.sender} (the chain's next nonce for it is ${next}): this one can never be mined`,
      error: {
        code: ErrorCode.NONCE_TAKEN,
        message: `another transaction from the sender, sent outside this operation, used nonce ${record.nonce}; this operation's transaction was not mined`,
      },
      missingSince: null,
      checkInMs: null,
    });
  }
  // Not included after its replace-after blocks, and no longer held by the node (some nodes drop a transaction the base
  // fee overtook): the next step of its ladder goes in its place.
  if (observation.replaceAfterBlocks !== undefined && replacementDue(record, head, observation.replaceAfterBlocks)) {
    const replacement = decideReplacement(record, observation.needed, head, poll);
    if (!("change" in replacement)) return replacement;
  }
  // Lost inside the node, which refused the same bytes when they were sent again (missingSince is set then): only
  // another transaction at the nonce gets past it, the next step of its ladder (or, with none, the stuck notice).
  if (observation.heldNowhere && record.status === "pending" && record.missingSince !== null && record.stuck === null) {
    return decideReplacement(record, observation.needed, head, poll, true);
  }
  // The node does not know the transaction: never broadcast (a crash between signing and sending), lost from its pool,
  // or undone by a reorg. The raw form sends the same transaction again (the one the record follows: a replacement's
  // is with its stored transactions).
  if (record.rawTransaction === null && currentTransaction(record) === undefined) {
    return change({ status: "failed", reason: "the node does not know it and no raw transaction was stored", checkInMs: null });
  }
  return { action: "broadcast" };
}

/**
 * A mined record on a simulated chain is looked at again only after the chain lost part of its journal: the block may
 * have moved in the replay (its fields follow quietly), or the transaction is gone, and the record goes back to
 * pending, where the tracker sends it again from its raw form.
 */
function decideMinedOnSimulatedChain(record: LeasedOperation, observation: ChainObservation): OperationChange {
  const { receipt } = observation;
  if (receipt !== null) {
    const moved = receipt.blockNumber !== record.blockNumber || receipt.blockHash !== record.blockHash;
    return { ...(moved ? { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash } : {}), checkInMs: null };
  }
  return {
    status: "pending",
    reason: observation.inPool
      ? "back in the pool after the simulated chain's journal was replayed"
      : "lost with part of the simulated chain's journal: sending it again from the stored raw transaction",
    blockNumber: null,
    blockHash: null,
    checkInMs: 0,
  };
}

function decideBroadcast(
  record: LeasedOperation,
  observation: Extract<Observation, { kind: "broadcast" }>,
  policy: DecidePolicy,
  now: number,
): OperationChange {
  const { outcome, pollMs: poll, head, replaceAfterBlocks } = observation;
  // A transaction first seen (or sent) now counts its replace-after blocks from here.
  const counted = record.broadcastBlock === null && head !== undefined ? { broadcastBlock: head } : {};
  if (outcome.kind === "accepted") {
    return {
      status: "pending",
      reason: record.status === "signed" ? "broadcast from the stored raw transaction" : "re-broadcast: the node no longer knew it",
      missingSince: null,
      ...counted,
      checkInMs: poll,
    };
  }
  if (outcome.kind === "already-known") {
    // Known, yet held nowhere the node could include it: noted, and replaced at the next look if it is still so.
    if (observation.heldNowhere && record.status === "pending") {
      return { ...(record.missingSince === null ? { missingSince: new Date(now) } : {}), ...counted, checkInMs: poll };
    }
    return { status: "pending", missingSince: null, ...counted, checkInMs: poll };
  }
  if (outcome.transient && observation.behindReservation) {
    // Not missing: waiting for the reserved nonce below, whose filler goes once it expires. The drop window starts
    // only once nothing below explains the refusal.
    return {
      ...(record.missingSince !== null ? { missingSince: null } : {}),
      ...counted,
      checkInMs: Math.min(poll * 5, policy.dropAfterMs),
    };
  }
  const refusal = outcome.error.message;
  const since = record.missingSince === null ? now : Date.parse(record.missingSince);
  const missingFor = now - since;
  const retry = {
    missingSince: new Date(since),
    ...(record.status === "pending" ? counted : {}),
    checkInMs: Math.min(poll * 5, policy.dropAfterMs),
  };
  if (outcome.transient) {
    // The node answers reads but not this broadcast: keep trying for the drop window, then give up.
    if (missingFor < policy.dropAfterMs) return record.status === "signed" ? retry : { checkInMs: RETRY_AFTER_ERROR_MS };
    if (record.status !== "signed") return { checkInMs: RETRY_AFTER_ERROR_MS };
    return {
      status: "dropped",
      reason: `never reached the node: broadcasting failed for ${Math.round(missingFor / 1000)} s (${refusal})`,
      error: { code: RecordErrorCode.TRANSACTION_DROPPED, message: "the transaction could not be broadcast within the drop window" },
      checkInMs: null,
    };
  }
  if (record.status === "signed") {
    return { status: "failed", reason: refusal, error: { code: outcome.error.code, message: refusal }, checkInMs: null };
  }
  if (outcome.underpriced) {
    // Too cheap for the chain now, not lost to another transaction: it waits for fees to fall (never dropped for it),
    // and past its replace-after blocks with no step left, it is stuck.
    const due = head !== undefined && replaceAfterBlocks !== undefined && replacementDue(record, head, replaceAfterBlocks);
    return {
      ...(due ? { stuck: stuckNotice(record, head) } : {}),
      ...(record.missingSince === null ? { missingSince: new Date(now) } : {}),
      ...counted,
      checkInMs: Math.min(poll * 5, policy.dropAfterMs),
    };
  }
  if (missingFor >= policy.dropAfterMs) {
    return {
      status: "dropped",
      reason: `the node lost it and refused it again for ${Math.round(missingFor / 1000)} s: ${refusal}`,
      error: { code: RecordErrorCode.TRANSACTION_DROPPED, message: `the node dropped the transaction; sent again, ${refusal}` },
      checkInMs: null,
    };
  }
  return retry;
}

/**
 * What the request that signed a record writes after its own broadcast was refused or went unanswered: the node's
 * refusal is final (`failed`); no answer leaves the record `signed`, for the tracker to find out and send it if needed.
 * (An accepted broadcast writes nothing here: the tracker's first look writes `pending`.)
 */
export function decideSent(refusal: { code: string; message: string; transient: boolean }, pollMs: number): OperationChange {
  if (refusal.transient) {
    return {
      from: ["signed"],
      reason: `broadcast outcome unknown (${refusal.message}); the tracker will send it`,
      checkInMs: pollMs,
    };
  }
  return {
    status: "failed",
    from: ["signed"],
    reason: `broadcast refused: ${refusal.message}`,
    error: { code: refusal.code, message: refusal.message },
    checkInMs: null,
  };
}

/** A faucet grant recorded `signed` before the balance changed ends `mined` once made, `failed` if making it failed. */
export function decideGrant(outcome: { balance: bigint } | { error: { code: string; message: string } }): OperationChange {
  if ("error" in outcome) {
    return { status: "failed", from: ["signed"], reason: `grant failed: ${outcome.error.message}`, error: outcome.error, checkInMs: null };
  }
  return { status: "mined", from: ["signed"], reason: "granted", result: { balance: outcome.balance.toString() }, checkInMs: null };
}
