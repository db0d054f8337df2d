import type { EvmChain } from "../../chains/evm/chain.js";
import type { HeadFollower, ReceiptSummary } from "../../chains/evm/follow/head-follower.js";
import { receiptSummary } from "../../chains/evm/read/transaction-status.js";
import { sendReadsOf, type FeeAsks } from "../../chains/evm/write/send-reads.js";

/**
 * The head followers of the live chains the tracker follows (see HeadFollower; each live chain has one, which its sends
 * read fees from too): the tracker reads heads, block hashes and receipts through them, so its node calls follow blocks,
 * not records, and is told of their reorgs. A simulated chain is the service's own node, asked in-process: it has none.
 */
export class ChainFollowers {
  private readonly listened = new WeakSet<EvmChain>();
  /** The followers that took over records' reorg watches: their heads are read once per poll interval while they last. */
  private readonly watching = new Set<HeadFollower>();

  constructor(private readonly onReorg: (chain: EvmChain, fromBlock: number) => void) {}

  /**
   * Hands the reorg watch of a live record mined at `number` in block `hash` to its chain's follower until `until`:
   * answers whether it took it (see HeadFollower.watch).
   */
  watch(chain: EvmChain, number: number, hash: string, until: number): boolean {
    const follower = this.of(chain);
    if (follower === undefined || !follower.watch(number, hash, until)) return false;
    this.watching.add(follower);
    return true;
  }

  /** What the followers watching records keep, summed (tests of their bounds): heights watched, hashes, receipts. */
  retained(): { watchedHeights: number; hashes: number; blocksWithReceipts: number; receiptsByHash: number } {
    const sum = { watchedHeights: 0, hashes: 0, blocksWithReceipts: 0, receiptsByHash: 0 };
    for (const follower of this.watching) {
      const kept = follower.retained();
      sum.watchedHeights += kept.watched;
      sum.hashes += kept.hashes;
      sum.blocksWithReceipts += kept.blocksWithReceipts;
      sum.receiptsByHash += kept.receiptsByHash;
    }
    return sum;
  }

  /**
   * Reads the head of each chain whose follower watches records (at most once per poll interval: the follower's own
   * pace), so that a reorg is seen while no record is due; a follower whose watches all ended is let go.
   */
  keepFollowing(): void {
    for (const follower of this.watching) {
      if (!follower.watching()) this.watching.delete(follower);
      // A failed read changes nothing: the next one tries again.
      else void follower.head().catch(() => undefined);
    }
  }

  of(chain: EvmChain): HeadFollower | undefined {
    const follower = chain.follower;
    if (follower === undefined) return undefined;
    if (!this.listened.has(chain)) {
      this.listened.add(chain);
      follower.onReorg((fromBlock) => this.onReorg(chain, fromBlock));
    }
    return follower;
  }
}

/**
 * The reads one pass shares: a chain's head, a sender's nonces, each asked once. On a live chain the head comes from its
 * follower, read at most once per poll interval, or now when the pass looks at records this process just saw accepted
 * (`fresh`: their transactions may be in a block already).
 */
export class PassReads {
  private readonly heads = new Map<EvmChain, Promise<number>>();
  private readonly nonces = new Map<string, Promise<number>>();
  private readonly fees = new Map<EvmChain, Promise<FeeAsks>>();
  private readonly startedAt = Date.now();

  constructor(
    private readonly confirmations: number,
    private readonly followers: ChainFollowers,
    private readonly fresh: boolean,
  ) {}

  head(chain: EvmChain): Promise<number> {
    let head = this.heads.get(chain);
    if (head === undefined) {
      const follower = this.followers.of(chain);
      head = follower === undefined ? chain.provider.getBlockNumber() : follower.head(this.fresh ? this.startedAt : undefined);
      this.heads.set(chain, head);
    }
    return head;
  }

