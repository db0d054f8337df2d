import { eventsOf, type ChainEvent, type NativeTransfer, type ScannedBlock, type WatchedSubscription } from "./match.js";
import { TRANSFER_TOPICS, type ChainLog } from "./transfer-logs.js";
import type { FoundEvent, NotificationStore, ScanLease, ScannedHash, SubscriptionRecord } from "./types.js";

// One pair's scan (docs/notifications.md): follows the head, reads each new range's logs (the token transfer topics
// for address subscriptions, the watched contracts' logs) and, when an address watches its native currency, the
// range's blocks with their transactions; matches them against every subscription of the pair at once (one scan per
// chain, not per subscription), and commits the range with its events. A new block whose parent is not the block
// scanned at its height is a reorg: the scan walks back to the last block that still holds and rewinds there (the
// store writes removals for what was delivered above it), then scans again.

/** A block as the scan reads it: where it is, what it follows, and (when asked) its top-level value transfers. */
export interface SourceBlock {
  number: number;
  hash: string;
  parentHash: string;
  transfers: NativeTransfer[];
}

export interface SourceLog extends ChainLog {
  blockNumber: number;
  blockHash: string;
}

/** What a scan reads of a chain: the EVM adapter (chains/evm/follow/block-source.ts) answers it from a node. */
export interface BlockSource {
  /** The head: its height and hash. */
  head(): Promise<{ number: number; hash: string }>;
  /** Blocks `from` to `to` in order, with their value transfers when `withTransactions`; shorter when the node has fewer. */
  blocks(from: number, to: number, withTransactions: boolean): Promise<SourceBlock[]>;
  /** Logs of blocks `from` to `to` whose first topic is one of `topics` (any address), or emitted by one of `addresses`. */
  logs(from: number, to: number, filter: { topics: readonly string[] } | { addresses: readonly string[] }): Promise<SourceLog[]>;
}

export interface ScanSettings {
  /** How long a replica holds a pair's scan without renewing it. */
  leaseMs: number;
  /** The most blocks one step reads (a backfill, a scan catching up after a stop). */
  maxRange: number;
}

export const DEFAULT_SCAN_SETTINGS: ScanSettings = { leaseMs: 15_000, maxRange: 500 };

/** How many of the newest scanned blocks' hashes the scan keeps to walk a reorg back (deeper ones rescan from the oldest). */
export const KEPT_SCANNED_HASHES = 128;

export type StepOutcome =
  /** Caught up with the head: wait for the next block. */
  | "idle"
  /** Scanned, rewound or backfilled something: step again at once. */
  | "progress"
  /** Another replica holds the scan, or there is nothing to scan: look again later. */
  | "elsewhere";

export class PairScanner {
  private lease: (ScanLease & { renewAt: number }) | undefined;

  constructor(
    private readonly store: NotificationStore,
    readonly chain: string,
    readonly network: string,
    private readonly source: BlockSource,
    private readonly owner: string,
    private readonly settings: ScanSettings = DEFAULT_SCAN_SETTINGS,
    private readonly now: () => number = Date.now,
  ) {}

  async step(): Promise<StepOutcome> {
    const lease = await this.leased();
    if (lease === undefined) return "elsewhere";
    const subscriptions = await this.store.subscriptionsOf(this.chain, this.network);
    if (subscriptions.length === 0) {
      await this.release();
      return "elsewhere";
    }
    const head = await this.source.head();
    const next = lease.nextBlock ?? Math.min(...subscriptions.map((subscription) => subscription.startBlock));
    const last = lease.recent.at(-1);
    if (last !== undefined && head.number === last.number && head.hash !== last.hash) return this.rewindFrom(last.number, head.number);
    if (next <= head.number) return this.scan(subscriptions, next, Math.min(head.number, next + this.settings.maxRange - 1), head.number);
    if (last !== undefined && head.number < last.number) return this.rewindFrom(head.number + 1, head.number);
    return (await this.backfill(subscriptions, next, head.number)) ? "progress" : "idle";
  }

