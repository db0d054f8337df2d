import { randomUUID } from "node:crypto";

import { isTokenServiceError } from "../../domain/errors.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import { mintedTokenIds } from "../../chains/evm/write/mint.js";
import { CanonicalBlocks } from "./canonical-blocks.js";
import { RETRY_AFTER_ERROR_MS, decide, type DecidePolicy, type Observation } from "./decide.js";
import { translateProviderError } from "../../chains/evm/provider-errors.js";
import type { LeasedOperation, OperationChange, OperationRecord, OperationStore } from "./types.js";

/** The tracker's settings: how records are judged (`DecidePolicy`: confirmations, drop and reorg windows), and its pace. */
export interface TrackerSettings extends DecidePolicy {
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
    /** The clock records are judged by (drop and reorg windows); tests pass their own. */
    private readonly now: () => number = Date.now,
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
    const changes = await Promise.all(due.map(async (record) => ({ id: record.id, change: await this.judge(record, headOf) })));
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

  /** Observes a record, lets `decide` judge, carries out the action it asks for (at most a broadcast or a grant), and judges again. */
  private async judge(record: LeasedOperation, headOf: (chain: EvmChain) => Promise<number>): Promise<OperationChange> {
    // What the request answered comes first: the node may already have lost it, and that is the next look's business.
    if (this.accepted.delete(record.id) && record.status === "signed") return this.decision(record, { kind: "accepted-here" });
    try {
      const chain = await this.chainFor(record);
      const decision = decide(record, await this.observe(record, chain, headOf), this.settings, this.now());
      if ("change" in decision) return decision.change;
      return this.decision(record, decision.action === "grant" ? await this.grant(record, chain) : await this.broadcast(record, chain));
    } catch {
      // The node (or the pair's configuration) is failing: nothing is known, so nothing changes but the next look.
      return this.decision(record, { kind: "node-error" });
    }
  }

  private decision(record: LeasedOperation, observation: Observation): OperationChange {
    const decision = decide(record, observation, this.settings, this.now());
    // An action after an action is not in the table: look again later rather than loop.
    return "change" in decision ? decision.change : { checkInMs: RETRY_AFTER_ERROR_MS };
  }

  /** What the chain says of a record now. */
  private async observe(record: LeasedOperation, chain: EvmChain, headOf: (chain: EvmChain) => Promise<number>): Promise<Observation> {
    const label = `${chain.info.chain}/${chain.info.network}`;
    if (record.kind === "faucet") {
      if (chain.fund === undefined || chain.hasGrant === undefined)
        return { kind: "grant", simulated: false, granted: false, chainLabel: label };
      const { address } = record.params as { address: string };
      if (!chain.hasGrant(record.id)) return { kind: "grant", simulated: true, granted: false, chainLabel: label };
      return { kind: "grant", simulated: true, granted: true, balance: await chain.provider.getBalance(address), chainLabel: label };
    }
    const poll = chain.pollingIntervalMs;
    // On a simulated chain a mined record is looked at only after its journal lost lines (is the transaction still
    // there?), or after a reorg fault replaced its block (checked as on a live network).
    const replacedFrom = chain.faults?.replacedFrom();
    const reorged = replacedFrom !== undefined && record.blockNumber !== null && record.blockNumber >= replacedFrom;
    if (record.status === "mined" && (!chain.simulated || reorged)) {
      const hash = record.blockNumber === null ? null : await this.canonicalBlocks.hashAt(chain, record.blockNumber);
      return { kind: "canonical", hash, pollMs: poll, ...(chain.simulated ? { simulated: true } : {}) };
    }
    const hash = record.transactionHash;
    if (hash === null) return { kind: "no-transaction" };
    const [receipt, head] = await Promise.all([chain.provider.getTransactionReceipt(hash), headOf(chain)]);
    const inPool = receipt === null ? (await chain.provider.getTransaction(hash)) !== null : false;
    const minted =
      receipt !== null && record.kind === "mint" && record.tokenType === "ERC721" && record.contractAddress
        ? mintedTokens(record, mintedTokenIds(receipt, record.contractAddress))
        : undefined;
    return {
      kind: "chain",
      simulated: chain.simulated,
      pollMs: poll,
      head,
      receipt: receipt === null ? null : { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, status: receipt.status },
      inPool,
      ...(minted !== undefined ? { minted } : {}),
    };
  }

  /** Sends the stored raw transaction again; how the node answered. */
  private async broadcast(record: LeasedOperation, chain: EvmChain): Promise<Observation> {
    const pollMs = chain.pollingIntervalMs;
    try {
      await chain.broadcast(record.rawTransaction!);
      return { kind: "broadcast", outcome: { kind: "accepted" }, pollMs };
    } catch (raw) {
      if (isAlreadyKnown(raw)) return { kind: "broadcast", outcome: { kind: "already-known" }, pollMs };
      // Only the typed message is stored: the node's own text may quote the endpoint with its credentials.
      const error = translateProviderError(raw, `the ${chain.info.chain}/${chain.info.network} node`);
      return {
        kind: "broadcast",
        outcome: { kind: "refused", error: { code: error.code, message: error.message }, transient: isTransient(error) },
        pollMs,
      };
    }
  }

  /** A faucet grant recorded before a crash and not in the chain's journal: made now, under the same name. */
  private async grant(record: LeasedOperation, chain: EvmChain): Promise<Observation> {
    const { address, amount } = record.params as { address: string; amount: string };
    return { kind: "granted", balance: await chain.fund!(address, BigInt(amount), record.id) };
  }
}

/** What an ERC721 mint's receipt says it minted: a batch's ids in the order of its recipients, or one mint's id. */
function mintedTokens(record: LeasedOperation, ids: string[]): { tokenId: string } | { tokenIds: string[] } | undefined {
  if (Array.isArray(record.params.recipients)) return { tokenIds: ids };
  return ids[0] !== undefined ? { tokenId: ids[0] } : undefined;
}