  /**
   * The receipts of a record's transactions (null: in no block yet), each as its hash was asked. A live chain's come
   * from its follower: with the blocks after the one the record's transaction was sent after (`sentAfter`: that block,
   * or a time before it was sent), one read per block, else by hash, once per head; a simulated chain's by hash.
   */
  async receipts(
    chain: EvmChain,
    hashes: string[],
    sentAfter: { block: number | null; time: number },
  ): Promise<Array<ReceiptSummary | null>> {
    const follower = this.followers.of(chain);
    if (follower === undefined) return Promise.all(hashes.map((hash) => receiptSummary(chain, hash)));
    await this.head(chain);
    // Only a record with one transaction is looked for in the blocks after it: an earlier one (sped up since) may be older.
    const after = hashes.length !== 1 ? undefined : (sentAfter.block ?? follower.headBefore(sentAfter.time));
    const found = await follower.receipts(hashes, after);
    return hashes.map((hash) => found.get(hash.toLowerCase()) ?? null);
  }

  /**
   * What the node asks of a transaction now, as a send is priced, and the least the head takes (asked only when a record
   * is past its replace-after blocks; a live chain's from the head its follower reads).
   */
  feeAsks(chain: EvmChain): Promise<FeeAsks> {
    let asks = this.fees.get(chain);
    if (asks === undefined) this.fees.set(chain, (asks = sendReadsOf(chain).asks()));
    return asks;
  }

  /** The node's next nonce for the sender, its pool counted. */
  nextNonce(chain: EvmChain, sender: string): Promise<number> {
    return this.once(`${chain.info.chainId}:${sender}:pending`, () => chain.provider.getTransactionCount(sender, "pending"));
  }

  /** The sender's nonce count at the head: its transactions mined. */
  minedNonce(chain: EvmChain, sender: string): Promise<number> {
    return this.once(`${chain.info.chainId}:${sender}:latest`, () => chain.provider.getTransactionCount(sender, "latest"));
  }

  /** The sender's nonce count at the newest block with the confirmations a mined record needs. */
  confirmedNonce(chain: EvmChain, sender: string): Promise<number> {
    const required = chain.simulated ? 1 : this.confirmations;
    return this.once(`${chain.info.chainId}:${sender}:confirmed`, async () =>
      chain.provider.getTransactionCount(sender, Math.max(0, (await this.head(chain)) - required + 1)),
    );
  }

  private once(key: string, read: () => Promise<number>): Promise<number> {
    let value = this.nonces.get(key);
    if (value === undefined) this.nonces.set(key, (value = read()));
    return value;
  }
}

/** What a pool check of a record's transaction found: the hash the node holds unmined, and whether it holds it nowhere. */
export interface PoolState {
  pooled: string | undefined;
  heldNowhere: boolean;
}

/** A pool check is made again after this many poll intervals at the latest, even while the head stands still. */
const POOL_RECHECK_POLLS = 3;
/** Checks older than this are forgotten (their records settled, or another replica follows them). */
const FORGET_AFTER_MS = 10 * 60_000;

/**
 * When a live chain's record without a receipt is asked about by hash again (is it still in the pool? does the node
 * still count its nonce?): once per new block that did not include it, and otherwise every few poll intervals (a node
 * may lose a transaction while no block comes). Between, the last answer stands.
 */
export class PoolChecks {
  private readonly checks = new Map<string, PoolState & { tip: string | undefined; at: number; accepted: boolean }>();

  /**
   * The last check's answer when it still stands, else undefined (check now). `accepted`: the answer is the node's
   * acceptance of the broadcast this process saw, with no block since.
   */
  standing(key: string, tip: string | undefined, pollMs: number, now = Date.now()): (PoolState & { accepted: boolean }) | undefined {
    const last = this.checks.get(key);
    if (last === undefined || last.tip !== tip || now - last.at >= pollMs * POOL_RECHECK_POLLS) return undefined;
    return { pooled: last.pooled, heldNowhere: last.heldNowhere, accepted: last.accepted };
  }

  /**
   * A broadcast this process saw the node accept, its transaction in no block at the head `tip` yet: held, as a check
   * would find it, until a block comes (a chain that mines as it accepts may answer before its block is the head).
   */
  accepted(key: string, transactionHash: string, tip: string | undefined, now = Date.now()): void {
    this.remember(key, tip, { pooled: transactionHash, heldNowhere: false }, now, true);
  }

  remember(key: string, tip: string | undefined, state: PoolState, now = Date.now(), accepted = false): void {
    this.checks.set(key, { ...state, tip, at: now, accepted });
    if (this.checks.size > 1_000) for (const [each, check] of this.checks) if (now - check.at > FORGET_AFTER_MS) this.checks.delete(each);
  }

  forget(key: string): void {
    this.checks.delete(key);
  }
}
