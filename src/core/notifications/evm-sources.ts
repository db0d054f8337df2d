import type { EvmChains } from "../../chains/evm/chains-registry.js";
import type { EvmNetworkInfo } from "../../chains/evm/chain.js";
import { EvmBlockSource } from "../../chains/evm/follow/block-source.js";
import type { NetworkInfo } from "../../domain/chains.js";
import type { NativeTransfer, ScannedBlock } from "./match.js";
import type { NotificationSources } from "./notifications.js";
import type { BlockSource, RangeRead, SourceHeader } from "./scanner.js";
import { TRANSFER_TOPICS, type ChainLog } from "./transfer-logs.js";
import type { SubscriptionRecord } from "./types.js";

// What a scan reads of an EVM pair: for each range, the logs its subscriptions ask for (the token transfer topics for
// address subscriptions, the watched contracts' logs) and, when an address watches its native currency, the range's
// blocks with their transactions (else the headers at its ends).

/** A block as the EVM adapter reads it: where it is, what it follows, and (when asked) its top-level value transfers. */
export interface SourceBlock extends SourceHeader {
  transfers: NativeTransfer[];
}

export interface SourceLog extends ChainLog {
  blockNumber: number;
  blockHash: string;
}

/** What the scan reads of an EVM chain: the adapter (chains/evm/follow/block-source.ts) answers it from a node. */
export interface EvmReads {
  /** The head: its height and hash. */
  head(): Promise<{ number: number; hash: string }>;
  /** Blocks `from` to `to` in order, with their value transfers when `withTransactions`; shorter when the node has fewer. */
  blocks(from: number, to: number, withTransactions: boolean): Promise<SourceBlock[]>;
  /** Logs of blocks `from` to `to` whose first topic is one of `topics` (any address), or emitted by one of `addresses`. */
  logs(
    from: number,
    to: number,
    filter: { topics: ReadonlyArray<readonly string[] | null> } | { addresses: readonly string[] },
  ): Promise<SourceLog[]>;
}

/**
 * The least a scan waits between looks at an idle pair: a simulated chain polls every 50 ms for its own receipts, which
 * would make an idle scan read its subscriptions twenty times a second.
 */
const MIN_SCAN_POLL_MS = 250;

/** The scans' view of the EVM pairs: each pair's chain (opened on first use), read through its block source. */
export function evmSources(evm: EvmChains): NotificationSources {
  const polls = new Map<string, number>();
  return {
    async sourceOf(info: NetworkInfo) {
      const chain = await evm.get(info as EvmNetworkInfo);
      polls.set(`${info.chain}/${info.network}`, Math.max(chain.pollingIntervalMs, MIN_SCAN_POLL_MS));
      return new EvmScanSource(new EvmBlockSource(chain), info.chain, info.network);
    },
    pollMs: (info) => polls.get(`${info.chain}/${info.network}`) ?? 1_000,
  };
}

export class EvmScanSource implements BlockSource {
  constructor(
    private readonly reads: EvmReads,
    private readonly chain: string,
    private readonly network: string,
  ) {}

  head(): Promise<{ number: number; hash: string }> {
    return this.reads.head();
  }

  /**
   * The node filters the reads of subscriptions that leave native currency out: contracts' logs by address, and the
   * transfers of at most MAX_FILTERED_ADDRESSES watched addresses by topic (over more than NODE_FILTERED_FROM_BLOCKS).
   */
  filtersFor(subscriptions: readonly SubscriptionRecord[]): boolean {
    return !wantsNative(subscriptions) && watchedTopics(subscriptions).size <= MAX_FILTERED_ADDRESSES;
  }

  async header(number: number): Promise<SourceHeader | undefined> {
    const [block] = await this.reads.blocks(number, number, false);
    return block;
  }

  /**
   * The range's token transfer logs: at the tip, every transfer in one call; over a wide range, those from or to a
   * watched address, filtered by the node (from and to are topics 1 and 2 of `Transfer`, 2 and 3 of ERC-1155's), so a
   * backfill reads what it matches, not every transfer of the chain. A log both queries answer is kept once later.
   */
  private async transferLogs(
    subscriptions: readonly SubscriptionRecord[],
    watched: ReadonlySet<string>,
    from: number,
    to: number,
  ): Promise<SourceLog[]> {
    const all = [TRANSFER_TOPICS.transfer, TRANSFER_TOPICS.transferSingle, TRANSFER_TOPICS.transferBatch];
    if (to - from + 1 <= NODE_FILTERED_FROM_BLOCKS || watched.size > MAX_FILTERED_ADDRESSES) {
      return this.reads.logs(from, to, { topics: [all] });
    }
    const assets = new Set(
      subscriptions.flatMap((subscription) => (subscription.target.kind === "address" ? subscription.target.assets : [])),
    );
    const addresses = [...watched];
    const queries: Array<Array<readonly string[] | null>> = [];
    if (assets.has("erc20") || assets.has("erc721"))
      queries.push([[TRANSFER_TOPICS.transfer], addresses], [[TRANSFER_TOPICS.transfer], null, addresses]);
    if (assets.has("erc1155")) {
      const multi = [TRANSFER_TOPICS.transferSingle, TRANSFER_TOPICS.transferBatch];
      queries.push([multi, null, addresses], [multi, null, null, addresses]);
    }
    return (await Promise.all(queries.map((topics) => this.reads.logs(from, to, { topics })))).flat();
  }