  /** Lets the scan go, for another replica to take at once (a process stopping). */
  async release(): Promise<void> {
    if (this.lease === undefined) return;
    this.lease = undefined;
    await this.store.releaseScan(this.chain, this.network, this.owner);
  }

  /** The lease, renewed when a third of it has passed (an idle scan writes nothing more often). */
  private async leased(): Promise<ScanLease | undefined> {
    if (this.lease !== undefined && this.now() < this.lease.renewAt) return this.lease;
    const taken = await this.store.leaseScan(this.chain, this.network, this.owner, this.settings.leaseMs);
    this.lease = taken === undefined ? undefined : { ...taken, renewAt: this.now() + this.settings.leaseMs / 3 };
    return this.lease;
  }

  private async scan(subscriptions: SubscriptionRecord[], from: number, to: number, head: number): Promise<StepOutcome> {
    const lease = this.lease!;
    const blocks = await this.readRange(subscriptions, from, to);
    if (blocks === undefined) return "progress";
    const first = blocks.headers[0];
    const below = lease.recent.find((kept) => kept.number === from - 1);
    if (first !== undefined && below !== undefined && first.parentHash !== below.hash) return this.rewindFrom(from - 1, head);
    const found = this.found(blocks.scanned, subscriptions);
    const kept = blocks.headers.map(({ number, hash }) => ({ number, hash }));
    return this.commit({ blocks: kept, found, nextBlock: to + 1, head }, kept);
  }

  /**
   * Reads a range: the headers at its ends (each block's, when the transfers of native currency are wanted) and the logs
   * the subscriptions ask for. Undefined when the node answered blocks that do not agree with each other (a reorg while
   * reading): the step is taken again.
   */
  private async readRange(
    subscriptions: readonly SubscriptionRecord[],
    from: number,
    to: number,
  ): Promise<{ headers: SourceBlock[]; scanned: ScannedBlock[] } | undefined> {
    const wantsNative = subscriptions.some(
      (subscription) => subscription.target.kind === "address" && subscription.target.assets.includes("native"),
    );
    const wantsTokens = subscriptions.some(
      (subscription) => subscription.target.kind === "address" && subscription.target.assets.some((asset) => asset !== "native"),
    );
    const contracts = [
      ...new Set(
        subscriptions.flatMap((subscription) =>
          subscription.target.kind === "contract" ? [subscription.target.contract.toLowerCase()] : [],
        ),
      ),
    ];
    const [headers, tokenLogs, contractLogs] = await Promise.all([
      wantsNative
        ? this.source.blocks(from, to, true)
        : Promise.all([this.source.blocks(from, from, false), to === from ? [] : this.source.blocks(to, to, false)]).then((ends) =>
            ends.flat(),
          ),
      wantsTokens ? this.source.logs(from, to, { topics: Object.values(TRANSFER_TOPICS) }) : [],
      contracts.length > 0 ? this.source.logs(from, to, { addresses: contracts }) : [],
    ]);
    if (headers.length === 0 || headers.at(-1)!.number !== to) return undefined;
    const hashes = new Map(headers.map((header) => [header.number, header.hash]));
    const byBlock = new Map<number, { hash: string; logs: Map<string, ChainLog> }>();
    for (const log of [...tokenLogs, ...contractLogs]) {
      const known = hashes.get(log.blockNumber);
      if (known !== undefined && known !== log.blockHash.toLowerCase()) return undefined;
      const entry = byBlock.get(log.blockNumber) ?? { hash: log.blockHash.toLowerCase(), logs: new Map<string, ChainLog>() };
      if (entry.hash !== log.blockHash.toLowerCase()) return undefined;
      // A log both queries answered (a watched contract's transfer) is one log.
      entry.logs.set(`${log.transactionHash}:${log.logIndex}`, log);
      byBlock.set(log.blockNumber, entry);
    }
    const scanned: ScannedBlock[] = [];
    const numbers = new Set([...byBlock.keys(), ...(wantsNative ? headers.map((header) => header.number) : [])]);
    for (const number of [...numbers].sort((a, b) => a - b)) {
      const header = headers.find((block) => block.number === number);
      const entry = byBlock.get(number);
      scanned.push({
        chain: this.chain,
        network: this.network,
        number,
        hash: header?.hash ?? entry!.hash,
        logs: [...(entry?.logs.values() ?? [])],
        transfers: header?.transfers ?? [],
      });
    }
    return { headers, scanned };
  }

