/**
 * Writes that arrive together commit together: every item added while a flush is being scheduled or running joins the
 * next flush, one transaction (one fsync) for all of them. Each caller still learns its own outcome: when a group's
 * write fails, its items are written one by one, so one bad item fails alone.
 */
export class GroupCommit<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  constructor(
    private readonly writeOne: (item: T) => Promise<void>,
    private readonly writeMany: (items: T[]) => Promise<void>,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // Callers that start together (a sender's batch, concurrent requests) are a few microtasks apart: the next
      // macrotask takes them all.
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      if (group.length === 1) {
        await this.settle(group[0]!);
        continue;
      }
      try {
        await this.writeMany(group.map((entry) => entry.item));
        for (const entry of group) entry.resolve();
      } catch {
        for (const entry of group) await this.settle(entry);
      }
    }
    this.flushing = false;
  }

  private async settle(entry: { item: T; resolve: () => void; reject: (error: unknown) => void }): Promise<void> {
    try {
      await this.writeOne(entry.item);
      entry.resolve();
    } catch (error) {
      entry.reject(error);
    }
  }
}
