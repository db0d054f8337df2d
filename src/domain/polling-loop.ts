/**
 * A worker's loop over a store: runs `pass` until stopped; runs it again at once when the pass says more is due or when
 * the loop was kicked meanwhile (this process queued work), and otherwise waits `intervalMs` (a kick ends the wait). An
 * idle loop so costs one store look per interval; work queued by another replica waits at most one interval.
 */
export class PollingLoop {
  private running: Promise<void> | undefined;
  private stopped = false;
  private kicked = false;
  private wake: (() => void) | undefined;

  constructor(
    /** One pass; answers whether another is due at once (it took as much as it could). Throwing counts as an idle pass. */
    private readonly pass: () => Promise<boolean>,
    private readonly intervalMs: () => number,
    /** Told of a pass that threw (the store is unreachable: what it would have taken waits in it). */
    private readonly onError?: (error: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Resolves once the pass under way (if any) ended; no pass starts after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.kicked = false;
      let again = false;
      try {
        again = await this.pass();
      } catch (error) {
        this.onError?.(error);
      }
      if (this.stopped || this.kicked || again) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.intervalMs());
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
