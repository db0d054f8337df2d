import { toQuantity } from "ethers";

import {
  captureState,
  checkpointPathOf,
  genesisAccounts,
  newCheckpointId,
  readCheckpoint,
  writeCheckpoint,
  type ChainCheckpoint,
  type CheckpointAccount,
} from "./checkpoint.js";
import type { ChainJournal } from "./journal.js";

type Node = (method: string, params: unknown[]) => Promise<unknown>;

/** How a checkpoint went, for the operator's log. */
export type CheckpointOutcome =
  | { ok: true; height: number; accounts: number; entriesCovered: number; bytes: number; milliseconds: number; rotated: boolean }
  | { ok: false; error: string };

/** A checkpoint read at start, with where it is. */
export interface LoadedCheckpoint {
  path: string;
  checkpoint: ChainCheckpoint;
}

/** Reads the checkpoint beside a journal, and brings the journal after it: a journal it covers is cut to what follows. */
export async function loadCheckpoint(journal: ChainJournal): Promise<LoadedCheckpoint | undefined> {
  const file = checkpointPathOf(journal.path);
  const checkpoint = await readCheckpoint(file);
  if (checkpoint === undefined) return undefined;
  const first = await journal.firstEntry();
  // Killed between the checkpoint and the journal's rotation: the old journal is still there, covered up to the offset.
  if (!(first?.op === "checkpoint" && first.id === checkpoint.id)) {
    await journal.rotate(checkpoint.journalOffset, { op: "checkpoint", id: checkpoint.id });
    await journal.close();
  }
  return { path: file, checkpoint };
}

/**
 * Brings a fresh chain to a checkpoint: its accounts (in the genesis when the factory could put them there, else one
 * call each), empty blocks up to its height (EDR mines a run of empty blocks at once), and the next block's base fee.
 */
export async function restoreCheckpoint(node: Node, checkpoint: ChainCheckpoint, genesisApplied: boolean): Promise<void> {
  if (!genesisApplied) {
    for (const account of genesisAccounts(checkpoint)) {
      await node("hardhat_setBalance", [account.address, toQuantity(account.balance)]);
      await node("hardhat_setNonce", [account.address, toQuantity(account.nonce)]);
      if (account.code !== undefined) await node("hardhat_setCode", [account.address, account.code]);
      for (const [slot, value] of account.storage ?? []) await node("hardhat_setStorageAt", [account.address, slot, value]);
    }
  }
  // The blocks below the last one are placeholders; the last is mined as any block is, its timestamp now.
  if (checkpoint.height > 1) await node("hardhat_mine", [toQuantity(checkpoint.height - 1), "0x0"]);
  if (checkpoint.height > 0) await node("evm_mine", []);
  await node("hardhat_setNextBlockBaseFeePerGas", [checkpoint.nextBaseFee]);
}

interface Mark {
  height: number;
  journalOffset: number;
  nextBaseFee: string;
  /** Journal entries written since start, at the mark. */
  appended: number;
}

export interface ChainCheckpointerOptions {
  journal: ChainJournal;
  chainId: number;
  /** A checkpoint after this many journal entries; 0: never. */
  every: number;
  /** The node below every fault: reads at a block, traces. */
  node: Node;
  /** With faults on: runs the mark in turn with every change, when the chain is quiet (see ChainFaults.quietPoint). */
  quietPoint?: <T>(mark: () => Promise<T>) => Promise<T | undefined>;
  /** Blocks are mined by a timer: transactions may wait in the pool. */
  intervalMining: boolean;
  grants(): Iterable<string>;
  onCheckpoint?(outcome: CheckpointOutcome): void;
}

/**
 * Writes a simulated chain's checkpoints: every `every` journal entries, at a quiet point (nothing journaled but not yet
 * done, nothing waiting in the pool), it marks the head and the journal's length, reads the state at that head (what
 * changed since the last checkpoint), writes it whole beside the journal and starts the journal afresh after it.
 * Changes wait only for the mark (a few node calls); reading and writing run beside them. A checkpoint that fails (a
 * full disk) leaves the last one and the journal as they were: the chain goes on, and tries again later.
 */
export class ChainCheckpointer {
  private readonly accounts: Record<string, CheckpointAccount>;
  private readonly codes: Record<string, string>;
  private height: number;
  /** Entries the last checkpoint stood for, and how many of those were written since start. */
  private entriesCovered: number;
  private appendedAtLastMark = 0;
  private appended = 0;
  private nextAttempt: number;
  /** Addresses whose balance a faucet grant set since the last mark: no transaction trace names them. */
  private funded = new Set<string>();
  private active = 0;
  private barrier: Promise<void> | undefined;
  private drained: (() => void) | undefined;
  private running: Promise<CheckpointOutcome | undefined> | undefined;
  private closed = false;

  constructor(
    private readonly options: ChainCheckpointerOptions,
    start: { checkpoint?: ChainCheckpoint; replayedEntries: number },
  ) {
    this.accounts = start.checkpoint?.accounts ?? {};
    this.codes = start.checkpoint?.codes ?? {};
    this.height = start.checkpoint?.height ?? 0;
    this.entriesCovered = (start.checkpoint?.entriesCovered ?? 0) + start.replayedEntries;
    // The entries replayed at start count toward the next checkpoint.
    this.appended = start.replayedEntries;
    this.nextAttempt = options.every;
  }

