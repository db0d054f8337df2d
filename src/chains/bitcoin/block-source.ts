import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import type { BitcoinBackend, BitcoinBlockHeader, BitcoinBlockTransaction } from "./backend.js";

// What a notification scan reads of a Bitcoin network (core/notifications/bitcoin-sources.ts), through its backend,
// bitcoind or Esplora: the tip, a block's place in the chain by height, and a range's blocks with their transactions
// (each input with the output it spends, so that a spend from a watched address is seen without an index of it).

/** A block as the scan reads it: where it is, what it follows, and (for a range) its transactions. */
export interface BitcoinSourceHeader {
  number: number;
  hash: string;
  parentHash: string;
}

export interface BitcoinSourceBlock extends BitcoinSourceHeader {
  transactions: BitcoinBlockTransaction[];
}

type BlockReads = Required<Pick<BitcoinBackend, "tip" | "blockHeader" | "blockTransactions">>;

export class BitcoinBlockSource {
  private readonly reads: BlockReads;

  /** Refused (UNSUPPORTED_OPERATION) for a backend that does not read blocks (one of your own without the methods). */
  constructor(backend: BitcoinBackend, pair: string) {
    const { tip, blockHeader, blockTransactions } = backend;
    if (tip === undefined || blockHeader === undefined || blockTransactions === undefined) {
      throw new TokenServiceError(
        ErrorCode.UNSUPPORTED_OPERATION,
        `the ${backend.kind} backend of ${pair} does not read blocks (tip, blockHeader, blockTransactions): it cannot be watched`,
        { field: "chain" },
      );
    }
    this.reads = {
      tip: tip.bind(backend),
      blockHeader: blockHeader.bind(backend),
      blockTransactions: blockTransactions.bind(backend),
    };
  }

  async head(): Promise<{ number: number; hash: string }> {
    const tip = await this.reads.tip();
    return { number: tip.height, hash: tip.hash };
  }

  /** The best chain's block at `number`; undefined above the tip. */
  async header(number: number): Promise<BitcoinSourceHeader | undefined> {
    const header = await this.reads.blockHeader(number);
    return header === undefined ? undefined : headerOf(header);
  }

  /** Blocks `from` to `to` of the best chain, in order, with their transactions; shorter when the tip is below `to`. */
  async blocks(from: number, to: number): Promise<BitcoinSourceBlock[]> {
    const blocks: BitcoinSourceBlock[] = [];
    for (let number = from; number <= to; number++) {
      const header = await this.reads.blockHeader(number);
      if (header === undefined) break;
      blocks.push({ ...headerOf(header), transactions: await this.reads.blockTransactions(header.hash) });
    }
    return blocks;
  }
}

const headerOf = (header: BitcoinBlockHeader): BitcoinSourceHeader => ({
  number: header.height,
  hash: header.hash,
  parentHash: header.previousHash,
});
