import { ErrorCode, RecordErrorCode } from "../../domain/errors.js";
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
}

/** How the node answered a broadcast of the stored raw transaction. */
export type BroadcastOutcome =
  { kind: "accepted" } | { kind: "already-known" } | { kind: "refused"; error: { code: string; message: string }; transient: boolean };

/** What the tracker (or the request that sent it) saw of a record's transaction. */
export type Observation =
  /** The request that sent it heard the node accept it. */
  | { kind: "accepted-here" }
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
   * chain's record looked at after a reorg fault, not watched any longer once its block is found canonical.
   */
  | { kind: "canonical"; hash: string | null; pollMs: number; simulated?: boolean }
  /** The node's view of an unfinished record's transaction. */
  | {
      kind: "chain";
      simulated: boolean;
      pollMs: number;
      head: number;
      receipt: { blockNumber: number; blockHash: string; status: number | null } | null;
      /** With no receipt: whether the node still holds the transaction. */
      inPool: boolean;
      /** What an ERC721 mint minted, read from the receipt's logs: its token id, or a batch's, in recipients' order. */
      minted?: { tokenId: string } | { tokenIds: string[] };
      /**
       * With no receipt and not in the pool: the sender's nonce count at the block with the required confirmations, when
       * it is past the record's nonce. Another transaction took that nonce (sent elsewhere, or replacing this one): this
       * transaction can never be mined.
       */
      nonceTakenBy?: { confirmedNonce: number };
    }
  /** The tracker sent the stored raw transaction (the node did not know it). */
  | { kind: "broadcast"; outcome: BroadcastOutcome; pollMs: number };

export type Decision = { change: OperationChange } | { action: "broadcast" } | { action: "grant" };

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
      return record.status === "signed" ? change({ status: "pending", reason: "accepted by the node", checkInMs: 0 }) : change({});
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
      return change(decideBroadcast(record, observation.outcome, observation.pollMs, policy, now));
  }
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
  if (observation.hash === null || observation.hash !== record.blockHash) {
    return {
      status: "pending",
      reason: `reorg: block ${record.blockNumber} (${record.blockHash}) is no longer canonical`,
      blockNumber: null,
      blockHash: null,
      checkInMs: observation.pollMs,
    };
  }
  if (observation.simulated) return { checkInMs: null };
  const minedForMs = record.minedAt === null ? Infinity : now - Date.parse(record.minedAt);
  return { checkInMs: minedForMs < policy.reorgWatchMs ? reorgCheckInMs(observation.pollMs, minedForMs) : null };
}

function decideOnChain(record: LeasedOperation, observation: Extract<Observation, { kind: "chain" }>, policy: DecidePolicy): Decision {
  const { receipt, head, pollMs: poll } = observation;
  if (record.status === "mined") return change(decideMinedOnSimulatedChain(record, observation));
  // Accepted by the node while the process that sent it could not say so (it died before its tracker looked).
  if (record.status === "signed" && receipt !== null) {
    return change({ status: "pending", reason: "accepted by the node", missingSince: null, checkInMs: 0 });
  }
  if (receipt !== null) {
    const confirmations = head - receipt.blockNumber + 1;
    const required = observation.simulated ? 1 : policy.confirmations;
    const block = { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, missingSince: null };
    if (confirmations < required) {
      const moved = record.blockHash !== receipt.blockHash;
      return change({
        status: "pending",
        ...block,
        ...(moved ? { reason: `included in block ${receipt.blockNumber}; waiting for ${required} confirmations` } : {}),
        checkInMs: poll,
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
    const keepWatching = !observation.simulated && policy.reorgWatchMs > 0;
    const minted = observation.minted;
    return change({
      status: "mined",
      reason: `included in block ${receipt.blockNumber}${required > 1 ? ` with ${confirmations} confirmations` : ""}`,
      ...block,
      ...(minted !== undefined ? { result: { ...record.result, ...minted } } : {}),
      checkInMs: keepWatching ? reorgCheckInMs(poll, 0) : null,
    });
  }
  if (observation.inPool) {
    return change(
      record.status === "signed"
        ? { status: "pending", reason: "accepted by the node", missingSince: null, checkInMs: poll }
        : { ...(record.missingSince !== null ? { missingSince: null } : {}), checkInMs: poll },
    );
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
  // The node does not know the transaction: never broadcast (a crash between signing and sending), lost from its pool,
  // or undone by a reorg. The raw form sends the same transaction again.
  if (record.rawTransaction === null) {
    return change({ status: "failed", reason: "the node does not know it and no raw transaction was stored", checkInMs: null });
  }
  return { action: "broadcast" };
}

/**
 * A mined record on a simulated chain is looked at again only after the chain lost part of its journal: the block may
 * have moved in the replay (its fields follow quietly), or the transaction is gone, and the record goes back to
 * pending, where the tracker sends it again from its raw form.
 */
function decideMinedOnSimulatedChain(record: LeasedOperation, observation: Extract<Observation, { kind: "chain" }>): OperationChange {
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
  outcome: BroadcastOutcome,
  poll: number,
  policy: DecidePolicy,
  now: number,
): OperationChange {
  if (outcome.kind === "accepted") {
    return {
      status: "pending",
      reason: record.status === "signed" ? "broadcast from the stored raw transaction" : "re-broadcast: the node no longer knew it",
      missingSince: null,
      checkInMs: poll,
    };
  }
  if (outcome.kind === "already-known") return { status: "pending", missingSince: null, checkInMs: poll };
  const refusal = outcome.error.message;
  const since = record.missingSince === null ? now : Date.parse(record.missingSince);
  const missingFor = now - since;
  const retry = { missingSince: new Date(since), checkInMs: Math.min(poll * 5, policy.dropAfterMs) };
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
