import { BrowserProvider, keccak256, toQuantity, type Eip1193Provider } from "ethers";
import type { EvmChain, EvmNetworkInfo, NodeCallObserver, SimulatedChainConnection, SimulatedChainFactory } from "./chain.js";
import type { RpcErrorKind } from "../../domain/faults.js";
import { ChainFaults } from "./faults.js";
import { ChainJournal, type JournalEntry } from "./journal.js";

/** What a start-up replay found, for the operator. */
export interface JournalReplay {
  path: string;
  entries: number;
  bytes: number;
  milliseconds: number;
  /** Bytes of an unfinished last line (a write cut short by kill -9 or a full disk), set aside. */
  tornBytes: number;
  /** Lines in the middle that were not entries (a damaged file), set aside. */
  rejectedLines: number;
  /** Where what was set aside is kept. */
  setAsidePath?: string;
  /**
   * When lines were lost: the first block that may differ from the chain before the restart (every entry before the
   * first lost one was replayed into the blocks below it). Records mined from this block on are checked again.
   */
  lossFromBlock?: number;
}

export interface SimulatedChainOptions {
  /** 0 mines every transaction at once; N > 0 mines a block every N seconds. */
  blockTimeSeconds: number;
  /** Told of every call to the chain, for metrics. */
  onNodeCall?: NodeCallObserver;
  /** When set, every state change is journaled there and replayed on the next start, so tasks run in separate processes share one chain. */
  journalPath?: string;
  /** When set, the chain can be told to misbehave (src/chains/evm/faults.ts); never by default. */
  faults?: {
    /** How long a call an rpc-errors fault times out is held before it fails. */
    requestTimeoutMs: number;
    /** Told after a reorg fault replaced the blocks from `fromBlock` on. */
    onReorg?(fromBlock: number): Promise<void>;
  };
}

/** The connection, reporting each request to `observe` when given. */
function observed(connection: SimulatedChainConnection, pair: string, observe: NodeCallObserver | undefined): SimulatedChainConnection {
  if (observe === undefined) return connection;
  return {
    close: () => connection.close(),
    provider: {
      async request(args) {
        const started = performance.now();
        try {
          const result = await connection.provider.request(args);
          observe(pair, args.method, (performance.now() - started) / 1000, true);
          return result;
        } catch (error) {
          observe(pair, args.method, (performance.now() - started) / 1000, false);
          throw error;
        }
      },
    },
  };
}

/** Methods that only read the chain; any other request may change its state (a transaction, a balance set, a block). */
const READ_ONLY_METHODS = new Set([
  "eth_blockNumber",
  "eth_call",
  "eth_chainId",
  "eth_estimateGas",
  "eth_feeHistory",
  "eth_gasPrice",
  "eth_getBalance",
  "eth_getBlockByHash",
  "eth_getBlockByNumber",
  "eth_getCode",
  "eth_getLogs",
  "eth_getStorageAt",
  "eth_getTransactionByHash",
  "eth_getTransactionCount",
  "eth_getTransactionReceipt",
  "eth_maxPriorityFeePerGas",
  "net_version",
]);

/**
 * An in-process EDR chain with the pair's real chain id. EDR keeps state in
 * memory only, so the chain is made durable by journaling the signed
 * transactions and faucet grants that changed it, and replaying them at start.
 */
export class SimulatedChain implements EvmChain {
  readonly simulated = true;
  readonly endpoint = "in-process EDR (simulated)";
  readonly pollingIntervalMs = 50;
  readonly provider: BrowserProvider;
  /** Set when the chain was started with faults on: what the doors tell it to do. */
  readonly faults: ChainFaults | undefined;
  /** Set when the chain was rebuilt from a journal. */
  replay: JournalReplay | undefined;
  /** The named faucet grants this chain holds, replayed ones included. */
  private readonly grants = new Set<string>();
  private granting: Promise<unknown> = Promise.resolve();
  /** Moves before and after every request that may change state, so no read started across a change is taken as current. */
  private changes = 0;
  /** Set when blocks are mined by a timer, which no request of ours shows: the head is then part of the version. */
  private intervalMining = false;
  /** The node as this chain and its faults use it: every request that may change state is counted. */
  private readonly node: (method: string, params: unknown[]) => Promise<unknown>;
  /** The node as the chain's clients (ethers, `rpc`) reach it: through the rpc-errors fault, when faults are on. */
  private readonly clients: SimulatedChainConnection["provider"];
  private readonly close_: () => Promise<void>;
  private readonly journal: ChainJournal | undefined;
  broadcastAll: ((signedTransactions: string[]) => Promise<Array<PromiseSettledResult<string>>>) | undefined;

