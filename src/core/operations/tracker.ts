import { randomUUID } from "node:crypto";

import { RecordErrorCode, isTokenServiceError } from "../../domain/errors.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import { mintedTokenId } from "../../chains/evm/write/mint.js";
import { CanonicalBlocks } from "./canonical-blocks.js";
import { translateProviderError } from "../../chains/evm/provider-errors.js";
import type { LeasedOperation, OperationChange, OperationRecord, OperationStore } from "./types.js";

export interface TrackerSettings {
  /** Confirmations a live transaction needs before it is `mined` (simulated chains: 1). */
  confirmations: number;
  /** How long a pending transaction the node lost is re-broadcast before it is marked `dropped`. */
  dropAfterMs: number;
  /** How long a mined transaction on a live network is re-checked for a reorg. */
  reorgWatchMs: number;
  /** How long a tracker holds a record; another replica may take it over afterwards. */
  leaseMs: number;
  /** How often an idle tracker asks the store for due records. */
  idlePollMs: number;
  /**
   * Follow only the records this process made (a task beside a running service leaves the service's records to it);
   * what it leaves unfinished, the service's tracker follows.
   */
  ownRecordsOnly?: boolean;
}

export const DEFAULT_TRACKER_SETTINGS: TrackerSettings = {
  confirmations: 1,
  dropAfterMs: 10 * 60_000,
  reorgWatchMs: 60 * 60_000,
  leaseMs: 30_000,
  idlePollMs: 250,
};

/**
 * How soon a mined record is looked at again: often while it is young, then less as it ages (reorgs are shallow),
 * so an hour's watch costs each record about fifty looks instead of one every few seconds.
 */
function reorgCheckInMs(pollMs: number, minedForMs: number): number {
  return Math.max(pollMs * 5, Math.round(minedForMs / 10));
}

/** After a node error, look again in this long. */
const RETRY_AFTER_ERROR_MS = 2_000;
const BATCH = 50;
const BUSY_PASS_INTERVAL_MS = 20;

type ChainFor = (record: OperationRecord) => Promise<EvmChain>;

/** Upstream trouble (down, slow, failing) says nothing about the transaction: try again later. */
export function isTransient(error: unknown): boolean {
  return isTokenServiceError(error, "UPSTREAM_UNAVAILABLE") || isTokenServiceError(error, "UPSTREAM_TIMEOUT");
}

/** The node already has this very transaction. Checked on the raw error, whose text is not stored. */
const isAlreadyKnown = (error: unknown) =>
  /already known|known transaction|already imported/i.test(String((error as { message?: unknown })?.message ?? error));

/**
 * Follows every unfinished operation in the store to a final state, whichever process recorded it:
 * it leases due records (one tracker per record at a time), asks the node, and writes what changed.
 * A `signed` record the node does not know is broadcast from its raw form; a `pending` one the node
 * lost is re-broadcast, then `dropped` after `dropAfterMs`; a live `mined` one whose block left the
 * canonical chain goes back to `pending`.
 */
export class OperationTracker {
  readonly owner = `tracker-${randomUUID()}`;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly canonicalBlocks = new CanonicalBlocks();
  private kickTimer: NodeJS.Timeout | undefined;
  private kickAt = Infinity;
  /** Records this process is broadcasting right now: the tracker leaves them to the request until it returns. */
  private readonly broadcasting = new Set<string>();
  /** Records whose broadcast the node accepted here (answered `pending`); the tracker writes that state at its first look. */
  private readonly accepted = new Set<string>();
  /** Records this process made, for a tracker that follows only those. */
  private readonly own = new Set<string>();

  constructor(
    private readonly store: OperationStore,
    private readonly chainFor: ChainFor,
    private readonly settings: TrackerSettings,
  ) {}

