import { BrowserProvider, keccak256, toQuantity, type Eip1193Provider } from "ethers";
import type { EvmChain, EvmNetworkInfo, NodeCallObserver, SimulatedChainConnection, SimulatedChainFactory } from "./chain.js";
import type { RpcErrorKind } from "../../domain/faults.js";
import { genesisAccounts } from "./checkpoint.js";
import { ChainCheckpointer, loadCheckpoint, restoreCheckpoint, type CheckpointOutcome, type LoadedCheckpoint } from "./checkpointer.js";
import { ChainFaults } from "./faults.js";
import { ChainJournal, type JournalEntry } from "./journal.js";
import { PoolSlots } from "./pool-slots.js";

/** What a start-up replay found, for the operator. */
export interface JournalReplay {
  path: string;
  /** Entries replayed: those after the checkpoint, when the chain started from one. */
  entries: number;
  bytes: number;
  /** When the chain started from a checkpoint: its block, its accounts, the entries it stands for (not replayed), and how long loading it took. */
  checkpoint?: { height: number; accounts: number; entriesCovered: number; milliseconds: number };
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
  /**
   * With a journal: a checkpoint of the chain's state is written beside it after this many entries, and the journal
   * starts afresh after it, so that a start replays only what followed (see checkpointer.ts). 0: never. Default 1,000.
   */
  checkpointEntries?: number;
  /** Told how each checkpoint went. */
  onCheckpoint?(outcome: CheckpointOutcome): void;
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
  /** Addresses the replay granted funds to: the first checkpoint reads them again (no transaction trace names them). */
  private replayedGrants: string[] = [];
  /** With a journal: writes the checkpoints (made once the journal was replayed). */
  private checkpointer: ChainCheckpointer | undefined;
  /** Journals entries, counting them toward the next checkpoint. */
  private readonly journalAppend: ((...entries: JournalEntry[]) => Promise<void>) | undefined;
  /** With a block time, which transaction holds each sender's pending nonce: one a replacement took the place of is forgotten. */
  private readonly slots = new PoolSlots();
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
    this.journalAppend =
      journal === undefined
        ? undefined
        : async (...entries) => {
            await journal.append(...entries);
            this.checkpointer?.wrote(entries.length);
          };
    const append = this.journalAppend;
    this.faults =
      options.faults === undefined
        ? undefined
        : new ChainFaults(counted, {
            pair: `${info.chain}/${info.network}`,
            blockTimeMs: Math.round(options.blockTimeSeconds * 1000),
            requestTimeoutMs: options.faults.requestTimeoutMs,
            isRead: (method) => READ_ONLY_METHODS.has(method),
            ...(append ? { journal: append } : {}),
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
    const loadStarted = performance.now();
    const loaded = options.journalPath === undefined ? undefined : await loadCheckpoint(new ChainJournal(options.journalPath));
    const made = await factory(info, loaded === undefined ? undefined : { accounts: genesisAccounts(loaded.checkpoint) });
    const connection = observed(made, `${info.chain}/${info.network}`, options.onNodeCall);
    const chain = new SimulatedChain(info, connection, options);
    if (loaded !== undefined)
      await restoreCheckpoint((method, params) => chain.request(method, params), loaded.checkpoint, made.genesisApplied === true);
    await chain.replayJournal(loaded, performance.now() - loadStarted);
    if (chain.journal !== undefined) {
      const faults = chain.faults;
      chain.checkpointer = new ChainCheckpointer(
        {
          journal: chain.journal,
          chainId: info.chainId,
          every: options.checkpointEntries ?? DEFAULT_CHECKPOINT_ENTRIES,
          node: (method, params) => connection.provider.request({ method, params }),
          ...(faults !== undefined ? { quietPoint: (mark) => faults.quietPoint(mark) } : {}),
          intervalMining: options.blockTimeSeconds > 0,
          grants: () => chain.grants,
          ...(options.onCheckpoint ? { onCheckpoint: options.onCheckpoint } : {}),
        },
        { ...(loaded !== undefined ? { checkpoint: loaded.checkpoint } : {}), replayedEntries: chain.replay?.entries ?? 0 },
      );
      for (const address of chain.replayedGrants) chain.checkpointer.fundedAddress(address);
      chain.replayedGrants = [];
    }
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

  /** Where the chain journals, when it does. */
  get journalPath(): string | undefined {
    return this.journal?.path;
  }

  /** Resolves once no checkpoint is being written (a copy of the files taken then is a consistent pair). */
  checkpointIdle(): Promise<void> {
    return this.checkpointer?.idle() ?? Promise.resolve();
  }

  /** Writes a checkpoint now, when the chain is quiet (tests, an operator's tool); answers how it went. */
  checkpoint(): Promise<CheckpointOutcome | undefined> {
    return this.checkpointer?.checkpoint() ?? Promise.resolve(undefined);
  }

  rpc(method: string, params: unknown[]): Promise<unknown> {
    return this.clients.request({ method, params });
  }

  /** Journals the transaction (written and synced), then sends it: nothing is executed that a restart would not bring back. */
  async broadcast(signedTransaction: string): Promise<string> {
    const faults = this.faults;
    if (faults === undefined) {
      return this.changing(async () => {
        await this.journalAppend?.({ op: "rawTransaction", raw: signedTransaction });
        const hash = (await this.request("eth_sendRawTransaction", [signedTransaction])) as string;
        if (this.intervalMining && this.journalAppend !== undefined) {
          // A replacement (the same sender and nonce, higher fees) took a pooled transaction's place: a restart must not
          // mine that one instead. Written after the node took it: had the process died in between, the first one is
          // mined after a restart, and its operation's tracker follows it.
          const replaced = await this.slots.took((method, params) => this.request(method, params), hash);
          if (replaced !== undefined) await this.journalAppend({ op: "forget", transactions: [replaced] });
        }
        return hash;
      });
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
      return this.changing(async () => {
        try {
          await this.journalAppend?.(...signedTransactions.map((raw): JournalEntry => ({ op: "rawTransaction", raw })));
        } catch (error) {
          return signedTransactions.map((): PromiseSettledResult<string> => ({ status: "rejected", reason: error }));
        }
        return Promise.allSettled(signedTransactions.map((raw) => this.request("eth_sendRawTransaction", [raw]) as Promise<string>));
      });
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
      this.checkpointer?.fundedAddress(address);
      if (this.faults !== undefined) balance = await this.faults.grant(address, amount, entry);
      else {
        balance = await this.changing(async () => {
          await this.journalAppend?.(entry);
          return this.addBalance(address, amount);
        });
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
    await this.checkpointer?.close();
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

  /** A change that journals then acts: a checkpoint's mark waits for it (without faults; with them, faults.ts orders changes). */
  private changing<T>(run: () => Promise<T>): Promise<T> {
    return this.checkpointer === undefined ? run() : this.checkpointer.change(run);
  }

  private async replayJournal(loaded: LoadedCheckpoint | undefined, checkpointMs: number): Promise<void> {
    if (this.journal === undefined) return;
    const started = performance.now();
    for (const grant of loaded?.checkpoint.grants ?? []) this.grants.add(grant);
    // What cannot be trusted (a torn or damaged line) is set aside, never a reason not to start. A transaction whose
    // entry was lost has its record checked again by the tracker (see EvmChains' onJournalLoss).
    const read = await this.journal.read();
    if (loaded === undefined && read.entries.length === 0 && read.tornBytes === 0 && read.rejectedLines === 0) return;
    const forgotten = forgottenEntries(read.entries);
    let lossFromBlock: number | undefined;
    const blockAfterTrusted = async () => Number(BigInt((await this.request("eth_blockNumber", [])) as string)) + 1;
    for (const [index, entry] of read.entries.entries()) {
      if (index === read.trustedBeforeLoss) lossFromBlock = await blockAfterTrusted();
      if (entry.op === "forget" || entry.op === "checkpoint" || forgotten.has(index)) continue;
      if (entry.op === "fund") {
        await this.addBalance(entry.address, BigInt(entry.amount));
        this.replayedGrants.push(entry.address);
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
    const checkpoint = loaded?.checkpoint;
    this.replay = {
      path: this.journal.path,
      entries: read.entries.filter((entry) => entry.op !== "checkpoint").length,
      bytes: read.bytes,
      milliseconds: performance.now() - started,
      ...(checkpoint !== undefined
        ? {
            checkpoint: {
              height: checkpoint.height,
              accounts: Object.keys(checkpoint.accounts).length,
              entriesCovered: checkpoint.entriesCovered,
              milliseconds: checkpointMs,
            },
          }
        : {}),
      tornBytes: read.tornBytes,
      rejectedLines: read.rejectedLines,
      ...(read.setAsidePath !== undefined ? { setAsidePath: read.setAsidePath } : {}),
      ...(lossFromBlock !== undefined ? { lossFromBlock } : {}),
    };
  }
}

/**
 * Journal entries between checkpoints, unless configured (SimulatedChainOptions.checkpointEntries): none. A restart from
 * a checkpoint finds the blocks below it empty (old transactions, receipts and logs gone): an operator's choice for a
 * long-running simulated chain (docs/decisions/0051-simulated-chain-checkpoint.md).
 */
export const DEFAULT_CHECKPOINT_ENTRIES = 0;

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
