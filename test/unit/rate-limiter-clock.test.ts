import { expect } from "chai";

import { SharedRateLimiter } from "../../src/http/rate-limiter.js";
import type { SharedRateLimitCount, Store } from "../../src/store/types.js";

/** A clock the test moves by hand. */
function manualClock(start: number): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

/** The store's shared count kept in memory, per bucket and window as the database keeps it, on the same clock. */
function memoryStore(now: () => number): Pick<Store, "hitRateLimit"> & { writes: Array<{ bucket: string; hits: number }> } {
  const counts = new Map<string, number>();
  const writes: Array<{ bucket: string; hits: number }> = [];
  return {
    writes,
    async hitRateLimit(bucket: string, limit: number, windowMs: number, hits = 1): Promise<SharedRateLimitCount> {
      const at = now();
      const windowStart = at - (at % windowMs);
      const count = (counts.get(`${bucket}@${windowStart}`) ?? 0) + hits;
      counts.set(`${bucket}@${windowStart}`, count);
      writes.push({ bucket, hits });
      return { count, allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs: windowStart + windowMs - at };
    },
  };
}

describe("rate limit on an injected clock: windows turn when the clock says, without waiting", function () {
  const WINDOW_MS = 60_000;
  // The start of a window, so the test reads in whole windows.
  const START = 1_700_000_040_000 - (1_700_000_040_000 % WINDOW_MS);

  it("refuses past the limit until the clock reaches the next window, then allows again", async function () {
    const clock = manualClock(START);
    const limiter = new SharedRateLimiter(memoryStore(clock.now), { limit: 2, windowMs: WINDOW_MS }, 60_000, clock.now);
    expect([limiter.hit("key:a"), limiter.hit("key:a")].map((result) => result.allowed)).to.deep.equal([true, true]);
    expect(limiter.hit("key:a")).to.deep.equal({ allowed: false, limit: 2, remaining: 0, resetMs: WINDOW_MS });

    clock.advance(WINDOW_MS - 1);
    expect(limiter.hit("key:a")).to.deep.include({ allowed: false, resetMs: 1 });
    clock.advance(1);
    expect(limiter.hit("key:a")).to.deep.equal({ allowed: true, limit: 2, remaining: 1, resetMs: WINDOW_MS });
    await limiter.close();
  });

  it("adds the hits of the current window to the store at a sync, and drops a window that has ended instead", async function () {
    const clock = manualClock(START);
    const store = memoryStore(clock.now);
    const limiter = new SharedRateLimiter(store, { limit: 10, windowMs: WINDOW_MS }, 60_000, clock.now);
    limiter.hit("key:a");
    limiter.hit("key:a");
    await limiter.sync();
    expect(store.writes).to.deep.equal([{ bucket: "key:a", hits: 2 }]);

    limiter.hit("key:b");
    clock.advance(WINDOW_MS);
    await limiter.sync();
    expect(store.writes, "key:b's window ended before the sync: its hit is not written into the next one").to.deep.equal([
      { bucket: "key:a", hits: 2 },
    ]);
    expect(limiter.hit("key:b")).to.deep.include({ allowed: true, remaining: 9 });
    await limiter.close();
  });
});
