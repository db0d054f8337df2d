import type { EvmChain } from "../chain.js";
import { senderLockKey, type SenderLock } from "../sender-lock.js";

export interface Queued<J, R> {
  job: J;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** A sender's batch: the jobs that queued while the previous batch held the sender lock. */
export type BatchRunner<J, R> = (chain: EvmChain, batch: Array<Queued<J, R>>) => Promise<void>;

/** The most jobs one batch takes, so that one holder of the sender lock (across replicas too) keeps it for a bounded time. */
export const MAX_BATCH = 64;

/**
 * Jobs per chain and sender, run in batches, one batch at a time, each inside the sender lock: what queued while a
 * batch ran becomes the next batch, so a burst from one sender takes the lock (and reads the node's nonce) once per
 * batch instead of once per job. A lone job runs at once.
 */
export class SenderBatches<J, R> {
  private readonly queues = new WeakMap<EvmChain, Map<string, Array<Queued<J, R>>>>();

  constructor(
    private readonly lock: SenderLock,
    private readonly run: BatchRunner<J, R>,
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
          const batch = queue.splice(0, MAX_BATCH);
          try {
            await this.run(chain, batch);
          } catch (error) {
            // Whatever the runner left unanswered is answered (settling a promise twice changes nothing).
            for (const entry of batch) entry.reject(error);
          }
        });
      } catch (error) {
        // The lock could not be taken (its database is down): what waits for it fails. A failure on letting it go, after
        // the batch ran, leaves the next batch to try the lock itself.
        if (!taken) for (const entry of queue.splice(0)) entry.reject(error);
      }
    }
    queues.delete(key);
  }
}
