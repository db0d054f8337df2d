/**
 * Serializes work per key (chain id + sender) so that nonces are read and used
 * by one launch at a time. A cross-process lock (PostgreSQL advisory lock) can
 * wrap this one: see `SenderLock` in the service options.
 */
export interface SenderLock {
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export class InProcessSenderLock implements SenderLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

export function senderLockKey(chainId: number, sender: string): string {
  return `${chainId}:${sender.toLowerCase()}`;
}
