import type { EvmChain } from "../../chains/evm/chain.js";

interface ChainView {
  /** The head this view was read at; a new head (or the same height with another hash) starts a new view. */
  head: Promise<string | null>;
  readAt: number;
  hashes: Map<number, Promise<string | null>>;
}

/**
 * The canonical hash of a block height, asked of the node once per head and height: the reorg watch of many mined
 * records in one block costs one node call per new head, not one receipt per record.
 */
export class CanonicalBlocks {
  private readonly views = new Map<string, ChainView>();

  /** The hash the node's canonical chain has at `blockNumber` now, or null when it has no block there. */
  async hashAt(chain: EvmChain, blockNumber: number): Promise<string | null> {
    const view = await this.view(chain);
    let hash = view.hashes.get(blockNumber);
    if (hash === undefined) {
      hash = chain.provider.getBlock(blockNumber).then((block) => block?.hash ?? null);
      // A failed read is not remembered: the next look asks again.
      hash.catch(() => view.hashes.delete(blockNumber));
      view.hashes.set(blockNumber, hash);
    }
    return hash;
  }

  private async view(chain: EvmChain): Promise<ChainView> {
    const key = `${chain.info.chain}/${chain.info.network}`;
    const current = this.views.get(key);
    if (current !== undefined && Date.now() - current.readAt < chain.pollingIntervalMs) return current;
    const head = chain.provider.getBlock("latest").then((block) => block?.hash ?? null);
    const next: ChainView = { head, readAt: Date.now(), hashes: new Map() };
    this.views.set(key, next);
    try {
      const [was, now] = await Promise.all([current?.head.catch(() => null), head]);
      // The same head: every height below it is as it was, so the hashes already read still hold.
      if (current !== undefined && was !== null && was === now) next.hashes = current.hashes;
    } catch (error) {
      this.views.delete(key);
      throw error;
    }
    return next;
  }
}
