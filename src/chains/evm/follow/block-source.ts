import { getAddress } from "ethers";

import { parseEvmAddress } from "../../../domain/addresses.js";
import type { EvmChain } from "../chain.js";

// What a notification scan reads of an EVM chain (core/notifications/scanner.ts: BlockSource): the head, a range's
// blocks (with their transactions when native transfers are watched) and a range's logs. A live chain's calls go in
// JSON-RPC batches, and its head through the chain's head follower, which the operation tracker shares: one head read
// per poll interval for both. A simulated chain is asked in-process.

interface RawTransaction {
  hash?: string;
  from?: string;
  to?: string | null;
  value?: string;
}

interface RawBlock {
  number?: string;
  hash?: string;
  parentHash?: string;
  transactions?: Array<RawTransaction | string>;
}

interface RawLog {
  address?: string;
  topics?: string[];
  data?: string;
  transactionHash?: string;
  logIndex?: string;
  blockNumber?: string;
  blockHash?: string;
  removed?: boolean;
}

/** The most calls one batch carries: providers cap batches (Alchemy at 1,000, many at 100). */
const BATCH = 100;

const quantity = (value: number) => `0x${value.toString(16)}`;

export class EvmBlockSource {
  constructor(private readonly chain: EvmChain) {}

  async head(): Promise<{ number: number; hash: string }> {
    const follower = this.chain.follower;
    if (follower !== undefined) {
      await follower.head();
      const latest = follower.latest!;
      return { number: latest.number, hash: latest.hash };
    }
    const [block] = await this.call([{ method: "eth_getBlockByNumber", params: ["latest", false] }]);
    const parsed = blockOf(block, false);
    if (parsed === undefined) throw new Error("the node answered no latest block");
    return { number: parsed.number, hash: parsed.hash };
  }

  async blocks(
    from: number,
    to: number,
    withTransactions: boolean,
  ): Promise<
    Array<{
      number: number;
      hash: string;
      parentHash: string;
      transfers: Array<{ transactionHash: string; from: string; to: string | null; value: string }>;
    }>
  > {
    const calls = [];
    for (let number = from; number <= to; number++)
      calls.push({ method: "eth_getBlockByNumber", params: [quantity(number), withTransactions] });
    const answers = await this.call(calls);
    const blocks = [];
    for (const answer of answers) {
      const block = blockOf(answer, withTransactions);
      // A height past the head: the node has no block there yet; what came before is the range.
      if (block === undefined) break;
      blocks.push(block);
    }
    return blocks;
  }

  async logs(
    from: number,
    to: number,
    /** `topics`: by position, each the values it may hold (null: any), as eth_getLogs takes them. */
    filter: { topics: ReadonlyArray<readonly string[] | null> } | { addresses: readonly string[] },
  ): Promise<
    Array<{
      address: string;
      topics: string[];
      data: string;
      transactionHash: string;
      logIndex: number;
      blockNumber: number;
      blockHash: string;
    }>
  > {
    const query = {
      fromBlock: quantity(from),
      toBlock: quantity(to),
      ...("topics" in filter
        ? { topics: filter.topics.map((values) => (values === null ? null : [...values])) }
        : { address: [...filter.addresses] }),
    };
    const [answer] = await this.call([{ method: "eth_getLogs", params: [query] }]);
    if (!Array.isArray(answer)) throw new Error("the node answered eth_getLogs with something other than a list");
    return (answer as RawLog[])
      .filter((log) => log.removed !== true)
      .map((log) => ({
        // Checksummed through the parser's memo: a range's logs come from few contracts, each hashed once.
        address: parseEvmAddress(String(log.address), "address"),
        topics: (log.topics ?? []).map((topic) => topic.toLowerCase()),
        data: String(log.data ?? "0x"),
        transactionHash: String(log.transactionHash).toLowerCase(),
        logIndex: Number(BigInt(log.logIndex ?? "0x0")),
        blockNumber: Number(BigInt(log.blockNumber ?? "0x0")),
        blockHash: String(log.blockHash).toLowerCase(),
      }));
  }

  /** Calls the node, in batches where it is over the network; a call the node refused throws. */
  private async call(calls: ReadonlyArray<{ method: string; params: unknown[] }>): Promise<unknown[]> {
    const { chain } = this;
    if (chain.requestAll !== undefined) {
      const answers: unknown[] = [];
      for (let start = 0; start < calls.length; start += BATCH) {
        for (const settled of await chain.requestAll(calls.slice(start, start + BATCH))) {
          if (settled.status === "rejected") throw settled.reason;
          answers.push(settled.value);
        }
      }
      return answers;
    }
    // Every chain answers one way or the other: a live one in batches, a simulated one in-process.
    if (chain.rpc === undefined) throw new Error(`${chain.info.chain}/${chain.info.network} takes neither batches nor in-process calls`);
    const answers: unknown[] = [];
    for (const { method, params } of calls) answers.push(await chain.rpc(method, params));
    return answers;
  }
}

function blockOf(raw: unknown, withTransactions: boolean) {
  const block = raw as RawBlock | null;
  if (block === null || block === undefined || block.number == null || block.hash == null || block.parentHash == null) return undefined;
  const transfers = withTransactions
    ? (block.transactions ?? []).flatMap((transaction) => {
        if (typeof transaction === "string" || transaction.hash == null || transaction.from == null) return [];
        const value = BigInt(transaction.value ?? "0x0");
        if (value === 0n) return [];
        const to = transaction.to == null ? null : getAddress(transaction.to);
        return [{ transactionHash: transaction.hash.toLowerCase(), from: getAddress(transaction.from), to, value: value.toString() }];
      })
    : [];
  return { number: Number(BigInt(block.number)), hash: block.hash.toLowerCase(), parentHash: block.parentHash.toLowerCase(), transfers };
}
