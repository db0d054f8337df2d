import { appendFile, mkdir, readFile, truncate } from "node:fs/promises";
import path from "node:path";
import { BrowserProvider, toQuantity, type Eip1193Provider } from "ethers";
import type { EvmChain, EvmNetworkInfo, NodeCallObserver, SimulatedChainConnection, SimulatedChainFactory } from "./chain.js";

type JournalEntry = { op: "rawTransaction"; raw: string } | { op: "fund"; address: string; amount: string; grant?: string };

/** What a start-up replay found, for the operator. */
export interface JournalReplay {
  path: string;
  entries: number;
  bytes: number;
  milliseconds: number;
  /** Bytes of an unfinished last line (a write cut short by kill -9), dropped. */
  tornBytes: number;
}

export interface SimulatedChainOptions {
  /** 0 mines every transaction at once; N > 0 mines a block every N seconds. */
  blockTimeSeconds: number;
  /** Told of every call to the chain, for metrics. */
  onNodeCall?: NodeCallObserver;
  /** When set, every state change is journaled there and replayed on the next start, so tasks run in separate processes share one chain. */
  journalPath?: string;
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
  /** Set when the chain was rebuilt from a journal. */
  replay: JournalReplay | undefined;
  /** The named faucet grants this chain holds, replayed ones included. */
  private readonly grants = new Set<string>();
  private granting: Promise<unknown> = Promise.resolve();
  /** Moves before and after every request that may change state, so no read started across a change is taken as current. */
  private changes = 0;
  /** Set when blocks are mined by EDR's timer, which no request of ours shows: the head is then part of the version. */
  private intervalMining = false;
  private readonly connection: SimulatedChainConnection;
  broadcastAll: ((signedTransactions: string[]) => Promise<Array<PromiseSettledResult<string>>>) | undefined;

  private constructor(
    readonly info: EvmNetworkInfo,
    connection: SimulatedChainConnection,
    private readonly journalPath: string | undefined,
  ) {
    this.connection = {
      close: () => connection.close(),
      provider: {
        request: async (args) => {
          if (READ_ONLY_METHODS.has(args.method)) return connection.provider.request(args);
          this.changes++;
          try {
            return await connection.provider.request(args);
          } finally {
            this.changes++;
          }
        },
      },
    };
    // The chain id is the pair's and never changes: ethers need not ask for it before every call.
    this.provider = new BrowserProvider(this.connection.provider as unknown as Eip1193Provider, info.chainId, {
      cacheTimeout: -1,
      staticNetwork: true,
    });
  }

  static async start(factory: SimulatedChainFactory, info: EvmNetworkInfo, options: SimulatedChainOptions): Promise<SimulatedChain> {
    const connection = observed(await factory(info), `${info.chain}/${info.network}`, options.onNodeCall);
    const chain = new SimulatedChain(info, connection, options.journalPath);
    await chain.replayJournal();
    // Mining on send, EDR takes requests in order and mines or refuses each: a burst can be sent at once.
    chain.broadcastAll = options.blockTimeSeconds > 0 ? undefined : (signed) => chain.sendAll(signed);
    if (options.blockTimeSeconds > 0) {
      await chain.request("evm_setAutomine", [false]);
      await chain.request("evm_setIntervalMining", [Math.round(options.blockTimeSeconds * 1000)]);
      chain.intervalMining = true;
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
    return this.connection.provider.request({ method, params });
  }

  async broadcast(signedTransaction: string): Promise<string> {
    const hash = (await this.request("eth_sendRawTransaction", [signedTransaction])) as string;
    await this.journal({ op: "rawTransaction", raw: signedTransaction });
    return hash;
  }

  /** Sends every transaction at once, in order, then journals the accepted ones in that order, in one append. */
  private async sendAll(signedTransactions: string[]): Promise<Array<PromiseSettledResult<string>>> {
    const results = await Promise.allSettled(
      signedTransactions.map((raw) => this.request("eth_sendRawTransaction", [raw]) as Promise<string>),
    );
    const accepted = signedTransactions.filter((_, index) => results[index]!.status === "fulfilled");
    await this.journal(...accepted.map((raw): JournalEntry => ({ op: "rawTransaction", raw })));
    return results;
  }

  async fund(address: string, amount: bigint, grantId?: string): Promise<bigint> {
    // A grant reads the balance and sets it higher: grants take turns, whoever makes them (a request, the tracker).
    const granted = this.granting.then(async () => {
      const balance = await this.addBalance(address, amount);
      await this.journal({ op: "fund", address, amount: amount.toString(), ...(grantId !== undefined ? { grant: grantId } : {}) });
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
    await this.connection.close();
  }

  private async addBalance(address: string, amount: bigint): Promise<bigint> {
    const current = BigInt((await this.request("eth_getBalance", [address, "latest"])) as string);
    const next = current + amount;
    await this.request("hardhat_setBalance", [address, toQuantity(next)]);
    return next;
  }

  private request(method: string, params: unknown[]): Promise<unknown> {
    return this.connection.provider.request({ method, params });
  }

  private async journal(...entries: JournalEntry[]): Promise<void> {
    if (this.journalPath === undefined || entries.length === 0) return;
    await mkdir(path.dirname(this.journalPath), { recursive: true, mode: 0o700 });
    await appendFile(this.journalPath, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
  }

  private async replayJournal(): Promise<void> {
    if (this.journalPath === undefined) return;
    const started = performance.now();
    let text: string;
    try {
      text = await readFile(this.journalPath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    // Every entry ends with a newline; text after the last one is a write that a crash cut short. Its
    // transaction's record is still `signed`, and the operation tracker broadcasts it again.
    const complete = text.lastIndexOf("\n") + 1;
    const tornBytes = Buffer.byteLength(text.slice(complete));
    if (tornBytes > 0) await truncate(this.journalPath, Buffer.byteLength(text.slice(0, complete)));
    const lines = text.slice(0, complete).split("\n");
    let entries = 0;
    for (const [index, line] of lines.entries()) {
      if (line.trim() === "") continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        throw new Error(
          `${this.journalPath} line ${index + 1} is not a journal entry; restore the file from a backup or move it away to start the chain empty`,
        );
      }
      entries++;
      if (entry.op === "fund") {
        await this.addBalance(entry.address, BigInt(entry.amount));
        if (entry.grant !== undefined) this.grants.add(entry.grant);
      } else {
        // A transaction that reverted the first time reverts again; it still belongs to the history.
        await this.request("eth_sendRawTransaction", [entry.raw]).catch(() => undefined);
      }
    }
    this.replay = {
      path: this.journalPath,
      entries,
      bytes: Buffer.byteLength(text) - tornBytes,
      milliseconds: performance.now() - started,
      tornBytes,
    };
  }
}