  /** Runs a change that journals then acts (without faults): a mark waits until it is done. */
  async change<T>(run: () => Promise<T>): Promise<T> {
    while (this.barrier !== undefined) await this.barrier;
    this.active++;
    try {
      return await run();
    } finally {
      if (--this.active === 0) this.drained?.();
    }
  }

  /** Told after journal entries were written. */
  wrote(count: number): void {
    this.appended += count;
    this.startWhenDue();
  }

  private startWhenDue(): void {
    if (this.options.every > 0 && this.running === undefined && !this.closed && this.appended - this.appendedAtLastMark >= this.nextAttempt)
      setImmediate(() => void this.checkpoint());
  }

  /** Told of a faucet grant (a balance set, which no transaction shows). */
  fundedAddress(address: string): void {
    this.funded.add(address.toLowerCase());
  }

  /** Writes a checkpoint now, when the chain is quiet; answers how it went (undefined: not quiet, or one was running). */
  checkpoint(): Promise<CheckpointOutcome | undefined> {
    if (this.running !== undefined || this.closed) return this.running ?? Promise.resolve(undefined);
    const running = this.write().finally(() => {
      this.running = undefined;
      // Entries written while it ran may make the next one due already.
      this.startWhenDue();
    });
    this.running = running;
    return running;
  }

  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
  }

  private async write(): Promise<CheckpointOutcome | undefined> {
    const started = performance.now();
    const retryLater = () =>
      // Tried again a tenth of the way on.
      (this.nextAttempt = this.appended - this.appendedAtLastMark + Math.max(1, Math.ceil(this.options.every / 10)));
    let mark: Mark | undefined;
    try {
      mark = await this.quiet(() => this.mark());
    } catch (error) {
      retryLater();
      const outcome: CheckpointOutcome = { ok: false, error: (error as Error).message };
      this.options.onCheckpoint?.(outcome);
      return outcome;
    }
    // Not quiet (transactions wait to be mined, a fault holds the chain).
    if (mark === undefined) return void retryLater();
    const funded = this.funded;
    this.funded = new Set();
    try {
      // Accounts touched before the mark are read at its block: changes made meanwhile are the journal's, after it.
      await captureState(this.options.node, { accounts: this.accounts, codes: this.codes }, this.height, mark.height, funded);
      const entriesCovered = this.entriesCovered + (mark.appended - this.appendedAtLastMark);
      const checkpoint: ChainCheckpoint = {
        version: 1,
        id: newCheckpointId(),
        chainId: this.options.chainId,
        height: mark.height,
        nextBaseFee: mark.nextBaseFee,
        journalOffset: mark.journalOffset,
        entriesCovered,
        grants: [...this.options.grants()],
        accounts: this.accounts,
        codes: this.codes,
      };
      const file = checkpointPathOf(this.options.journal.path);
      await writeCheckpoint(file, checkpoint);
      // Durable: what it covers is no longer the journal's to replay. From here on, a retry starts from this one.
      this.height = mark.height;
      this.entriesCovered = entriesCovered;
      this.appendedAtLastMark = mark.appended;
      this.nextAttempt = this.options.every;
      let rotated = true;
      // Failing (a full disk), the checkpoint still holds: a start cuts the journal at its offset instead.
      await this.options.journal.rotate(mark.journalOffset, { op: "checkpoint", id: checkpoint.id }).catch(() => (rotated = false));
      const outcome: CheckpointOutcome = {
        ok: true,
        height: mark.height,
        accounts: Object.keys(this.accounts).length,
        entriesCovered,
        bytes: mark.journalOffset,
        milliseconds: performance.now() - started,
        rotated,
      };
      this.options.onCheckpoint?.(outcome);
      return outcome;
    } catch (error) {
      for (const address of funded) this.funded.add(address);
      // The state read so far stays: the next try reads every account touched since the last height again, later.
      retryLater();
      const outcome: CheckpointOutcome = { ok: false, error: (error as Error).message };
      this.options.onCheckpoint?.(outcome);
      return outcome;
    }
  }

  /** Runs `mark` when no change is half done: in turn with the faults' changes, or once the running changes end. */
  private async quiet<T>(mark: () => Promise<T>): Promise<T | undefined> {
    if (this.options.quietPoint !== undefined) return this.options.quietPoint(mark);
    while (this.barrier !== undefined) await this.barrier;
    let release!: () => void;
    this.barrier = new Promise((resolve) => (release = resolve));
    try {
      while (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      return await mark();
    } finally {
      this.barrier = undefined;
      this.drained = undefined;
      release();
    }
  }

  private async mark(): Promise<Mark | undefined> {
    const node = this.options.node;
    if (this.options.intervalMining) {
      const pending = (await node("eth_getBlockByNumber", ["pending", false])) as { transactions: string[] } | null;
      if ((pending?.transactions.length ?? 0) > 0) return undefined;
    }
    const journalOffset = await this.options.journal.durableLength();
    const height = Number(BigInt((await node("eth_blockNumber", [])) as string));
    const history = (await node("eth_feeHistory", ["0x1", toQuantity(height), []])) as { baseFeePerGas: string[] };
    const nextBaseFee = history.baseFeePerGas.at(-1) ?? "0x0";
    return { height, journalOffset, nextBaseFee, appended: this.appended };
  }
}
