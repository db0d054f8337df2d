import { randomUUID } from "node:crypto";
import { hexlify, keccak256, randomBytes, toQuantity } from "ethers";

import { ErrorCode, invalidArgument, TokenServiceError } from "../../domain/errors.js";
import { MAX_REORG_BLOCKS, type ChainFault, type ChainFaultView, type RpcErrorKind } from "../../domain/faults.js";
import type { JournalEntry } from "./journal.js";
import { PoolSlots } from "./pool-slots.js";
import { FaultLedger, requestOf, viewOf, type FaultState, type Hold } from "./fault-states.js";
import { FeeSpikes } from "./fee-spikes.js";
import { RpcErrorsFault } from "./rpc-errors-fault.js";

/** A JSON-RPC request to the in-process node, below every fault. */
type Node = (method: string, params: unknown[]) => Promise<unknown>;

export interface ChainFaultsOptions {
  /** "ethereum/sepolia", for messages. */
  pair: string;
  /** 0: the node mines a block for each transaction it accepts; N: this module mines a block every N ms. */
  blockTimeMs: number;
  /** How long a call an rpc-errors fault times out is held before it fails: the service's node request timeout. */
  requestTimeoutMs: number;
  /** Whether a method only reads (reads are never queued behind blocks). */
  isRead(method: string): boolean;
  /** Writes and syncs journal entries before the change they record is made; absent for a chain kept in memory. */
  journal?: (...entries: JournalEntry[]) => Promise<void>;
  /** Told after a reorg replaced the blocks from `fromBlock` on: the service checks the records mined there. */
  onReorg?(fromBlock: number): Promise<void>;
  /** Draws the rpc-errors fault's dice; Math.random by default. */
  random?: () => number;
}

interface Snapshot {
  id: string;
  /** Grants made after it carry this number: a reorg back to it grants them again. */
  seq: number;
}

/** A journal entry with the base fee its block gets, when a fault sets one. */
function withFee<E extends Extract<JournalEntry, { op: "rawTransaction" | "mine" }>>(entry: E, fee: bigint | undefined): E {
  return fee === undefined ? entry : { ...entry, baseFee: toQuantity(fee) };
}

/**
 * A simulated chain that misbehaves on purpose, for a developer to test a client's handling of what live networks do:
 * fee spikes, stalls, dropped transactions, reorganizations and a node that fails calls. It sits between the chain and
 * its in-process EDR node, and drives the node with EDR's own methods.
 *
 * Every change to the chain passes here one at a time, journaled and made together (the journal written and synced
 * first), so the journal lists the changes in the order the node made them. To replace recent blocks, it takes an EDR
 * snapshot after every block (cheap: EDR's state is copy-on-write) and keeps the raw transactions of the latest
 * MAX_REORG_BLOCKS blocks. On a chain mining on send, each transaction still gets a block of its own (after a stall
 * too), and the base fee a fault gives a block is written with the transaction mined in it (or with the empty block
 * a fault mines): a restart, replaying the journal, rebuilds the same blocks at the same base fees. On a chain with a
 * block time, this module mines the blocks (EDR's interval mining stays off), so that a stall can skip them and a fee
 * spike price them; a restart rebuilds its transactions, not its blocks.
 *
 * A drop or a reorg writes which transactions the chain forgot, and a reorg the ones it mined again, in their new
 * order. The faults themselves live in memory: a restart ends them.
 */
