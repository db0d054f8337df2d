import type { EvmChain } from "../../chains/evm/chain.js";

type Hashes = Map<number, Promise<string | null>>;

interface ChainView {
  /** The head this view was read at; a new head (or the same height with another hash) starts a new view. */
  head: Promise<string | null>;
  readAt: number;
  /**
   * The heights read at this head, settled once the head is known: the last view's when the head stood still. Every
   * look of the view waits for it, so that looks made while the head is read share the heights already read (before,
   * they met a fresh map, and each pass read every record's block again while the head stood still).
   */
  hashes: Promise<Hashes>;
}

/**
 * The canonical hash of a block height, asked of the node once per head and height: the reorg watch of many mined
 * records in one block costs one node call per new head, not one receipt per record.
 */
export class CanonicalBlocks {
  private readonly views = new Map<string, ChainView>();

  /** The hash the node's canonical chain has at `blockNumber` now, or null when it has no block there. */
  async hashAt(chain: EvmChain, blockNumber: number): Promise<string | null> {
    const hashes = await this.view(chain).hashes;
    let hash = hashes.get(blockNumber);
    if (hash === undefined) {
      hash = chain.provider.getBlock(blockNumber).then((block) => block?.hash ?? null);
      // A failed read is not remembered: the next look asks again.
      hash.catch(() => hashes.delete(blockNumber));
      hashes.set(blockNumber, hash);
    }
    return hash;
  }

  private view(chain: EvmChain): ChainView {
    const key = `${chain.info.chain}/${chain.info.network}`;
    const current = this.views.get(key);
    if (current !== undefined && Date.now() - current.readAt < chain.pollingIntervalMs) return current;
    const head = chain.provider.getBlock("latest").then((block) => block?.hash ?? null);
    const hashes = (async (): Promise<Hashes> => {
      const [was, now] = await Promise.all([current?.head.catch(() => null), head]);
      // The same head: every height below it is as it was, so the hashes already read still hold.
      if (current !== undefined && was !== null && was === now) return current.hashes.catch((): Hashes => new Map());
      return new Map();
    })();
    const next: ChainView = { head, readAt: Date.now(), hashes };
    this.views.set(key, next);
    // A head that could not be read is not kept: the next look asks again.
    hashes.catch(() => {
      if (this.views.get(key) === next) this.views.delete(key);
    });
    return next;
  }
}