  start(): void {
    this.stopped = false;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** Looks at due records now (or in `afterMs`, when a record falls due) instead of at the next idle poll. */
  kick(afterMs = 0): void {
    if (afterMs <= 0) return void this.wake?.();
    // Kicks coalesce: a burst of launches wakes the tracker once, and that pass takes them all.
    const at = Date.now() + afterMs;
    if (this.kickTimer !== undefined && this.kickAt <= at) return;
    clearTimeout(this.kickTimer);
    this.kickAt = at;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      this.wake?.();
    }, afterMs).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await this.running;
    clearTimeout(this.kickTimer);
    // What this process held (records it was broadcasting, a pass cut short) goes to the other trackers now, not at lease end.
    await this.store.releaseLeases(this.owner).catch(() => undefined);
  }

  /** Resolves when this process changes the record, or after `ms`. */
  changed(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Runs `send` with the record left alone by this tracker; other processes' trackers keep off through its insert lease. */
  async whileBroadcasting<T>(id: string, send: () => Promise<T>): Promise<T> {
    this.broadcasting.add(id);
    try {
      const sent = await send();
      this.accepted.add(id);
      this.follow(id);
      return sent;
    } finally {
      this.broadcasting.delete(id);
    }
  }

  /** Counts the record among this process's own (see `ownRecordsOnly`) until it is final. */
  follow(id: string): void {
    // Kept only where it filters: a service's tracker follows every record, and another replica may finish this one.
    if (this.settings.ownRecordsOnly) this.own.add(id);
  }

  notify(id: string): void {
    for (const waiter of [...(this.waiters.get(id) ?? [])]) waiter();
  }

  /** One pass over the due records; answers how many it looked at. */
  async runOnce(): Promise<number> {
    const due = await this.store.leaseDueOperations(this.owner, this.settings.leaseMs, BATCH, {
      skip: this.broadcasting,
      ...(this.settings.ownRecordsOnly ? { only: this.own } : {}),
    });
    if (due.length === 0) return 0;
    // One head per chain and pass: the records of a burst are looked at together, against the same block.
    const heads = new Map<EvmChain, Promise<number>>();
    const headOf = (chain: EvmChain) => {
      let head = heads.get(chain);
      if (head === undefined) heads.set(chain, (head = chain.provider.getBlockNumber()));
      return head;
    };
    const changes = await Promise.all(due.map(async (record) => ({ id: record.id, change: await this.decide(record, headOf) })));
    const changed = await this.store.changeOperations(changes, this.owner).catch(() => changes.map(() => undefined));
    changes.forEach(({ id, change }, index) => {
      if (change.checkInMs === null) this.own.delete(id);
      if (changed[index] !== undefined && change.reason !== undefined) this.notify(id);
    });
    return due.length;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let looked = 0;
      try {
        looked = await this.runOnce();
      } catch {
        // The store is unreachable; its records wait for it, nothing is lost.
      }
      if (!this.stopped && looked < BATCH) {
        // A busy tracker pauses briefly between passes, so that each pass (one lease, one commit) takes more records.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, looked === 0 ? this.settings.idlePollMs : BUSY_PASS_INTERVAL_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  private async decide(record: LeasedOperation, headOf: (chain: EvmChain) => Promise<number>): Promise<OperationChange> {
    // What the request answered comes first: the node may already have lost it, and that is the next look's business.
    if (this.accepted.delete(record.id) && record.status === "signed")
      return { status: "pending", reason: "accepted by the node", checkInMs: 0 };
    try {
      return await this.next(record, await this.chainFor(record), headOf);
    } catch {
      // The node (or the pair's configuration) is failing: nothing is known, so nothing changes but the next look.
      return { checkInMs: RETRY_AFTER_ERROR_MS };
    }
  }

  /** A faucet grant recorded before a crash: found in the chain's journal, or made now under the same name. */
  private async finishGrant(record: LeasedOperation, chain: EvmChain): Promise<OperationChange> {
    if (chain.fund === undefined || chain.hasGrant === undefined) {
      return {
        status: "failed",
        reason: `${chain.info.chain}/${chain.info.network} is no longer simulated: nothing was granted`,
        checkInMs: null,
      };
    }
    const { address, amount } = record.params as { address: string; amount: string };
    if (chain.hasGrant(record.id)) {
      // The balance right after the grant is gone with the process: the answer a retry gets says the balance now.
      const balance = await chain.provider.getBalance(address);
      return {
        status: "mined",
        reason: "granted (found in the chain's journal)",
        result: { balance: balance.toString() },
        checkInMs: null,
      };
    }
    const balance = await chain.fund(address, BigInt(amount), record.id);
    return {
      status: "mined",
      reason: "granted after a restart (the process that recorded it stopped first)",
      result: { balance: balance.toString() },
      checkInMs: null,
    };
  }

  /** A live `mined` record goes back to `pending` when its block is no longer the canonical one at its height. */
  private async watchForReorg(record: LeasedOperation, chain: EvmChain): Promise<OperationChange> {
    const canonical = record.blockNumber === null ? null : await this.canonicalBlocks.hashAt(chain, record.blockNumber);
    if (canonical === null || canonical !== record.blockHash) {
      return {
        status: "pending",
        reason: `reorg: block ${record.blockNumber} (${record.blockHash}) is no longer canonical`,
        blockNumber: null,
        blockHash: null,
        checkInMs: chain.pollingIntervalMs,
      };
    }
    const minedForMs = record.minedAt === null ? Infinity : Date.now() - Date.parse(record.minedAt);
    return { checkInMs: minedForMs < this.settings.reorgWatchMs ? reorgCheckInMs(chain.pollingIntervalMs, minedForMs) : null };
  }

  /** What the node says about a record, as the change to write. */
  private async next(record: LeasedOperation, chain: EvmChain, headOf: (chain: EvmChain) => Promise<number>): Promise<OperationChange> {
    if (record.kind === "faucet") return this.finishGrant(record, chain);
    const hash = record.transactionHash;
    if (hash === null) return { status: "failed", reason: "no transaction hash recorded", checkInMs: null };
    const poll = chain.pollingIntervalMs;
    if (record.status === "mined") return this.watchForReorg(record, chain);
    const [receipt, head] = await Promise.all([chain.provider.getTransactionReceipt(hash), headOf(chain)]);

    // Accepted by the node while the process that sent it could not say so (it died before its tracker looked).
    if (record.status === "signed" && receipt !== null) {
      return { status: "pending", reason: "accepted by the node", missingSince: null, checkInMs: 0 };
    }

    if (receipt !== null) {
      const confirmations = head - receipt.blockNumber + 1;
      const required = chain.simulated ? 1 : this.settings.confirmations;
      const block = { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, missingSince: null };
      if (confirmations < required) {
        const moved = record.blockHash !== receipt.blockHash;
        return {
          status: "pending",
          ...block,
          ...(moved ? { reason: `included in block ${receipt.blockNumber}; waiting for ${required} confirmations` } : {}),
          checkInMs: poll,
        };
      }
      const keepWatching = !chain.simulated && this.settings.reorgWatchMs > 0;
      if (receipt.status !== 1) {
        return {
          status: "failed",
          reason: `reverted in block ${receipt.blockNumber}`,
          error: { code: RecordErrorCode.TRANSACTION_REVERTED, message: `the transaction reverted in block ${receipt.blockNumber}` },
          ...block,
          checkInMs: null,
        };
      }
      const tokenId =
        record.kind === "mint" && record.tokenType === "ERC721" && record.contractAddress
          ? mintedTokenId(receipt, record.contractAddress)
          : undefined;
      return {
        status: "mined",
        reason: `included in block ${receipt.blockNumber}${required > 1 ? ` with ${confirmations} confirmations` : ""}`,
        ...block,
        ...(tokenId !== undefined ? { result: { ...record.result, tokenId } } : {}),
        checkInMs: keepWatching ? reorgCheckInMs(poll, 0) : null,
      };
    }

    if ((await chain.provider.getTransaction(hash)) !== null) {
      return record.status === "signed"
        ? { status: "pending", reason: "accepted by the node", missingSince: null, checkInMs: poll }
        : { ...(record.missingSince !== null ? { missingSince: null } : {}), checkInMs: poll };
    }

    // The node does not know the transaction: never broadcast (a crash between signing and sending),
    // lost from its pool, or undone by a reorg. The raw form sends the same transaction again.
    if (record.rawTransaction === null) {
      return { status: "failed", reason: "the node does not know it and no raw transaction was stored", checkInMs: null };
    }
    const node = `the ${chain.info.chain}/${chain.info.network} node`;
    try {
      await chain.broadcast(record.rawTransaction);
      return {
        status: "pending",
        reason: record.status === "signed" ? "broadcast from the stored raw transaction" : "re-broadcast: the node no longer knew it",
        missingSince: null,
        checkInMs: poll,
      };
    } catch (raw) {
      if (isAlreadyKnown(raw)) return { status: "pending", missingSince: null, checkInMs: poll };
      // Only the typed message is stored: the node's own text may quote the endpoint with its credentials.
      const error = translateProviderError(raw, node);
      const refusal = error.message;
      if (isTransient(error) && record.status === "signed") {
        // The node answers reads but not this broadcast: keep trying for the drop window, then give up.
        const since = record.missingSince === null ? new Date() : new Date(record.missingSince);
        if (Date.now() - since.getTime() < this.settings.dropAfterMs)
          return { missingSince: since, checkInMs: Math.min(poll * 5, this.settings.dropAfterMs) };
        return {
          status: "dropped",
          reason: `never reached the node: broadcasting failed for ${Math.round((Date.now() - since.getTime()) / 1000)} s (${refusal})`,
          error: { code: RecordErrorCode.TRANSACTION_DROPPED, message: "the transaction could not be broadcast within the drop window" },
          checkInMs: null,
        };
      }
      if (isTransient(error)) throw error;
      if (record.status === "signed") {
        return { status: "failed", reason: refusal, error: { code: error.code, message: refusal }, checkInMs: null };
      }
      const missingSince = record.missingSince === null ? new Date() : new Date(record.missingSince);
      if (Date.now() - missingSince.getTime() >= this.settings.dropAfterMs) {
        return {
          status: "dropped",
          reason: `the node lost it and refused it again for ${Math.round((Date.now() - missingSince.getTime()) / 1000)} s: ${refusal}`,
          error: { code: RecordErrorCode.TRANSACTION_DROPPED, message: `the node dropped the transaction; sent again, ${refusal}` },
          checkInMs: null,
        };
      }
      return { missingSince, checkInMs: Math.min(poll * 5, this.settings.dropAfterMs) };
    }
  }
}
