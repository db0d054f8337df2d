import { bitcoinEventsOf, type ScannedBitcoinBlock } from "./bitcoin-match.js";
import { eventsOf, type ChainEvent, type ScannedBlock, type WatchedSubscription } from "./match.js";
import type { FoundEvent, NotificationStore, ScanLease, ScannedHash, SubscriptionRecord } from "./types.js";

// One pair's scan (docs/notifications.md): follows the head, reads each new range through the pair's block source (on
// an EVM chain the logs the subscriptions ask for and, when an address watches its native currency, the blocks with
// their transactions: evm-sources.ts; on Bitcoin every block with its transactions: bitcoin-sources.ts); matches them
// against every subscription of the pair at once (one scan per chain, not per subscription), and commits the range
// with its events. A new block whose parent is not the block scanned at its height is a reorg: the scan walks back to
// the last block that still holds and rewinds there (the store writes removals for what was delivered above it), then
// scans again.

/** A block's place in the chain: enough to see a reorg. */
export interface SourceHeader {
  number: number;
  hash: string;
  parentHash: string;
}

/** A range as a block source read it for the pair's subscriptions. */
export interface RangeRead {
  /** Headers of the range, in order, the last at its end: each block's, or at least its first and last. */
  headers: SourceHeader[];
  /** The blocks to match, in order: an EVM block's logs and transfers, or a Bitcoin block's transactions. */
  scanned: Array<ScannedBlock | ScannedBitcoinBlock>;
}

/** What a scan reads of a chain: evm-sources.ts and bitcoin-sources.ts answer it from a node. */
export interface BlockSource {
  /** The head: its height and hash. */
  head(): Promise<{ number: number; hash: string }>;
  /** The node's block at `number`; undefined when it has none there. */
  header(number: number): Promise<SourceHeader | undefined>;
  /**
   * Reads blocks `from` to `to` for `subscriptions`. Undefined when the node answered fewer blocks, or blocks that do
   * not agree with each other (a reorg while reading): the step is taken again.
   */
  readRange(subscriptions: readonly SubscriptionRecord[], from: number, to: number): Promise<RangeRead | undefined>;
  /** The most blocks one step reads from it, when fewer than the scan's `maxRange` (a block that takes many requests). */
  readonly maxRange?: number;
  /**
   * Whether the node filters what these subscriptions read (logs by the watched addresses or contracts, no block
   * bodies): a range then answers only what they match, and a step may read up to the scan's `maxFilteredRange`.
   */
  filtersFor?(subscriptions: readonly SubscriptionRecord[]): boolean;
}

export interface ScanSettings {
  /** How long a replica holds a pair's scan without renewing it. */
  leaseMs: number;
  /** The most blocks one step reads (a backfill, a scan catching up after a stop). */
  maxRange: number;
  /** The most blocks one step reads when the node filters the reads (BlockSource.filtersFor). */
  maxFilteredRange: number;
}

/**
 * 2,000 filtered blocks: the widest range that common hosted providers answer whatever the logs' count (a provider
 * that answers less makes the scan narrow its ranges: PairScanner.readNarrowing).
 */
export const DEFAULT_SCAN_SETTINGS: ScanSettings = { leaseMs: 15_000, maxRange: 500, maxFilteredRange: 2_000 };