  private constructor(
    readonly info: EvmNetworkInfo,
    connection: SimulatedChainConnection,
    options: SimulatedChainOptions,
  ) {
    const journalPath = options.journalPath;
    this.journal = journalPath === undefined ? undefined : new ChainJournal(journalPath);
    this.close_ = () => connection.close();
    const counted = async (method: string, params: unknown[]) => {
      if (READ_ONLY_METHODS.has(method)) return connection.provider.request({ method, params });
      this.changes++;
      try {
        return await connection.provider.request({ method, params });
      } finally {
        this.changes++;
      }
    };
    const journal = this.journal;
    this.faults =
      options.faults === undefined
        ? undefined
        : new ChainFaults(counted, {
            pair: `${info.chain}/${info.network}`,
            blockTimeMs: Math.round(options.blockTimeSeconds * 1000),
            requestTimeoutMs: options.faults.requestTimeoutMs,
            isRead: (method) => READ_ONLY_METHODS.has(method),
            ...(journal ? { journal: (...entries: JournalEntry[]) => journal.append(...entries) } : {}),
            ...(options.faults.onReorg ? { onReorg: options.faults.onReorg } : {}),
          });
    const faults = this.faults;
    this.node = faults === undefined ? counted : (method, params) => faults.request(method, params);
    this.clients = {
      request: (args) =>
        faults === undefined ? this.node(args.method, args.params ?? []) : faults.gate(() => this.node(args.method, args.params ?? [])),
    };
    // The chain id is the pair's and never changes: ethers need not ask for it before every call.
    this.provider = new BrowserProvider(this.clients as unknown as Eip1193Provider, info.chainId, {
      cacheTimeout: -1,
      staticNetwork: true,
    });
  }

  static async start(factory: SimulatedChainFactory, info: EvmNetworkInfo, options: SimulatedChainOptions): Promise<SimulatedChain> {
    const connection = observed(await factory(info), `${info.chain}/${info.network}`, options.onNodeCall);
    const chain = new SimulatedChain(info, connection, options);
    await chain.replayJournal();
    // Mining on send, EDR takes requests in order and mines or refuses each: a burst can be sent at once.
    chain.broadcastAll = options.blockTimeSeconds > 0 ? undefined : (signed) => chain.sendAll(signed);
    chain.intervalMining = options.blockTimeSeconds > 0;
    // With faults on, blocks are mined through them (on a timed chain, by them): see faults.ts.
    if (chain.faults !== undefined) await chain.faults.start();
    else if (options.blockTimeSeconds > 0) {
      await chain.request("evm_setAutomine", [false]);
      await chain.request("evm_setIntervalMining", [Math.round(options.blockTimeSeconds * 1000)]);
    }
    return chain;
  }

  stateVersion(): string | Promise<string> {
    if (!this.intervalMining) return String(this.changes);
    const changes = this.changes;
    // Asked of EDR in this process, beside ethers' request scheduling: microseconds, not a node round trip.
    return (this.request("eth_blockNumber", []) as Promise<string>).then((head) => `${changes}@${head}`);
  }

  rpc(method: string, params: unknown[]): Promise<unknown> {
    return this.clients.request({ method, params });
  }

  /** Journals the transaction (written and synced), then sends it: nothing is executed that a restart would not bring back. */
  async broadcast(signedTransaction: string): Promise<string> {
    const faults = this.faults;
    if (faults === undefined) {
      await this.journal?.append({ op: "rawTransaction", raw: signedTransaction });
      return (await this.request("eth_sendRawTransaction", [signedTransaction])) as string;
    }
    // With faults on, the fault layer journals and sends, in turn with the blocks it mines. A send the rpc-errors fault
    // refuses is refused before it is journaled: a restart must not make it.
    return faults.gate(async () => {
      const [sent] = await faults.broadcast([signedTransaction]);
      if (sent!.status === "rejected") throw sent!.reason;
      return sent!.value;
    });
  }

  /**
   * Journals every transaction in one write and sync, then sends them at once, in order. A journal that cannot be
   * written refuses them all before any is executed. One the chain refuses stays in the journal: replayed in the
   * same order, it is refused again.
   */
  private async sendAll(signedTransactions: string[]): Promise<Array<PromiseSettledResult<string>>> {
    const faults = this.faults;
    if (faults === undefined) {
      try {
        await this.journal?.append(...signedTransactions.map((raw): JournalEntry => ({ op: "rawTransaction", raw })));
      } catch (error) {
        return signedTransactions.map(() => ({ status: "rejected", reason: error }));
      }
      return Promise.allSettled(signedTransactions.map((raw) => this.request("eth_sendRawTransaction", [raw]) as Promise<string>));
    }
    // The rpc-errors fault decides each send first: one it refuses is neither journaled nor sent; one it times out is
    // sent, and its answer lost.
    const failures = signedTransactions.map(() => faults.roll());
    const sent = signedTransactions.filter((_, index) => failures[index] !== "429" && failures[index] !== "503");
    const results = sent.length > 0 ? await faults.broadcast(sent) : [];
    // The failure as the sender sees it (a timeout once the request timeout passed); the send itself is done above.
    const refusal = (kind: RpcErrorKind): Promise<PromiseSettledResult<string>> =>
      faults
        .fail(kind, async () => undefined)
        .then(
          () => ({ status: "rejected", reason: new Error(`rpc-errors ${kind}`) }),
          (reason: unknown) => ({ status: "rejected", reason }),
        );
    let next = 0;
    return Promise.all(
      signedTransactions.map(async (_, index): Promise<PromiseSettledResult<string>> => {
        const failure = failures[index];
        if (failure === "429" || failure === "503") return refusal(failure);
        const result = results[next++]!;
        return failure === undefined ? result : refusal(failure);
      }),
    );
  }