export class ChainFaults {
  private started = false;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private head = 0;
  private snapshotSeq = 0;
  private readonly snapshots = new Map<number, Snapshot>();
  private readonly blockTransactions = new Map<number, string[]>();
  private readonly minedHashes = new Set<string>();
  /** Raw forms of the transactions sent since start, while they may still be needed (pooled, or in a recent block). */
  private readonly raws = new Map<string, string>();
  /** The base fee each of those was journaled with: the one its block gets (none: the node's own). */
  private readonly fees = new Map<string, bigint | undefined>();
  /** Sent, not mined yet, in the order they were sent. */
  private readonly pooled = new Set<string>();
  /** Which pooled transaction holds each sender's nonce: one a replacement took the place of is forgotten. */
  private readonly slots = new PoolSlots();
  private grants: Array<{ seq: number; address: string; amount: bigint }> = [];
  private readonly ledger = new FaultLedger();
  /** The base fee faults give the next blocks. */
  private readonly baseFees = new FeeSpikes(this.ledger);
  private hold: Hold | undefined;
  private readonly rpcErrors: RpcErrorsFault;
  private replaced: number | undefined;
  private minerTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly node: Node,
    private readonly options: ChainFaultsOptions,
  ) {
    this.rpcErrors = new RpcErrorsFault(this.ledger, options, options.random);
  }

  /** Begins watching blocks (after the chain replayed its journal): the first snapshot; on a timed chain, its miner. */
  async start(): Promise<void> {
    await this.exclusive(async () => {
      this.head = Number(await this.node("eth_blockNumber", []));
      await this.takeSnapshot();
      if (this.options.blockTimeMs > 0) await this.node("evm_setAutomine", [false]);
      this.started = true;
    });
    if (this.options.blockTimeMs > 0) this.scheduleBlock();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.minerTimer);
    for (const state of this.ledger.all()) clearTimeout(state.timer);
    await this.queue;
  }

  /** Every other request of the chain passes here: reads go straight to the node, changes one at a time. */
  request(method: string, params: unknown[]): Promise<unknown> {
    if (!this.started || this.options.isRead(method)) return this.node(method, params);
    return this.exclusive(() => this.change(method, params));
  }

  /**
   * Journals signed transactions (one write) and sends them in order, each settling as the node took or refused it.
   * A journal that cannot be written refuses them all, before any is sent.
   */
  broadcast(signedTransactions: string[]): Promise<Array<PromiseSettledResult<string>>> {
    return this.exclusive(async () => {
      const fees = this.baseFees.plannedFees(signedTransactions.length);
      try {
        await this.options.journal?.(
          ...signedTransactions.map((raw, index): JournalEntry => withFee({ op: "rawTransaction", raw }, fees[index])),
        );
      } catch (error) {
        return signedTransactions.map((): PromiseSettledResult<string> => ({ status: "rejected", reason: error }));
      }
      const results: Array<PromiseSettledResult<string>> = [];
      for (const [index, raw] of signedTransactions.entries()) {
        try {
          results.push({ status: "fulfilled", value: await this.send(raw, fees[index]) });
        } catch (reason) {
          results.push({ status: "rejected", reason });
        }
      }
      return results;
    });
  }

  /** A faucet grant: journaled and made in turn with blocks, and made again after a reorg that reverted it. */
  grant(address: string, amount: bigint, entry: JournalEntry): Promise<bigint> {
    return this.exclusive(async () => {
      await this.options.journal?.(entry);
      const balance = await this.addBalance(address, amount);
      if (this.started) this.grants.push({ seq: this.snapshotSeq, address, amount });
      return balance;
    });
  }

  /**
   * A call of the chain's clients (the service's reads, its tracker, its broadcasts), unless the rpc-errors fault fails
   * it: refused before it runs (429, 503), or run and its answer lost (a timeout, after the request timeout).
   */
  async gate<T>(run: () => Promise<T>): Promise<T> {
    const failure = this.roll();
    if (failure === undefined) return run();
    return this.fail(failure, run);
  }

  /** Whether the rpc-errors fault fails the next call, and how: asked once per call (a batch of sends asks per send). */
  roll(): RpcErrorKind | undefined {
    return this.rpcErrors.roll();
  }

  /** Fails a call as `roll` decided. */
  fail<T>(kind: RpcErrorKind, run: () => Promise<T>): Promise<T> {
    return this.rpcErrors.fail(kind, run);
  }

  /**
   * Runs `mark` in turn with every change, when nothing waits to be mined and no stall, drop or fee spike is active
   * (answers undefined otherwise); no reorg then reaches below the head it ran at: a checkpoint there is where the
   * chain's history starts, as a restart is.
   */
  quietPoint<T>(mark: () => Promise<T>): Promise<T | undefined> {
    return this.exclusive(async () => {
      if (this.pooled.size > 0 || this.hold !== undefined || this.baseFees.busy) return undefined;
      const result = await mark();
      for (const number of [...this.snapshots.keys()]) if (number < this.head) this.snapshots.delete(number);
      this.prune();
      return result;
    });
  }

  /** The lowest block height a reorg replaced since start: records mined from there on are checked as on a live network. */
  replacedFrom(): number | undefined {
    return this.replaced;
  }

  /** Starts a fault, or makes it at once (a reorg, a drop without a length); answers how it stands. */
  async inject(fault: ChainFault): Promise<ChainFaultView> {
    if (!this.started) throw new Error(`the faults of ${this.options.pair} are not started`);
    const state: FaultState = { id: randomUUID(), fault: fault.fault, request: requestOf(fault), startedAt: new Date(), effect: {} };
    switch (fault.fault) {
      case "fee-spike":
        await this.exclusive(async () => {
          const latest = (await this.node("eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas?: string };
          const fee = this.baseFees.start(state, fault, latest);
          // Its first block comes at once (empty, unless transactions wait): fee estimates read the latest block's base fee.
          if (this.hold === undefined) await this.mineEmpty(fee);
        });
        break;
      case "stall":
      case "drop":
        if (fault.length !== undefined && "blocks" in fault.length && this.options.blockTimeMs === 0) {
          throw invalidArgument(
            "blocks",
            `${this.options.pair} mines a block for each transaction it gets (block time 0): a ${fault.fault} has no blocks to count there; give its length in seconds`,
          );
        }
        if (fault.fault === "drop" && fault.length === undefined) {
          state.effect.forgotten = await this.exclusive(() => this.forgetPool());
          this.ledger.end(state, "done");
          break;
        }
        await this.exclusive(() => this.startHold(state, fault.fault === "drop", fault.length!));
        break;
      case "reorg": {
        const fromBlock = await this.exclusive(() => this.reorg(state, fault.blocks));
        this.ledger.end(state, "done");
        await this.options.onReorg?.(fromBlock).catch(() => undefined);
        break;
      }
      case "rpc-errors":
        this.rpcErrors.start(state, fault);
        break;
    }
    return this.view(state);
  }

  /** The faults active now, oldest first. */
  list(): ChainFaultView[] {
    return this.ledger.all().map((state) => this.view(state));
  }

  /**
   * Ends every active fault, or the one with this id: the chain behaves again at once. A stall or a drop cleared before
   * its end mines what it held (nothing is forgotten); a fee spike's next block is back at the base fee before it.
   */
  async clear(id?: string): Promise<ChainFaultView[]> {
    let targets: FaultState[];
    if (id === undefined) targets = this.ledger.all();
    else {
      const state = this.ledger.get(id);
      if (state === undefined) {
        throw new TokenServiceError(
          ErrorCode.CHAIN_FAULT_NOT_FOUND,
          `no active fault ${id} on ${this.options.pair} (it ended, or a restart cleared it); GET the faults to list them`,
          { field: "id" },
        );
      }
      targets = [state];
    }
    for (const state of targets) await this.stop(state, "cleared");
    return targets.map((state) => this.view(state));
  }

  // ---- blocks ------------------------------------------------------------------------------------------------------

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async change(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case "eth_sendRawTransaction":
        return this.send(params[0] as string, this.baseFees.nextFee());
      case "evm_mine":
      case "hardhat_mine":
        return this.mined(() => this.node(method, params), this.baseFees.nextFee());
      default:
        return this.node(method, params);
    }
  }

  private mineOnSend(): boolean {
    return this.options.blockTimeMs === 0;
  }

  private automines(): boolean {
    return this.mineOnSend() && this.hold === undefined;
  }

  private async send(raw: string, fee: bigint | undefined): Promise<string> {
    const hash = keccak256(raw);
    this.raws.set(hash, raw);
    this.fees.set(hash, fee);
    try {
      if (this.automines()) return (await this.mined(() => this.node("eth_sendRawTransaction", [raw]), fee)) as string;
      const sent = (await this.node("eth_sendRawTransaction", [raw])) as string;
      this.pooled.add(hash);
      await this.forgetReplaced(hash);
      return sent;
    } catch (error) {
      if (!this.pooled.has(hash) && !this.minedHashes.has(hash)) this.forgetRaw(hash);
      throw error;
    }
  }

  /**
   * A transaction the node took in place of a pooled one (the same sender and nonce: a speed-up, a cancel) leaves the
   * pool with it: the journal forgets it, so that a restart does not mine it instead, and the end of a stall does not
   * send it again before its replacement.
   */
  private async forgetReplaced(hash: string): Promise<void> {
    const replaced = await this.slots.took(this.node, hash);
    if (replaced === undefined || !this.pooled.has(replaced)) return;
    await this.options.journal?.({ op: "forget", transactions: [replaced] });
    this.pooled.delete(replaced);
    this.forgetRaw(replaced);
  }

  private forgetRaw(hash: string): void {
    this.raws.delete(hash);
    this.fees.delete(hash);
  }

  /** Runs something that may mine blocks, its base fee set before; a snapshot and the bookkeeping after. */
  private async mined<T>(run: () => Promise<T>, fee: bigint | undefined): Promise<T> {
    if (fee !== undefined) await this.node("hardhat_setNextBlockBaseFeePerGas", [toQuantity(fee)]);
    const result = await run();
    const head = Number(await this.node("eth_blockNumber", []));
    if (head > this.head) await this.afterBlocks(head, fee);
    return result;
  }

  /** An empty block a fault mines; on a chain mining on send, journaled first, so that a restart mines it too. */
  private async mineEmpty(fee: bigint | undefined): Promise<void> {
    if (this.mineOnSend()) await this.options.journal?.(withFee({ op: "mine" }, fee));
    await this.mined(() => this.node("evm_mine", []), fee);
  }

  private async afterBlocks(head: number, fee: bigint | undefined): Promise<void> {
    const count = head - this.head;
    for (let number = this.head + 1; number <= head; number++) {
      const block = (await this.node("eth_getBlockByNumber", [toQuantity(number), false])) as { transactions: string[] } | null;
      const hashes = block?.transactions ?? [];
      this.blockTransactions.set(number, hashes);
      for (const hash of hashes) {
        this.pooled.delete(hash);
        this.minedHashes.add(hash);
      }
    }
    this.head = head;
    this.baseFees.blocksMined();
    if (this.pooled.size === 0) this.slots.clear();
    await this.takeSnapshot();
    this.baseFees.countDown(count, fee);
    this.prune();
  }

  private async takeSnapshot(): Promise<void> {
    const id = (await this.node("evm_snapshot", [])) as string;
    this.snapshots.set(this.head, { id, seq: ++this.snapshotSeq });
  }

  /** Forgets what no reorg can reach any more. (EDR keeps its snapshots; they share the state they did not change.) */
  private prune(): void {
    const oldest = Math.max(this.head - MAX_REORG_BLOCKS, Math.min(...this.snapshots.keys()));
    for (const number of this.snapshots.keys()) if (number < oldest) this.snapshots.delete(number);
    for (const [number, hashes] of this.blockTransactions) {
      if (number > oldest) continue;
      this.blockTransactions.delete(number);
      for (const hash of hashes) {
        this.minedHashes.delete(hash);
        this.forgetRaw(hash);
      }
    }
    const kept = Math.min(...[...this.snapshots.values()].map((snapshot) => snapshot.seq));
    if (this.grants.length > 0 && this.grants[0]!.seq < kept) this.grants = this.grants.filter((grant) => grant.seq >= kept);
  }

  private scheduleBlock(): void {
    if (this.closed) return;
    this.minerTimer = setTimeout(() => {
      this.exclusive(() => this.tick())
        .catch(() => undefined)
        .finally(() => this.scheduleBlock());
    }, this.options.blockTimeMs).unref();
  }

  /** A timed chain's block: skipped while a stall holds the chain (counting down a stall given in blocks). */
  private async tick(): Promise<void> {
    const hold = this.hold;
    if (hold === undefined) return void (await this.mined(() => this.node("evm_mine", []), this.baseFees.nextFee()));
    hold.effect.blocksSkipped = (hold.effect.blocksSkipped as number) + 1;
    if (hold.blocksLeft !== undefined && --hold.blocksLeft <= 0) await this.releaseHeld(hold, "ran its length", hold.drop);
  }

  private async addBalance(address: string, amount: bigint): Promise<bigint> {
    const current = BigInt((await this.node("eth_getBalance", [address, "latest"])) as string);
    const next = current + amount;
    await this.node("hardhat_setBalance", [address, toQuantity(next)]);
    return next;
  }

  // ---- the faults --------------------------------------------------------------------------------------------------

  private async stop(state: FaultState, reason: string): Promise<void> {
    if (state.fault === "stall" || state.fault === "drop")
      return void (await this.exclusive(() => this.releaseHeld(state as Hold, reason, false)));
    await this.exclusive(async () => {
      this.baseFees.stop(state);
      this.rpcErrors.stop(state);
      this.ledger.end(state, reason);
    });
  }

  private async startHold(base: FaultState, drop: boolean, length: { blocks: number } | { seconds: number }): Promise<void> {
    const previous = this.hold;
    if (previous !== undefined) this.ledger.end(previous, `replaced by ${base.id}`);
    else if (this.mineOnSend()) await this.node("evm_setAutomine", [false]);
    const hold = this.ledger.begin<Hold>(base, {
      drop,
      ...("blocks" in length ? { blocksLeft: length.blocks } : { until: Date.now() + length.seconds * 1000 }),
      effect: { held: 0, blocksSkipped: 0, ...(drop ? { forgotten: [] } : {}) },
    });
    this.hold = hold;
    if (hold.until !== undefined) {
      hold.timer = setTimeout(() => {
        this.exclusive(() => this.releaseHeld(hold, "ran its length", hold.drop)).catch(() => undefined);
      }, hold.until - Date.now()).unref();
    }
  }

  /**
   * Ends a stall or a drop (inside the queue): a drop's end forgets what the node holds. On a chain mining on send,
   * what waited is then mined a transaction a block, in the order it came, at the base fee it was journaled with.
   */
  private async releaseHeld(hold: Hold, reason: string, forget: boolean): Promise<void> {
    if (this.hold !== hold) return;
    this.hold = undefined;
    hold.effect.held = this.pooled.size;
    if (forget) {
      try {
        hold.effect.forgotten = await this.forgetPool();
      } catch (error) {
        // The journal could not say so: what it held is mined instead, so that a restart shows what clients saw.
        hold.effect.error = `could not forget what waited: ${(error as Error).message}; it is mined instead`;
      }
    }
    this.ledger.end(hold, reason);
    if (!this.mineOnSend()) return; // the next block takes what waits
    // Taken out of the pool first: a send while automining mines whatever waits in the same block.
    const waiting: string[] = [];
    for (const hash of [...this.pooled]) {
      this.pooled.delete(hash);
      if ((await this.node("hardhat_dropTransaction", [hash]).catch(() => false)) === true) waiting.push(hash);
    }
    await this.node("evm_setAutomine", [true]);
    for (const hash of waiting) {
      const raw = this.raws.get(hash);
      // Refused now (a nonce after one the node never got): gone, as a restart, replaying the journal, refuses it too.
      if (raw !== undefined) await this.send(raw, this.fees.get(hash)).catch(() => undefined);
    }
  }

  /** Forgets the transactions the node holds unmined, journaled first; answers their hashes. */
  private async forgetPool(): Promise<string[]> {
    const hashes = [...this.pooled];
    if (hashes.length === 0) return [];
    await this.options.journal?.({ op: "forget", transactions: hashes });
    const forgotten: string[] = [];
    for (const hash of hashes) {
      if ((await this.node("hardhat_dropTransaction", [hash]).catch(() => false)) === true) forgotten.push(hash);
      this.pooled.delete(hash);
      this.forgetRaw(hash);
    }
    return forgotten;
  }

  /**
   * Replaces the latest `depth` blocks with a competing fork: back to the state after block head − depth (faucet
   * grants made since are made again), a first block with another randao, so that no block of the fork is one it
   * replaces, and the transactions of the replaced blocks (then those that waited) sent again in their order, at the
   * base fee each was first journaled with. On a chain mining on send they land at the heights they had; empty blocks
   * make up the old height where some could not. The journal says so first: those transactions forgotten where they
   * were, and sent again after. Answers the first height replaced.
   */
  private async reorg(state: FaultState, depth: number): Promise<number> {
    if (this.hold !== undefined) {
      throw new TokenServiceError(
        ErrorCode.CHAIN_FAULT_CONFLICT,
        `a reorg cannot run while the ${this.hold.fault} fault ${this.hold.id} holds ${this.options.pair}: clear it first`,
        { details: { faultId: this.hold.id } },
      );
    }
    const oldHead = this.head;
    const base = oldHead - depth;
    const snapshot = this.snapshots.get(base);
    if (snapshot === undefined) {
      const kept = oldHead - Math.min(...this.snapshots.keys());
      throw invalidArgument(
        "blocks",
        `${this.options.pair} can replace at most its latest ${kept} blocks now: those mined since it started, up to ${MAX_REORG_BLOCKS}`,
        { maxBlocks: kept },
      );
    }
    const again: string[] = [];
    for (let number = base + 1; number <= oldHead; number++) again.push(...(this.blockTransactions.get(number) ?? []));
    for (const hash of this.pooled) if (!again.includes(hash)) again.push(hash);
    if (again.length > 0) {
      await this.options.journal?.(
        { op: "forget", transactions: again },
        ...again.flatMap((hash): JournalEntry[] => {
          const raw = this.raws.get(hash);
          return raw === undefined ? [] : [withFee({ op: "rawTransaction", raw }, this.fees.get(hash))];
        }),
      );
    }
    if ((await this.node("evm_revert", [snapshot.id])) !== true)
      throw new Error(`EDR refused to revert ${this.options.pair} to block ${base}`);
    for (const number of [...this.snapshots.keys()]) if (number >= base) this.snapshots.delete(number);
    for (const number of [...this.blockTransactions.keys()]) {
      if (number <= base) continue;
      for (const hash of this.blockTransactions.get(number)!) this.minedHashes.delete(hash);
      this.blockTransactions.delete(number);
    }
    this.head = base;
    this.pooled.clear();
    await this.takeSnapshot();
    for (const grant of this.grants) {
      if (grant.seq < snapshot.seq) continue;
      await this.addBalance(grant.address, grant.amount);
      grant.seq = this.snapshotSeq;
    }
    await this.node("hardhat_setPrevRandao", [hexlify(randomBytes(32))]);
    let reincluded = 0;
    const forgotten: string[] = [];
    for (const hash of again) {
      const raw = this.raws.get(hash);
      try {
        if (raw === undefined) throw new Error("its raw form is not known");
        await this.send(raw, this.fees.get(hash));
        reincluded++;
      } catch {
        // Already back (the node held it when the fork began), or refused now: the journal says the same of it, and a
        // restart refuses it again; the service sends its own again from their records.
        if ((await this.node("eth_getTransactionByHash", [hash])) !== null) reincluded++;
        else forgotten.push(hash);
      }
    }
    while (this.head < oldHead) await this.mineEmpty(this.baseFees.nextFee());
    this.replaced = Math.min(this.replaced ?? Infinity, base + 1);
    state.effect = { replacedFrom: base + 1, oldHead, head: this.head, transactions: again.length, reincluded, forgotten };
    return base + 1;
  }

  private view(state: FaultState): ChainFaultView {
    // A hold's effect counts what waits now.
    return viewOf(state, this.options.pair, state === this.hold ? this.pooled.size : undefined);
  }
}
