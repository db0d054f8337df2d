import type { EvmChain } from "../chain.js";
import { senderLockKey, type SenderLock } from "../sender-lock.js";

export interface Queued<J, R> {
  job: J;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** What a batch hands the batch after it in the same hold of the sender lock. */
export interface Handoff {
  /** Settles once every send of the batch is answered (broadcast, refused or not sent): the hold lasts until then. */
  finished: Promise<unknown>;
}

/**
 * A sender's batch: the jobs that queued while the batch before it ran. It resolves once the batch's sends hold their
 * nonces (nothing after it in the hold may plan before that), and its broadcasts may go on after: they follow those of
 * `before`, the batch before it in the same hold (undefined for a hold's first batch), which may still be broadcasting.
 */
export type BatchRunner<J, R, H extends Handoff> = (chain: EvmChain, batch: Array<Queued<J, R>>, before: H | undefined) => Promise<H>;

/** The most jobs one batch takes: a batch reads the node's nonce, fees and balance once, so a long burst reads them again. */
export const MAX_BATCH = 64;

/**
 * The most batches one hold of the sender lock takes, so that one holder (across replicas too) keeps it for a bounded
 * time: a hold's second batch is planned, signed and recorded while the first's last sends are still broadcast.
 */
export const BATCHES_PER_HOLD = 2;

/**
 * Jobs per chain and sender, run in batches inside the sender lock: what queued while a batch ran becomes the next
 * batch, so a burst from one sender takes the lock (and reads the node's nonce) once per batch instead of once per job.
 * Within one hold, the next batch starts once the one before it holds its nonces, beside its broadcasts. A lone job
 * runs at once.
 */
export class SenderBatches<J, R, H extends Handoff> {
  private readonly queues = new WeakMap<EvmChain, Map<string, Array<Queued<J, R>>>>();

  constructor(
    private readonly lock: SenderLock,
    private readonly run: BatchRunner<J, R, H>,
  ) {}

  submit(chain: EvmChain, sender: string, job: J): Promise<R> {
    const key = senderLockKey(chain.info.chainId, sender);
    let queues = this.queues.get(chain);
    if (queues === undefined) this.queues.set(chain, (queues = new Map()));
    const queue = queues.get(key);
    return new Promise<R>((resolve, reject) => {
      const entry = { job, resolve, reject };
      if (queue !== undefined) return void queue.push(entry);
      queues.set(key, [entry]);
      void this.drain(chain, key, queues);
    });
  }

  /** How many sends from `sender` wait for the next batch. */
  waiting(chain: EvmChain, sender: string): number {
    return this.queues.get(chain)?.get(senderLockKey(chain.info.chainId, sender))?.length ?? 0;
  }

  private async drain(chain: EvmChain, key: string, queues: Map<string, Array<Queued<J, R>>>): Promise<void> {
    const queue = queues.get(key)!;
    while (queue.length > 0) {
      let taken = false;
      try {
        // Taken once the lock is held: what arrived while it was awaited (another replica held it) joins this batch.
        await this.lock.withLock(key, async () => {
          taken = true;
          await this.hold(chain, queue);
        });
      } catch (error) {
        // The lock could not be taken (its database is down): what waits for it fails. A failure on letting it go, after
        // the batch ran, leaves the next batch to try the lock itself.
        if (!taken) for (const entry of queue.splice(0)) entry.reject(error);
      }
    }
    queues.delete(key);
  }

  /** One hold of the lock: up to BATCHES_PER_HOLD batches, each started once the one before it holds its nonces. */
  private async hold(chain: EvmChain, queue: Array<Queued<J, R>>): Promise<void> {
    const finishing: Array<Promise<unknown>> = [];
    let before: H | undefined;
    for (let count = 0; count < BATCHES_PER_HOLD && queue.length > 0; count++) {
      const batch = queue.splice(0, MAX_BATCH);
      // Whatever the runner left unanswered is answered (settling a promise twice changes nothing).
      const answerAll = (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      };
      try {
        before = await this.run(chain, batch, before);
      } catch (error) {
        answerAll(error);
        break;
      }
      finishing.push(before.finished.catch(answerAll));
    }
    // The lock is let go once every send of the hold is answered: the next holder reads a nonce the node has seen.
    await Promise.all(finishing);
  }
}