  /**
   * Reads a range: the headers at its ends (each block's, when the transfers of native currency are wanted) and the logs
   * the subscriptions ask for. Undefined when the node answered blocks that do not agree with each other (a reorg while
   * reading): the step is taken again.
   */
  async readRange(subscriptions: readonly SubscriptionRecord[], from: number, to: number): Promise<RangeRead | undefined> {
    const native = wantsNative(subscriptions);
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
    const watched = watchedTopics(subscriptions);
    const [headers, tokenLogs, contractLogs] = await Promise.all([
      native
        ? this.reads.blocks(from, to, true)
        : Promise.all([this.reads.blocks(from, from, false), to === from ? [] : this.reads.blocks(to, to, false)]).then((ends) =>
            ends.flat(),
          ),
      wantsTokens ? this.transferLogs(subscriptions, watched, from, to) : [],
      contracts.length > 0 ? this.reads.logs(from, to, { addresses: contracts }) : [],
    ]);
    if (headers.length === 0 || headers.at(-1)!.number !== to) return undefined;
    const hashes = new Map(headers.map((header) => [header.number, header.hash]));
    const byBlock = new Map<number, { hash: string; logs: Map<string, ChainLog> }>();
    // Only the transfers from or to a watched address are decoded (the node answers every transfer of the range).
    for (const log of [...tokenLogs.filter((log) => movesWatched(log, watched)), ...contractLogs]) {
      const known = hashes.get(log.blockNumber);
      if (known !== undefined && known !== log.blockHash.toLowerCase()) return undefined;
      const entry = byBlock.get(log.blockNumber) ?? { hash: log.blockHash.toLowerCase(), logs: new Map<string, ChainLog>() };
      if (entry.hash !== log.blockHash.toLowerCase()) return undefined;
      // A log both queries answered (a watched contract's transfer) is one log.
      entry.logs.set(`${log.transactionHash}:${log.logIndex}`, log);
      byBlock.set(log.blockNumber, entry);
    }
    const scanned: ScannedBlock[] = [];
    const byNumber = new Map(headers.map((header) => [header.number, header]));
    const numbers = new Set([...byBlock.keys(), ...(native ? headers.map((header) => header.number) : [])]);
    for (const number of [...numbers].sort((a, b) => a - b)) {
      const header = byNumber.get(number);
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
}

/**
 * A range wider than this (a backfill, a scan catching up) asks the node for the transfers of the watched addresses
 * only; a narrower one (the tip, a block or two) asks for every transfer in one call, and keeps those it watches.
 */
const NODE_FILTERED_FROM_BLOCKS = 32;
/** The most addresses a node-side filter names: providers cap the values one topic may take. */
const MAX_FILTERED_ADDRESSES = 256;

/** Whether an address subscription watches native currency: its reads take every block with its transactions. */
function wantsNative(subscriptions: readonly SubscriptionRecord[]): boolean {
  return subscriptions.some((subscription) => subscription.target.kind === "address" && subscription.target.assets.includes("native"));
}

/** The watched addresses as a log's indexed topics hold them: 32 bytes, lower case. */
function watchedTopics(subscriptions: readonly SubscriptionRecord[]): Set<string> {
  const topics = new Set<string>();
  for (const subscription of subscriptions) {
    if (subscription.target.kind === "address") topics.add(`0x${subscription.target.address.slice(2).toLowerCase().padStart(64, "0")}`);
  }
  return topics;
}

/**
 * Whether a transfer log names a watched address where its event indexes `from` and `to`: topics 1 and 2 of an ERC-20
 * or ERC-721 `Transfer`, 2 and 3 of an ERC-1155 `TransferSingle` or `TransferBatch` (topic 1 is its operator).
 */
function movesWatched(log: ChainLog, watched: ReadonlySet<string>): boolean {
  const [topic, ...indexed] = log.topics;
  const [from, to] = topic?.toLowerCase() === TRANSFER_TOPICS.transfer ? indexed : indexed.slice(1);
  return (from !== undefined && watched.has(from.toLowerCase())) || (to !== undefined && watched.has(to.toLowerCase()));
}
