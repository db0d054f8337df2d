import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { SharedRateLimiter } from "../../../src/http/rate-limiter.js";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/types.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

/** Counts the store's rate-limit writes, so a test sees which ones a request's path makes. */
function countingWrites(store: Store): { store: Store; writes: () => number } {
  let writes = 0;
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      if (property === "hitRateLimit") {
        return (...args: Parameters<Store["hitRateLimit"]>) => {
          writes += 1;
          return target.hitRateLimit(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: counted, writes: () => writes };
}

describe("rate limit: decided in memory, shared through the store", function () {
  let dataDir: string;
  let store: Store;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-limit-"));
    store = await openStore({ dataDir });
  });

  afterEach(async function () {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses past the limit without a store write on any request, then adds the hits in one write", async function () {
    const counting = countingWrites(store);
    const limiter = new SharedRateLimiter(counting.store, { limit: 5, windowMs: 3_600_000 }, 60_000);
    const results = Array.from({ length: 8 }, () => limiter.hit("key:a"));
    expect(results.map((result) => result.allowed)).to.deep.equal([true, true, true, true, true, false, false, false]);
    expect(results.map((result) => result.remaining)).to.deep.equal([4, 3, 2, 1, 0, 0, 0, 0]);
    expect(counting.writes(), "no write while requests are decided").to.equal(0);
    await limiter.close();
    expect(counting.writes(), "one write for the key's five counted hits").to.equal(1);
    const shared = await store.hitRateLimit("key:a", 5, 3_600_000, 0);
    expect(shared.count, "the refused hits are not counted").to.equal(5);
  });

  it("keeps keys apart and starts a new window at its turn", async function () {
    const limiter = new SharedRateLimiter(store, { limit: 1, windowMs: 1_000 }, 60_000);
    const start = 10_000_000;
    expect(limiter.hit("key:a", start).allowed).to.equal(true);
    expect(limiter.hit("key:b", start).allowed, "another key has its own count").to.equal(true);
    expect(limiter.hit("key:a", start + 999).allowed).to.equal(false);
    expect(limiter.hit("key:a", start + 1_000).allowed, "the next window").to.equal(true);
    await limiter.close();
  });
});

describe("rate limit: two replicas on one PostgreSQL share the count", function () {
  let schema: Awaited<ReturnType<typeof freshPostgresSchema>>;
  const opened: Store[] = [];
  const dirs: string[] = [];

  before(async function () {
    schema = await freshPostgresSchema(this, "hts_limit");
  });

  after(async function () {
    for (const store of opened) await store.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    await schema?.drop();
  });

  async function replica(): Promise<Store> {
    const dir = await mkdtemp(path.join(tmpdir(), "hts-limit-pg-"));
    dirs.push(dir);
    const store = await openStore({ dataDir: dir, databaseUrl: schema.url });
    opened.push(store);
    return store;
  }

  it("learns the other replica's hits at its next sync and refuses beyond the shared limit", async function () {
    const settings = { limit: 6, windowMs: 3_600_000 };
    const first = new SharedRateLimiter(await replica(), settings, 60_000);
    const second = new SharedRateLimiter(await replica(), settings, 60_000);
    for (let index = 0; index < 4; index++) expect(first.hit("key:shared").allowed).to.equal(true);
    await first.sync();
    await second.sync(); // nothing of its own yet: it has not learned anything either
    expect(second.hit("key:shared").allowed).to.equal(true);
    await second.sync(); // adds its hit and learns the first replica's four
    expect(second.hit("key:shared").allowed, "the sixth hit across both").to.equal(true);
    expect(second.hit("key:shared").allowed, "a seventh is refused").to.equal(false);
    await second.sync();
    await first.sync();
    // The first replica learns at its next sync that the window is full, though it counted only four itself.
    first.hit("key:shared");
    await first.sync();
    expect(first.hit("key:shared").allowed).to.equal(false);
    await first.close();
    await second.close();
  });
});
