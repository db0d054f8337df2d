import {
  blockReceiptsCall,
  headerCall,
  headerOf,
  isMethodNotFound,
  latestHeaderCall,
  receiptCall,
  summaryOf,
  type BlockHeader,
  type ReceiptSummary,
  type RequestAll,
} from "./block-reads.js";

export type { ReceiptSummary } from "./block-reads.js";

/**
 * Follows one live chain's head, so that what is read of the chain follows blocks, not records: the head is asked at
 * most once per poll interval (sooner only when a caller knows a block may have come: a transaction just accepted); a
 * block's hash and its receipts are read once, and kept while the head stands still and while new blocks extend the
 * chain (each new head's parent hash is checked against the block it follows). A reorg (another parent, or another hash
 * at the same height) is walked back to the last block that still holds; what was read above it is forgotten, and
 * `onReorg` is told the first height that changed.
 *
 * Nothing runs on its own: every read is a caller's, so a chain nobody asks about costs nothing, and an idle one (mined
 * records in their reorg watch) one head read per poll interval.
 */
export interface HeadFollowerOptions {
  /** At most one head read per this long, unless a caller asks for a fresher one. */
  pollMs: number;
}

/** The newest blocks whose receipts are kept. */
const KEPT_BLOCKS = 256;
/**
 * The newest heights whose hashes are kept (an hour of a reorg watch on a chain of 0.5 s blocks; 66 bytes a height):
 * the watch of a mined record reads its block's hash once. Reorgs deeper than this are seen, but walked back no further.
 */
const KEPT_HASHES = 8_192;
/**
 * A look that needs more blocks' receipts than this reads the receipts of its own transactions by hash instead (a
 * record sent long before a restart). Within it, the blocks are read once for every record of the pair: a burst's
 * records, mined in as many blocks on a chain that mines on send, are found block by block, and their blocks' hashes
 * kept for their reorg watch.
 */
const MAX_BLOCKS_PER_READ = KEPT_BLOCKS;
/** How many heads seen are remembered (each height once), to tell which block a transaction sent at a time came after. */
const HEAD_HISTORY = 1_024;

export class HeadFollower {
  private tip: BlockHeader | undefined;
  /** Counts the reorgs seen: what was read before one is kept only if none came meanwhile. */
  private reorgs = 0;
  /** When the last head read started, and the read in flight. */
  private polledAt = -Infinity;
  private polling: Promise<BlockHeader> | undefined;
  /** Hashes by height: the chain from the tip down (and heights read on their own), as far as KEPT_HASHES. */
  private readonly hashes = new Map<number, string>();
  /**
   * The heights of blocks holding records in their reorg watch (see `watch`), with when the last watch there ends: their
   * hashes are kept past KEPT_HASHES until then, so that a reorg reaching them is walked back to them and reported.
   */
  private readonly watched = new Map<number, number>();
  /** Header reads in flight, by reorg count and height: concurrent asks for one height share one call. */
  private readonly headerReads = new Map<string, Promise<string | null>>();
  /** Each block's receipts, by transaction hash, for the blocks read whole (`eth_getBlockReceipts`). */
  private readonly blockReceipts = new Map<number, Map<string, ReceiptSummary>>();
  private readonly reading = new Map<number, Promise<void>>();
  /** Receipts found by hash (a node without `eth_getBlockReceipts`, or a look beyond the blocks read whole). */
  private readonly found = new Map<string, ReceiptSummary>();
  /** Hashes asked by hash and not found, with the tip they were asked at: not asked again while the head stands still. */
  private readonly missingAt = new Map<string, string>();
  /** Whether the node answers `eth_getBlockReceipts`; undefined until it was asked. */
  private blockReceiptsSupported: boolean | undefined;
  /** The last head reads that finished: when, and the tip they gave. */
  private readonly history: Array<{ at: number; number: number }> = [];

  /** Told of a reorg: the first block height whose block changed. */
  private readonly reorgListeners = new Set<(fromBlock: number) => void>();

  constructor(
    private readonly requestAll: RequestAll,
    private readonly options: HeadFollowerOptions,
  ) {}

  /** Tells `listener` of every reorg seen from now on (the first height that changed); the answer stops it. */
  onReorg(listener: (fromBlock: number) => void): () => void {
    this.reorgListeners.add(listener);
    return () => this.reorgListeners.delete(listener);
  }