/** Reads in a row that must succeed before a range narrowed by a refusal is widened again (doubled). */
const WIDEN_AFTER_READS = 5;

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
  /**
   * The next range, read while this one is matched and committed (catching up, or backfilling): its reads and the
   * store's write overlap. One range at most; dropped when the next step asks for another.
   */
  private ahead: { key: string; read: Promise<RangeRead | undefined> } | undefined;
  /** The widest range the node answered lately, once it refused a wider one; undefined while it refuses none. */
  private narrowed: { blocks: number; reads: number } | undefined;

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
    if (last !== undefined && head.number === last.number && head.hash !== last.hash) return this.rewindFrom(last.number);
    if (next <= head.number)
      return this.scan(subscriptions, next, Math.min(head.number, next + this.rangeFor(subscriptions) - 1), head.number);
    if (last !== undefined && head.number < last.number) return this.rewindFrom(head.number + 1);
    return (await this.backfill(subscriptions, next, head.number)) ? "progress" : "idle";
  }

  /**
   * The most blocks one step reads for `subscriptions`: the scan's setting (wider when the node filters their reads),
   * or fewer where the source asks, or where the node lately refused a wider range.
   */
  private rangeFor(subscriptions: readonly SubscriptionRecord[]): number {
    const setting = this.source.filtersFor?.(subscriptions) ? this.settings.maxFilteredRange : this.settings.maxRange;
    return Math.max(1, Math.min(setting, this.source.maxRange ?? Infinity, this.narrowed?.blocks ?? Infinity));
  }

  /**
   * Reads `from`..`to`; a refusal of more than one block narrows the scan's ranges to half of it, and the step is taken
   * again at once (providers cap a read's blocks or logs, each at its own figure, and word the refusal each its own
   * way; a node that is down fails the one-block read too, which is thrown). Undefined when the step is to be taken
   * again.
   */
  private async readNarrowing(key: string, subscriptions: readonly SubscriptionRecord[], from: number, to: number) {
    let blocks: RangeRead | undefined;
    try {
      blocks = await this.read(key, subscriptions, from, to);
    } catch (error) {
      if (to === from) throw error;
      this.narrowed = { blocks: Math.ceil((to - from + 1) / 2), reads: 0 };
      return undefined;
    }
    if (this.narrowed !== undefined && ++this.narrowed.reads >= WIDEN_AFTER_READS) {
      this.narrowed = { blocks: this.narrowed.blocks * 2, reads: 0 };
    }
    return blocks;
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
    const key = `scan:${subscriptions.map((subscription) => subscription.id).join(",")}`;
    const blocks = await this.readNarrowing(key, subscriptions, from, to);
    if (blocks === undefined) return "progress";
    if (to < head) this.readAhead(key, subscriptions, to + 1, Math.min(head, to + this.rangeFor(subscriptions)));
    const first = blocks.headers[0];
    const below = lease.recent.find((kept) => kept.number === from - 1);
    if (first !== undefined && below !== undefined && first.parentHash !== below.hash) return this.rewindFrom(from - 1);
    const found = this.found(blocks.scanned, subscriptions);
    const kept = blocks.headers.map(({ number, hash }) => ({ number, hash }));
    return this.commit({ blocks: kept, found, nextBlock: to + 1, head }, kept);
  }

  /** Each block's events for the subscriptions watching it (from its startBlock on), with when each is due. */
  private found(blocks: RangeRead["scanned"], subscriptions: readonly SubscriptionRecord[]): FoundEvent[] {
    const found: FoundEvent[] = [];
    const confirmations = new Map(subscriptions.map((subscription) => [subscription.id, subscription.confirmations]));
    for (const block of blocks) {
      const watching: WatchedSubscription[] = subscriptions.filter((subscription) => subscription.startBlock <= block.number);
      const events = block.kind === "bitcoin" ? bitcoinEventsOf(block, watching) : eventsOf(block, watching);
      for (const event of events) found.push({ event, dueAt: dueAt(event, confirmations.get(event.subscriptionId)!) });
    }
    return found;
  }

  /** A subscription made with a fromBlock below the scan's cursor: the next range of its own backfill. */
  private async backfill(subscriptions: readonly SubscriptionRecord[], cursor: number, head: number): Promise<boolean> {
    const behind = subscriptions.find((subscription) => subscription.backfillNext !== null);
    if (behind === undefined) return false;
    const from = behind.backfillNext!;
    const to = Math.min(cursor - 1, from + this.rangeFor([behind]) - 1);
    if (to < from) {
      await this.commit({ blocks: [], found: [], nextBlock: cursor, head, backfill: { subscriptionId: behind.id } });
      return true;
    }
    const key = `backfill:${behind.id}`;
    const blocks = await this.readNarrowing(key, [behind], from, to);
    if (blocks === undefined) return true;
    if (to + 1 <= cursor - 1) this.readAhead(key, [behind], to + 1, Math.min(cursor - 1, to + this.rangeFor([behind])));
    const found = this.found(blocks.scanned, [behind]);
    await this.commit({ blocks: [], found, nextBlock: to + 1, head, backfill: { subscriptionId: behind.id } });
    return true;
  }

  /** The range, as read ahead by the last step when it is the one asked for (the same subscriptions), else read now. */
  private read(key: string, subscriptions: readonly SubscriptionRecord[], from: number, to: number): Promise<RangeRead | undefined> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead?.key === `${key}:${from}:${to}`) return ahead.read.catch(() => this.source.readRange(subscriptions, from, to));
    return this.source.readRange(subscriptions, from, to);
  }

  private readAhead(key: string, subscriptions: readonly SubscriptionRecord[], from: number, to: number): void {
    const read = this.source.readRange(subscriptions, from, to);
    // A failure is the next step's to meet, when it reads the range again.
    read.catch(() => undefined);
    this.ahead = { key: `${key}:${from}:${to}`, read };
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
  private async rewindFrom(height: number): Promise<StepOutcome> {
    const lease = this.lease!;
    let ancestor = (lease.recent[0]?.number ?? height) - 1;
    for (const kept of [...lease.recent].reverse()) {
      if (kept.number >= height) continue;
      const block = await this.source.header(kept.number);
      if (block !== undefined && block.hash === kept.hash) {
        ancestor = kept.number;
        break;
      }
    }
    const rewound = await this.store.rewindScan(this.chain, this.network, this.owner, ancestor);
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
