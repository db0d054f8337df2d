/** Runs tasks one after another, in the order they were handed in. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
