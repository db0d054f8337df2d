import { requireBitcoinBackend, type BitcoinBackends } from "../../chains/bitcoin/backend.js";
import { BitcoinBlockSource, type BitcoinSourceBlock } from "../../chains/bitcoin/block-source.js";
import type { ScannedBitcoinBlock } from "./bitcoin-match.js";
import type { NotificationSources } from "./notifications.js";
import type { BlockSource, RangeRead, SourceHeader } from "./scanner.js";

// What a scan reads of a Bitcoin pair, through its backend (bitcoind or Esplora): every block of a range with its
// transactions, each input with the output it spends; the matcher (bitcoin-match.ts) finds the watched addresses'
// outputs and spends in them.

/** Regtest mines when it is told: a second. Elsewhere a block comes every ten minutes, and public Esplora rate-limits. */
const REGTEST_POLL_MS = 1_000;
const BITCOIN_POLL_MS = 10_000;

/**
 * The most blocks one step reads: a full block is one `getblock` on bitcoind, but a request per 25 transactions on
 * Esplora (a mainnet block, a hundred or more), and a step must end well within the scan's lease.
 */
const BITCOIN_MAX_RANGE = 10;

/** The scans' view of the Bitcoin pairs: each network's configured backend. */
export function bitcoinSources(backends: BitcoinBackends): NotificationSources {
  return {
    async sourceOf(info) {
      const pair = `${info.chain}/${info.network}`;
      return new BitcoinScanSource(new BitcoinBlockSource(requireBitcoinBackend(backends, info.network), pair), info.chain, info.network);
    },
    pollMs: (info) => (info.network === "regtest" ? REGTEST_POLL_MS : BITCOIN_POLL_MS),
  };
}

/** What the scan reads of a Bitcoin network: the adapter (chains/bitcoin/block-source.ts) answers it from a backend. */
export interface BitcoinReads {
  head(): Promise<{ number: number; hash: string }>;
  header(number: number): Promise<SourceHeader | undefined>;
  /** Blocks `from` to `to` with their transactions, in order; shorter when the tip is below `to`. */
  blocks(from: number, to: number): Promise<BitcoinSourceBlock[]>;
}

export class BitcoinScanSource implements BlockSource {
  readonly maxRange = BITCOIN_MAX_RANGE;

  constructor(
    private readonly reads: BitcoinReads,
    private readonly chain: string,
    private readonly network: string,
  ) {}

  head(): Promise<{ number: number; hash: string }> {
    return this.reads.head();
  }

  header(number: number): Promise<SourceHeader | undefined> {
    return this.reads.header(number);
  }

  /**
   * Every block of the range with its transactions (an address subscription, the only kind on Bitcoin, watches them
   * all). Undefined when the tip is below `to`, or a block does not follow the one read before it (a reorg while
   * reading): the step is taken again.
   */
  async readRange(_subscriptions: unknown, from: number, to: number): Promise<RangeRead | undefined> {
    const blocks = await this.reads.blocks(from, to);
    if (blocks.length === 0 || blocks.at(-1)!.number !== to) return undefined;
    if (blocks.some((block, index) => index > 0 && block.parentHash !== blocks[index - 1]!.hash)) return undefined;
    const scanned = blocks.map((block): ScannedBitcoinBlock => ({
      kind: "bitcoin",
      chain: this.chain,
      network: this.network,
      number: block.number,
      hash: block.hash,
      transactions: block.transactions,
    }));
    return { headers: blocks.map(({ number, hash, parentHash }) => ({ number, hash, parentHash })), scanned };
  }
}