  async fund(address: string, amount: bigint, grantId?: string): Promise<bigint> {
    // A grant reads the balance and sets it higher: grants take turns, whoever makes them (a request, the tracker).
    const granted = this.granting.then(async () => {
      const entry: JournalEntry = { op: "fund", address, amount: amount.toString(), ...(grantId !== undefined ? { grant: grantId } : {}) };
      let balance: bigint;
      if (this.faults !== undefined) balance = await this.faults.grant(address, amount, entry);
      else {
        await this.journal?.append(entry);
        balance = await this.addBalance(address, amount);
      }
      if (grantId !== undefined) this.grants.add(grantId);
      return balance;
    });
    this.granting = granted.catch(() => undefined);
    return granted;
  }

  hasGrant(grantId: string): boolean {
    return this.grants.has(grantId);
  }

  async close(): Promise<void> {
    await this.faults?.close();
    await this.journal?.close();
    await this.close_();
  }

  private async addBalance(address: string, amount: bigint): Promise<bigint> {
    const current = BigInt((await this.request("eth_getBalance", [address, "latest"])) as string);
    const next = current + amount;
    await this.request("hardhat_setBalance", [address, toQuantity(next)]);
    return next;
  }

  private request(method: string, params: unknown[]): Promise<unknown> {
    return this.node(method, params);
  }

  private async replayJournal(): Promise<void> {
    if (this.journal === undefined) return;
    const started = performance.now();
    // What cannot be trusted (a torn or damaged line) is set aside, never a reason not to start. A transaction whose
    // entry was lost has its record checked again by the tracker (see EvmChains' onJournalLoss).
    const read = await this.journal.read();
    if (read.entries.length === 0 && read.tornBytes === 0 && read.rejectedLines === 0) return;
    const forgotten = forgottenEntries(read.entries);
    let lossFromBlock: number | undefined;
    const blockAfterTrusted = async () => Number(BigInt((await this.request("eth_blockNumber", [])) as string)) + 1;
    for (const [index, entry] of read.entries.entries()) {
      if (index === read.trustedBeforeLoss) lossFromBlock = await blockAfterTrusted();
      if (entry.op === "forget" || forgotten.has(index)) continue;
      if (entry.op === "fund") {
        await this.addBalance(entry.address, BigInt(entry.amount));
        if (entry.grant !== undefined) this.grants.add(entry.grant);
        continue;
      }
      // A fault gave this block its base fee: it gets it again.
      if (entry.baseFee !== undefined) await this.request("hardhat_setNextBlockBaseFeePerGas", [entry.baseFee]);
      if (entry.op === "mine") await this.request("evm_mine", []);
      // A transaction that was refused or reverted the first time is refused or reverts again; it still belongs to the history.
      else await this.request("eth_sendRawTransaction", [entry.raw]).catch(() => undefined);
    }
    if (read.trustedBeforeLoss === read.entries.length) lossFromBlock = await blockAfterTrusted();
    this.replay = {
      path: this.journal.path,
      entries: read.entries.length,
      bytes: read.bytes,
      milliseconds: performance.now() - started,
      tornBytes: read.tornBytes,
      rejectedLines: read.rejectedLines,
      ...(read.setAsidePath !== undefined ? { setAsidePath: read.setAsidePath } : {}),
      ...(lossFromBlock !== undefined ? { lossFromBlock } : {}),
    };
  }
}

/**
 * The transaction entries a later `forget` entry cancels: for each hash it names, the latest earlier entry of that
 * transaction (one sent again after it was forgotten is replayed from its later entry).
 */
export function forgottenEntries(entries: readonly JournalEntry[]): Set<number> {
  const cancelled = new Set<number>();
  if (!entries.some((entry) => entry.op === "forget")) return cancelled;
  const latest = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    if (entry.op === "rawTransaction") {
      const hash = keccak256(entry.raw);
      const indexes = latest.get(hash) ?? [];
      indexes.push(index);
      latest.set(hash, indexes);
    } else if (entry.op === "forget") {
      for (const hash of entry.transactions) {
        const found = latest.get(hash.toLowerCase())?.pop();
        if (found !== undefined) cancelled.add(found);
      }
    }
  });
  return cancelled;
}