  /**
   * The head's height: the last one read while it is younger than the poll interval, else read now. `freshAfter`: read
   * again unless a read started after that time (a transaction accepted then may be in a block by now).
   */
  async head(freshAfter?: number): Promise<number> {
    const now = Date.now();
    const stale = now - this.polledAt >= this.options.pollMs || (freshAfter !== undefined && this.polledAt < freshAfter);
    if (this.tip !== undefined && !stale) return this.tip.number;
    if (this.polling !== undefined && (freshAfter === undefined || this.polledAt >= freshAfter)) return (await this.polling).number;
    this.polledAt = now;
    const polling = this.poll();
    this.polling = polling;
    try {
      return (await polling).number;
    } finally {
      if (this.polling === polling) this.polling = undefined;
    }
  }

  /**
   * Takes over the reorg watch of a record mined at `number` in the block `hash`, until `until` (ms since the epoch):
   * while the head is read (see `watching`), a reorg that reaches the block is reported through `onReorg`. Answers
   * whether it did: only a block whose hash was read on the chain followed, and is canonical as of the last head read.
   */
  watch(number: number, hash: string, until: number): boolean {
    if (this.tip === undefined || number > this.tip.number || this.hashes.get(number) !== hash) return false;
    if ((this.watched.get(number) ?? 0) < until) this.watched.set(number, until);
    return true;
  }

  /** Whether a record's reorg watch is taken over now (expired watches let go first): the head is to be read. */
  watching(now = Date.now()): boolean {
    // Heights are mostly added in time order: the oldest watches end first.
    for (const [number, until] of this.watched) {
      if (until > now) break;
      this.watched.delete(number);
    }
    return this.watched.size > 0;
  }

  /** How many heights the follower keeps hashes and receipts for (tests of its bounds). */
  retained(): { hashes: number; watched: number; blocksWithReceipts: number; receiptsByHash: number } {
    return {
      hashes: this.hashes.size,
      watched: this.watched.size,
      blocksWithReceipts: this.blockReceipts.size,
      receiptsByHash: this.found.size,
    };
  }

  /** The tip read last, with its hash (undefined before the first read). */
  get latest(): BlockHeader | undefined {
    return this.tip;
  }

  /**
   * The height of the newest block known before `time`: a transaction sent after it is in a later block. Undefined when
   * no head read finished before then.
   */
  headBefore(time: number): number | undefined {
    for (let index = this.history.length - 1; index >= 0; index--) if (this.history[index]!.at <= time) return this.history[index]!.number;
    return undefined;
  }

  /** The canonical hash at `number` as of the last head read (null: no block there yet); a height is read once. */
  async hashAt(number: number): Promise<string | null> {
    await this.head();
    const tip = this.tip!;
    const reorgs = this.reorgs;
    if (number > tip.number) return null;
    const known = this.hashes.get(number);
    if (known !== undefined) return known;
    // Records mined in one block look in the same pass, at once: they share the one read of its header.
    const key = `${reorgs}:${number}`;
    let reading = this.headerReads.get(key);
    if (reading === undefined) {
      reading = this.readHash(number, reorgs).finally(() => this.headerReads.delete(key));
      this.headerReads.set(key, reading);
    }
    return reading;
  }

  private async readHash(number: number, reorgs: number): Promise<string | null> {
    const [answer] = await this.requestAll([headerCall(number)]);
    const header = answer?.status === "fulfilled" ? headerOf(answer.value) : undefined;
    if (answer?.status === "rejected") throw answer.reason;
    if (header === undefined || header === null) return null;
    // Kept only while the chain it was read on is still the one followed.
    if (this.reorgs === reorgs) this.hashes.set(number, header.hash);
    return header.hash;
  }

