import type { RateLimitResult, Store } from "../store/types.js";

export interface RateLimitSettings {
  /** Requests per window and API key; 0 disables the limit. */
  limit: number;
  windowMs: number;
}

/** How often a process adds its hits to the shared count and reads the other replicas' hits. */
export const RATE_LIMIT_SYNC_MS = 250;

interface Bucket {
  windowStart: number;
  /** The shared count of this window as the store last answered it (every replica's hits). */
  shared: number;
  /** This process's hits not yet added to the store. */
  unsynced: number;
}

/**
 * A fixed window per key, counted in this process and shared through the store in the background:
 * a request decides from memory, so the rate limit costs no database write on any request's path.
 * Every `RATE_LIMIT_SYNC_MS` the process adds its hits to the shared count (one write per active
 * key) and learns the other replicas' hits; replicas together can exceed a limit by the requests
 * that arrive within one sync.
 */
export class SharedRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<Store, "hitRateLimit">,
    private readonly settings: RateLimitSettings,
    private readonly syncMs = RATE_LIMIT_SYNC_MS,
    /** The clock windows are counted by (tests pass their own). */
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: string, now = this.now()): RateLimitResult {
    const { limit, windowMs } = this.settings;
    const windowStart = now - (now % windowMs);
    let bucket = this.buckets.get(key);
    if (bucket === undefined || bucket.windowStart !== windowStart) {
      bucket = { windowStart, shared: 0, unsynced: 0 };
      this.buckets.set(key, bucket);
    }
    const count = bucket.shared + bucket.unsynced + 1;
    const allowed = count <= limit;
    // A refused request is not counted: a client that keeps retrying still gets in once the window turns.
    if (allowed) {
      bucket.unsynced += 1;
      this.scheduleSync();
    }
    return { allowed, limit, remaining: Math.max(0, limit - Math.min(count, limit)), resetMs: windowStart + windowMs - now };
  }

  /** Adds this process's hits to the store now; the timer does it on its own. */
  sync(): Promise<void> {
    this.syncing ??= this.syncBuckets().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  private scheduleSync(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, this.syncMs);
    this.timer.unref();
  }

  private async syncBuckets(): Promise<void> {
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.windowStart + this.settings.windowMs <= now) {
        this.buckets.delete(key);
        continue;
      }
      const hits = bucket.unsynced;
      if (hits === 0) continue;
      bucket.unsynced -= hits;
      try {
        const result = await this.store.hitRateLimit(key, this.settings.limit, this.settings.windowMs, hits);
        // Every replica's hits in this window, ours included; hits that arrived meanwhile are still unsynced.
        bucket.shared = result.count;
      } catch {
        // The store is unreachable: keep the hits for the next sync; requests are still limited from memory.
        bucket.unsynced += hits;
        this.scheduleSync();
      }
    }
  }
}