  /** Each block's events for the subscriptions watching it (from its startBlock on), with when each is due. */
  private found(blocks: readonly ScannedBlock[], subscriptions: readonly SubscriptionRecord[]): FoundEvent[] {
    const found: FoundEvent[] = [];
    const confirmations = new Map(subscriptions.map((subscription) => [subscription.id, subscription.confirmations]));
    for (const block of blocks) {
      const watching: WatchedSubscription[] = subscriptions.filter((subscription) => subscription.startBlock <= block.number);
      for (const event of eventsOf(block, watching)) found.push({ event, dueAt: dueAt(event, confirmations.get(event.subscriptionId)!) });
    }
    return found;
  }

  /** A subscription made with a fromBlock below the scan's cursor: the next range of its own backfill. */
  private async backfill(subscriptions: readonly SubscriptionRecord[], cursor: number, head: number): Promise<boolean> {
    const behind = subscriptions.find((subscription) => subscription.backfillNext !== null);
    if (behind === undefined) return false;
    const from = behind.backfillNext!;
    const to = Math.min(cursor - 1, from + this.settings.maxRange - 1);
    if (to < from) {
      await this.commit({ blocks: [], found: [], nextBlock: cursor, head, backfill: { subscriptionId: behind.id } });
      return true;
    }
    const blocks = await this.readRange([behind], from, to);
    if (blocks === undefined) return true;
    const found = this.found(blocks.scanned, [behind]);
    await this.commit({ blocks: [], found, nextBlock: to + 1, head, backfill: { subscriptionId: behind.id } });
    return true;
  }

  private async commit(scan: Parameters<NotificationStore["commitScan"]>[3], kept?: ScannedHash[]): Promise<StepOutcome> {
    const committed = await this.store.commitScan(this.chain, this.network, this.owner, scan);
    if (!committed) {
      this.lease = undefined;
      return "elsewhere";
    }
    if (kept !== undefined && this.lease !== undefined) {
      const recent = [...this.lease.recent.filter((hash) => hash.number < kept[0]!.number), ...kept];
      this.lease = { ...this.lease, nextBlock: scan.nextBlock, recent: recent.slice(-KEPT_SCANNED_HASHES) };
    }
    return "progress";
  }

  /**
   * The block scanned at `height` (or a block below it) is no longer the chain's: walks the kept hashes down to the
   * highest that still holds and rewinds there; below every kept one, rescans from the oldest kept.
   */
  private async rewindFrom(height: number, head: number): Promise<StepOutcome> {
    const lease = this.lease!;
    let ancestor = (lease.recent[0]?.number ?? height) - 1;
    for (const kept of [...lease.recent].reverse()) {
      if (kept.number >= height) continue;
      const [block] = await this.source.blocks(kept.number, kept.number, false);
      if (block !== undefined && block.hash === kept.hash) {
        ancestor = kept.number;
        break;
      }
    }
    const rewound = await this.store.rewindScan(this.chain, this.network, this.owner, ancestor, head);
    if (!rewound) {
      this.lease = undefined;
      return "elsewhere";
    }
    this.lease = { ...lease, nextBlock: ancestor + 1, recent: lease.recent.filter((kept) => kept.number <= ancestor) };
    return "progress";
  }
}

/** When an event's block has the confirmations its subscription asks: on first sight for 0 or 1. */
function dueAt(event: ChainEvent, confirmations: number): number {
  return event.blockNumber + Math.max(confirmations, 1) - 1;
}