  /**
   * The receipts of `hashes` (null: in no block up to the head) for transactions sent after block `after`: read with
   * their blocks (one `eth_getBlockReceipts` per block, each block once), or, on a node without that method or for a
   * transaction sent long before, by hash in one batch, each hash once per head. A hash whose block a reorg replaced is
   * asked again.
   */
  async receipts(hashes: readonly string[], after: number | undefined): Promise<Map<string, ReceiptSummary | null>> {
    await this.head();
    const tip = this.tip!;
    const reorgs = this.reorgs;
    const answer = new Map<string, ReceiptSummary | null>();
    const wanted = hashes.map((hash) => hash.toLowerCase());
    const first = after === undefined ? undefined : Math.max(0, after + 1);
    const wholeBlocks =
      this.blockReceiptsSupported !== false && first !== undefined && first <= tip.number + 1 && tip.number - first < MAX_BLOCKS_PER_READ;
    if (wholeBlocks) {
      await this.readBlocks(first, tip.number);
      if (this.blockReceiptsSupported !== false) {
        for (const hash of wanted) answer.set(hash, this.noteBlock(reorgs, this.inBlocks(hash, first, tip.number)));
        return answer;
      }
    }
    const ask: string[] = [];
    for (const hash of wanted) {
      const found = this.found.get(hash);
      if (found !== undefined) answer.set(hash, found);
      else if (this.missingAt.get(hash) === tip.hash) answer.set(hash, null);
      else ask.push(hash);
    }
    if (ask.length > 0) {
      const answers = await this.requestAll(ask.map(receiptCall));
      ask.forEach((hash, index) => {
        const settled = answers[index]!;
        if (settled.status === "rejected") throw settled.reason;
        const summary = summaryOf(settled.value);
        if (summary === null) this.missingAt.set(hash, tip.hash);
        else {
          this.found.set(hash, summary);
          this.missingAt.delete(hash);
        }
        answer.set(hash, this.noteBlock(reorgs, summary));
      });
    }
    return answer;
  }

  /**
   * A receipt's block is the canonical one at its height as long as the tip it was read at is followed: kept, so that
   * the reorg watch of the record it belongs to reads nothing more while no reorg comes.
   */
  private noteBlock(reorgs: number, receipt: ReceiptSummary | null): ReceiptSummary | null {
    const tip = this.tip!;
    if (receipt !== null && this.reorgs === reorgs && receipt.blockNumber <= tip.number && !this.hashes.has(receipt.blockNumber)) {
      this.hashes.set(receipt.blockNumber, receipt.blockHash);
    }
    return receipt;
  }

  private inBlocks(hash: string, first: number, last: number): ReceiptSummary | null {
    for (let number = first; number <= last; number++) {
      const receipt = this.blockReceipts.get(number)?.get(hash);
      if (receipt !== undefined) return receipt;
    }
    return null;
  }

  /** Reads the receipts of the blocks from `first` to `last` not read yet, in one batch. */
  private async readBlocks(first: number, last: number): Promise<void> {
    // Until the node said whether it has the method, one read at a time: a node without it is asked once.
    if (this.blockReceiptsSupported === undefined && this.reading.size > 0) await Promise.allSettled(this.reading.values());
    if (this.blockReceiptsSupported === false) return;
    const missing: number[] = [];
    const waiting: Array<Promise<void>> = [];
    for (let number = first; number <= last; number++) {
      if (this.blockReceipts.has(number)) continue;
      const inFlight = this.reading.get(number);
      if (inFlight !== undefined) waiting.push(inFlight);
      else missing.push(number);
    }
    if (missing.length > 0) {
      const reorgs = this.reorgs;
      const read = this.requestAll(missing.map(blockReceiptsCall)).then((answers) => {
        answers.forEach((settled, index) => {
          if (settled.status === "rejected") {
            if (isMethodNotFound(settled.reason)) this.blockReceiptsSupported = false;
            else throw settled.reason;
            return;
          }
          this.blockReceiptsSupported = true;
          // Read on a chain a reorg has left since: not kept.
          if (this.reorgs !== reorgs) return;
          const receipts = new Map<string, ReceiptSummary>();
          for (const raw of (settled.value as Array<{ transactionHash?: string }> | null) ?? []) {
            const summary = summaryOf(raw);
            if (summary !== null && raw.transactionHash !== undefined) receipts.set(raw.transactionHash.toLowerCase(), summary);
          }
          this.blockReceipts.set(missing[index]!, receipts);
        });
      });
      const settled = read.finally(() => missing.forEach((number) => this.reading.delete(number)));
      missing.forEach((number) => this.reading.set(number, settled));
      waiting.push(settled);
    }
    await Promise.all(waiting);
  }

