import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

import { advisoryLockId } from "../../../src/store/advisory-lock.js";
import { printableDatabaseUrl } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/types.js";
import { until } from "../../helpers/until.js";
import { ALL_MIGRATIONS, contend, operation, postgresBackend } from "../../helpers/store-backends.js";

// One PostgreSQL database shared by two replicas: migrations, keys, limits, claims, sender locks and leases between them.

describe("store on a PostgreSQL server shared by two replicas", function () {
  let backend: Awaited<ReturnType<typeof postgresBackend>>;
  let first: Store;
  let second: Store;

  before(async function () {
    backend = await postgresBackend(this);
    // Both replicas start at once: their migrations race for the same empty schema.
    [first, second] = await Promise.all([backend.open(), backend.open()]);
  });

  after(async function () {
    await Promise.all([first?.close(), second?.close()]);
    await backend?.cleanup();
  });

  it("migrates once when several replicas start together", async function () {
    const client = new pg.Client({ connectionString: backend.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT name FROM kysely_migration ORDER BY name");
      expect(rows.map((row: { name: string }) => row.name)).to.deep.equal(ALL_MIGRATIONS);
      const others = await Promise.all([backend.open(), backend.open(), backend.open()]);
      await Promise.all(others.map((store) => store.close()));
    } finally {
      await client.end();
    }
  });

  it("describes itself without the password", async function () {
    expect(first.kind).to.equal("postgres");
    expect(first.location).to.match(/^postgres(ql)?:\/\//);
    expect(printableDatabaseUrl("postgresql://app:s3cret@db.internal:5432/tokens?sslmode=require&password=x")).to.equal(
      "postgresql://app@db.internal:5432/tokens",
    );
  });

  it("stores only the hash of an API key, and either replica verifies it", async function () {
    const { id, key } = await first.createApiKey("shared");
    expect(await second.verifyApiKey(key)).to.equal(id);
    const client = new pg.Client({ connectionString: backend.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT * FROM api_keys WHERE id = $1", [id]);
      expect(rows).to.have.length(1);
      expect(JSON.stringify(rows)).not.to.include(key.slice(4));
      expect(rows[0].key_hash).to.match(/^[0-9a-f]{64}$/);
    } finally {
      await client.end();
    }
  });

  it("shares one rate-limit count between replicas", async function () {
    const bucket = `key:${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => (index % 2 ? first : second).hitRateLimit(bucket, 5, 3_600_000)),
    );
    expect(results.filter((result) => result.allowed)).to.have.length(5);
    expect((await first.hitRateLimit(bucket, 5, 3_600_000)).allowed).to.equal(false);
  });

  it("shares idempotency claims between replicas", async function () {
    const key = randomUUID();
    expect(await first.beginIdempotent("k", "POST /tokens", key, "h")).to.deep.equal({ state: "new" });
    expect(await second.beginIdempotent("k", "POST /tokens", key, "h")).to.deep.equal({ state: "in_progress", operationId: null });
    await first.completeIdempotent("k", "POST /tokens", key, 200, { ok: true });
    expect(await second.beginIdempotent("k", "POST /tokens", key, "h")).to.deep.equal({
      state: "replay",
      statusCode: 200,
      body: { ok: true },
    });
    expect(await second.beginIdempotent("k", "POST /tokens", key, "other")).to.deep.equal({ state: "conflict" });
  });

  it("never runs two critical sections for one sender at once, across replicas", async function () {
    const stats = await contend([first, second], `31337:0x${randomUUID()}`, 20, 15);
    expect(stats).to.deep.equal({ maxInside: 1, completed: 20 });
  });

  it("does not make one sender wait for another across replicas", async function () {
    let entered = 0;
    // Each stays inside until both are: with one replica's lock blocking the other, this would time out.
    await Promise.all(
      [first, second].map((store, index) =>
        store.senderLock().withLock(`31337:0x${randomUUID()}${index}`, async () => {
          entered++;
          await until(() => entered === 2, "both critical sections inside at once");
        }),
      ),
    );
    expect(entered).to.equal(2);
  });

  it("leases each due operation to one replica at a time, and hands an expired lease to the other", async function () {
    const mine = new Set<string>();
    for (let index = 0; index < 20; index++) {
      const record = operation(randomUUID(), { params: { index } });
      mine.add(record.id);
      await first.insertOperation(record);
    }
    const [a, b] = await Promise.all([
      first.leaseDueOperations("replica-a", 1_000, 1000),
      second.leaseDueOperations("replica-b", 1_000, 1000),
    ]);
    const leasedA = a.filter((record) => mine.has(record.id)).map((record) => record.id);
    const leasedB = b.filter((record) => mine.has(record.id)).map((record) => record.id);
    expect(
      leasedA.filter((id) => leasedB.includes(id)),
      "no record leased twice",
    ).to.deep.equal([]);
    expect(new Set([...leasedA, ...leasedB])).to.deep.equal(mine);

    // While leased, nobody else gets them; a change under the lease ends it; a lapsed lease goes to the next asker.
    expect((await second.leaseDueOperations("replica-c", 1_000, 1000)).filter((record) => mine.has(record.id))).to.deep.equal([]);
    const [kept, ...lapsed] = [...leasedA, ...leasedB];
    const owner = leasedA.includes(kept!) ? "replica-a" : "replica-b";
    expect(await first.changeOperation(kept!, { status: "pending", reason: "the node has it", checkInMs: null }, "someone-else")).to.equal(
      undefined,
    );
    const changed = await first.changeOperation(kept!, { status: "pending", reason: "the node has it", checkInMs: null }, owner);
    expect(changed?.transitions.map((transition) => transition.status)).to.deep.equal(["signed", "pending"]);
    // The lapsed leases go to the next asker once they run out (1 s after they were taken).
    const taken = new Set<string>();
    await until(async () => {
      for (const record of await second.leaseDueOperations("replica-c", 1_000, 1000)) if (mine.has(record.id)) taken.add(record.id);
      return taken.size >= lapsed.length;
    }, "the lapsed leases handed to the next asker");
    expect(taken).to.deep.equal(new Set(lapsed));
  });

  it("can write to the store inside many sender locks at once", async function () {
    // More senders than connections in either pool: the work inside each lock must still reach the store.
    const apiKeyId = randomUUID();
    await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        first.senderLock().withLock(`31337:0x${randomUUID()}`, async () => {
          const record = operation(apiKeyId, { params: { index } });
          await first.insertOperation(record);
          // Held across a pause, as a send holds it while the node answers: the held locks pile up past the pool sizes.
          await sleep(20);
          await first.changeOperation(record.id, { status: "pending", reason: "accepted by the node" });
        }),
      ),
    );
    expect((await first.listOperations(apiKeyId, { limit: 100 })).items).to.have.length(24);
  });

  it("holds the sender's advisory lock in PostgreSQL while the work runs, and only then", async function () {
    const key = `31337:0x${randomUUID()}`;
    const id = BigInt.asUintN(64, BigInt(advisoryLockId(`sender:${key}`)));
    // A bigint advisory lock shows in pg_locks as its high and low 32 bits.
    const lockParams = [String(id >> 32n), String(id & 0xffffffffn)];
    const heldQuery =
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 1 AND granted";
    const observer = new pg.Client({ connectionString: backend.databaseUrl });
    await observer.connect();
    try {
      const during = await first.senderLock().withLock(key, async () => (await observer.query(heldQuery, lockParams)).rows[0].n as number);
      expect(during).to.equal(1);
      expect((await observer.query(heldQuery, lockParams)).rows[0].n).to.equal(0);
    } finally {
      await observer.end();
    }
  });
});