  /** Reads the head, and walks back a reorg it shows. */
  private async poll(): Promise<BlockHeader> {
    const [answer] = await this.requestAll([latestHeaderCall]);
    if (answer === undefined || answer.status === "rejected") throw answer?.reason ?? new Error("no answer for the latest block");
    const latest = headerOf(answer.value);
    if (latest === null) throw new Error("the node gave no latest block");
    const previous = this.tip;
    // A lower head on the chain followed: a node behind the one read before (a load balancer's, a block or two late), or
    // a chain rewound. No reorg is reported: the blocks above it are forgotten, and a record mined in one finds no block
    // at its height, which the tracker gives the node-behind grace. Only another hash at a height read is a reorg.
    const known = this.hashes.get(latest.number);
    if (previous !== undefined && latest.number < previous.number && (known === undefined || known === latest.hash)) {
      // Records whose watch was taken over above it are looked at again (finding no block there, the grace applies).
      const watchedAbove = [...this.watched.keys()].some((number) => number > latest.number);
      this.forgetFrom(latest.number + 1);
      if (watchedAbove) for (const listener of this.reorgListeners) listener(latest.number + 1);
    } else if (previous !== undefined && !(latest.number === previous.number && latest.hash === previous.hash)) {
      const extends_ = await this.extendsTip(previous, latest);
      if (!extends_) await this.walkBack(latest);
    }
    this.tip = latest;
    this.hashes.set(latest.number, latest.hash);
    if (latest.number > 0) this.hashes.set(latest.number - 1, latest.parentHash);
    if (previous?.hash !== latest.hash) this.missingAt.clear();
    this.prune(latest.number);
    // Each height once, when it was first seen: the earliest time a transaction sent after is known to be after it.
    if (this.history.at(-1)?.number !== latest.number) this.history.push({ at: Date.now(), number: latest.number });
    if (this.history.length > HEAD_HISTORY) this.history.shift();
    return latest;
  }

  /** Whether `latest` is on the chain that ends at `previous` (its parent, or `previous`'s hash still at its height). */
  private async extendsTip(previous: BlockHeader, latest: BlockHeader): Promise<boolean> {
    if (latest.number <= previous.number) return false;
    if (latest.number === previous.number + 1) return latest.parentHash === previous.hash;
    const [answer] = await this.requestAll([headerCall(previous.number)]);
    if (answer?.status === "rejected") throw answer.reason;
    return headerOf(answer?.value)?.hash === previous.hash;
  }

  /**
   * Finds the highest height whose kept hash is still canonical, reading one header at a time downwards from below the
   * new head; everything kept above it is forgotten, and the reorg reported from the height after it.
   */
  private async walkBack(latest: BlockHeader): Promise<void> {
    const kept = [...this.hashes.keys()].sort((a, b) => b - a);
    let fork = kept.length === 0 ? latest.number : kept[kept.length - 1]!;
    for (const number of kept) {
      if (number >= latest.number) continue;
      const canonical =
        number === latest.number - 1
          ? latest.parentHash
          : await this.requestAll([headerCall(number)]).then(([answer]) => {
              if (answer?.status === "rejected") throw answer.reason;
              return headerOf(answer?.value)?.hash ?? null;
            });
      if (canonical === this.hashes.get(number)) {
        fork = number + 1;
        break;
      }
    }
    this.forgetFrom(fork);
    for (const listener of this.reorgListeners) listener(fork);
  }

  /** Forgets every hash and receipt read at `first` or above: what was read before is not kept after. */
  private forgetFrom(first: number): void {
    for (const number of [...this.hashes.keys()]) if (number >= first) this.hashes.delete(number);
    // Their records are looked at again (onReorg); the watch is taken over again from the new chain.
    for (const number of [...this.watched.keys()]) if (number >= first) this.watched.delete(number);
    for (const number of [...this.blockReceipts.keys()]) if (number >= first) this.blockReceipts.delete(number);
    for (const [hash, receipt] of this.found) if (receipt.blockNumber >= first) this.found.delete(hash);
    this.missingAt.clear();
    this.reorgs++;
  }

  private prune(tipNumber: number): void {
    const oldest = tipNumber - KEPT_BLOCKS;
    if (this.hashes.size > KEPT_HASHES + this.watched.size)
      for (const number of this.hashes.keys())
        if (number < tipNumber - KEPT_HASHES && !this.watched.has(number)) this.hashes.delete(number);
    for (const number of this.blockReceipts.keys()) if (number < oldest) this.blockReceipts.delete(number);
    for (const [hash, receipt] of this.found) if (receipt.blockNumber < oldest) this.found.delete(hash);
  }
}
