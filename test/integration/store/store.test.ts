import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

import { DataDirectory } from "../../../src/store/data-directory.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import { advisoryLockId } from "../../../src/store/advisory-lock.js";
import { Kysely, PostgresDialect, sql, type Migration } from "kysely";

import { migrate, migrations } from "../../../src/store/migrations.js";
import { openStore, printableDatabaseUrl } from "../../../src/store/open-store.js";
import { nodeSqliteDialect, openSqliteFile } from "../../../src/store/sqlite-dialect.js";
import type { NewOperation, Store } from "../../../src/store/types.js";
import { InProcessSenderLock } from "../../../src/chains/evm/sender-lock.js";
import { KyselyStore } from "../../../src/store/kysely-store.js";
import type { Database } from "../../../src/store/schema.js";
import { expectServiceError } from "../../helpers/errors.js";
import { modesUnder, notPrivate, underUmask } from "../../helpers/file-modes.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { until } from "../../helpers/until.js";

interface Backend {
  name: "sqlite" | "postgres";
  /** Opens a store on this backend's database; every call reaches the same data. */
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

async function sqliteBackend(_context: Mocha.Context): Promise<Backend & { dataDir: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "hts-store-"));
  return { name: "sqlite", dataDir, open: () => openStore({ dataDir }), cleanup: () => rm(dataDir, { recursive: true, force: true }) };
}

async function postgresBackend(context: Mocha.Context): Promise<Backend & { databaseUrl: string }> {
  const schema = await freshPostgresSchema(context, "hts_store");
  const dataDir = await mkdtemp(path.join(tmpdir(), "hts-store-unused-"));
  return {
    name: "postgres",
    databaseUrl: schema.url,
    open: () => openStore({ dataDir, databaseUrl: schema.url }),
    async cleanup() {
      await schema.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function operation(apiKeyId: string | null, overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId,
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: { name: "Token", symbol: "TKN", decimals: 18, initialSupply: "1000000000000000000000" },
    sender: "0x1111111111111111111111111111111111111111",
    transactionHash: null,
    contractAddress: null,
    status: "signed",
    error: null,
    ...overrides,
  };
}

/**
 * Runs `count` critical sections under one key and reports the most that ever ran at once. Each holds the lock for
 * `holdMs`, the window in which a broken lock would let another in: no condition to wait for, a correct lock shows none.
 */
async function contend(stores: Store[], key: string, count: number, holdMs: number): Promise<{ maxInside: number; completed: number }> {
  let inside = 0;
  let maxInside = 0;
  let completed = 0;
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      stores[index % stores.length]!.senderLock().withLock(key, async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        await sleep(holdMs);
        inside--;
        completed++;
      }),
    ),
  );
  return { maxInside, completed };
}

/** A second, raw Kysely on the backend's database (PostgreSQL) or on a scratch file (SQLite). */
function rawDatabase(backend: Backend & { databaseUrl?: string }, directory: string): Kysely<any> {
  if (backend.databaseUrl)
    return new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: backend.databaseUrl, max: 2 }) }) });
  return new Kysely<any>({ dialect: nodeSqliteDialect(openSqliteFile(path.join(directory, "scratch.sqlite"))) });
}

/** Now on the clock the store stamps and expires by: the database's (SQLite's is the system clock, read the same way). */
async function databaseNow(backend: { databaseUrl?: string }): Promise<number> {
  if (backend.databaseUrl === undefined) {
    const db = new DatabaseSync(":memory:");
    try {
      return Number((db.prepare("SELECT cast(unixepoch('subsec') * 1000 AS integer) AS now").get() as { now: number }).now);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: backend.databaseUrl });
  await client.connect();
  try {
    return Number((await client.query("SELECT (extract(epoch from now()) * 1000)::bigint AS now")).rows[0].now);
  } finally {
    await client.end();
  }
}

/** Waits until the database's clock is past `ms` (a lease or a retention ending then has run out). */
function untilDatabaseClockPasses(backend: { databaseUrl?: string }, ms: number, what: string): Promise<void> {
  return until(async () => (await databaseNow(backend)) > ms, `the database's clock passes ${what}`);
}

const ALL_MIGRATIONS = Object.keys(migrations("sqlite"));

const backends: Array<(context: Mocha.Context) => Promise<Backend & { dataDir?: string; databaseUrl?: string }>> = [
  sqliteBackend,
  postgresBackend,
];

for (const makeBackend of backends) {
  const name = makeBackend === sqliteBackend ? "SQLite (embedded)" : "PostgreSQL server";

  describe(`store on ${name}`, function () {
    let backend: Awaited<ReturnType<typeof makeBackend>>;
    let store: Store;

    before(async function () {
      backend = await makeBackend(this);
      store = await backend.open();
    });

    after(async function () {
      await store?.close();
      await backend?.cleanup();
    });

    describe("migrations", function () {
      it("records every migration once, and running them again changes nothing", async function () {
        await store.migrate();
        await store.migrate();
        const scratch = await mkdtemp(path.join(tmpdir(), "hts-migrate-"));
        const db = rawDatabase(backend, scratch);
        try {
          // PostgreSQL: the store already migrated this schema, nothing is pending. SQLite: a fresh file.
          expect(await migrate(db, backend.name)).to.deep.equal(backend.name === "postgres" ? [] : ALL_MIGRATIONS);
          expect(await migrate(db, backend.name)).to.deep.equal([]);
          const rows = await db.selectFrom("kysely_migration").select("name").orderBy("name").execute();
          expect(rows.map((row) => row.name)).to.deep.equal(ALL_MIGRATIONS);
        } finally {
          await db.destroy();
          await rm(scratch, { recursive: true, force: true });
        }
      });

      it("applies only the migrations that are pending, in order", async function () {
        const scratch = await mkdtemp(path.join(tmpdir(), "hts-migrate-"));
        const db = rawDatabase(backend, scratch);
        const table = `later_${randomUUID().replaceAll("-", "")}`;
        const later: Record<string, Migration> = {
          "9001_second": { up: async (k) => void (await k.schema.alterTable(table).addColumn("note", "text").execute()) },
          "9000_first": { up: async (k) => void (await k.schema.createTable(table).addColumn("id", "integer").execute()) },
        };
        try {
          await migrate(db, backend.name);
          expect(await migrate(db, backend.name, later)).to.deep.equal(["9000_first", "9001_second"]);
          expect(await migrate(db, backend.name, later)).to.deep.equal([]);
          await db.insertInto(table).values({ id: 1, note: "both applied" }).execute();
        } finally {
          await db.schema
            .dropTable(table)
            .ifExists()
            .execute()
            .catch(() => undefined);
          await db
            .deleteFrom("kysely_migration")
            .where("name", ">=", "9000")
            .execute()
            .catch(() => undefined);
          await db.destroy();
          await rm(scratch, { recursive: true, force: true });
        }
      });

      it("rolls a failing migration back entirely", async function () {
        const scratch = await mkdtemp(path.join(tmpdir(), "hts-migrate-"));
        const db = rawDatabase(backend, scratch);
        const table = `broken_${randomUUID().replaceAll("-", "")}`;
        const broken: Record<string, Migration> = {
          "9002_broken": {
            async up(k) {
              await k.schema.createTable(table).addColumn("id", "integer").execute();
              await sql`select no_such_function()`.execute(k);
            },
          },
        };
        try {
          await migrate(db, backend.name);
          let failed = false;
          await migrate(db, backend.name, broken).catch(() => (failed = true));
          expect(failed, "the broken migration must fail").to.equal(true);
          expect(await db.selectFrom("kysely_migration").select("name").where("name", "=", "9002_broken").execute()).to.have.length(0);
          const tables = (await db.introspection.getTables()).map((found) => found.name);
          expect(tables, "the table the failed migration created must be rolled back").not.to.include(table);
        } finally {
          await db.destroy();
          await rm(scratch, { recursive: true, force: true });
        }
      });
    });

    describe("API keys", function () {
      it("creates a key, shows it once, and verifies only that key", async function () {
        const { id, key } = await store.createApiKey("ci");
        expect(key).to.match(/^hts_[A-Za-z0-9_-]{43}$/);
        expect(await store.verifyApiKey(key)).to.equal(id);

        const lastChar = key.at(-1) === "A" ? "B" : "A";
        expect(await store.verifyApiKey(key.slice(0, -1) + lastChar)).to.equal(undefined);
        expect(await store.verifyApiKey("hts_wrong")).to.equal(undefined);
        expect(await store.verifyApiKey("")).to.equal(undefined);

        const other = await store.createApiKey();
        expect(other.key).not.to.equal(key);
        expect(await store.verifyApiKey(other.key)).to.equal(other.id);

        const listed = await store.listApiKeys();
        const mine = listed.find((record) => record.id === id);
        expect(mine).to.include({ id, label: "ci" });
        expect(new Date(mine!.createdAt).toISOString()).to.equal(mine!.createdAt);
        expect(listed.find((record) => record.id === other.id)).to.include({ label: null });
        expect(JSON.stringify(listed)).not.to.include(key.slice(4));
      });
    });

    describe("operations", function () {
      it("inserts, reads and changes a record, keeping every transition", async function () {
        const apiKeyId = randomUUID();
        const record = operation(apiKeyId, {
          params: { name: "Nested", list: [1, "2"], deep: { a: null } },
          transactionHash: `0x${"ab".repeat(32)}`,
        });
        await store.insertOperation(record);
        const stored = await store.getOperation(record.id);
        expect(stored).to.deep.include({ ...record });
        expect(stored!.createdAt).to.equal(stored!.updatedAt);

        await untilDatabaseClockPasses(backend, Date.parse(stored!.updatedAt), "the record's first stamp");
        await store.changeOperation(record.id, { status: "pending", reason: "accepted by the node", from: ["signed"] });
        // A change from a state the record is not in does nothing.
        expect(await store.changeOperation(record.id, { status: "mined", reason: "late", from: ["signed"] })).to.equal(undefined);
        await store.changeOperation(record.id, {
          status: "failed",
          reason: "refused",
          error: { code: "TRANSACTION_REJECTED", message: "reverted" },
        });
        const updated = await store.getOperation(record.id);
        expect(updated).to.deep.include({
          status: "failed",
          transactionHash: `0x${"ab".repeat(32)}`,
          contractAddress: null,
          error: { code: "TRANSACTION_REJECTED", message: "reverted" },
          createdAt: stored!.createdAt,
        });
        expect(Date.parse(updated!.updatedAt)).to.be.greaterThan(Date.parse(stored!.updatedAt));
        expect(updated!.transitions.map((transition) => [transition.status, transition.reason])).to.deep.equal([
          ["signed", "recorded"],
          ["pending", "accepted by the node"],
          ["failed", "refused"],
        ]);

        // A move the lifecycle table lacks (failed is final) changes nothing, whoever asks for it.
        const refused = await store.changeOperation(record.id, {
          error: null,
          status: "mined",
          reason: "included in block 1",
          blockNumber: 1,
          blockHash: `0x${"cd".repeat(32)}`,
        });
        expect(refused).to.equal(undefined);
        expect(await store.getOperation(record.id)).to.deep.include({ status: "failed", blockNumber: null });
      });

      it("keeps a Bitcoin transaction's coins and fee with it, and reads them back as written", async function () {
        const record = operation(randomUUID(), { chain: "bitcoin", network: "regtest", transactionHash: "ab".repeat(32) });
        await store.insertOperation(record);
        const bitcoin = {
          fee: "2820",
          vsize: 141,
          feeRate: 20,
          inputs: [{ txid: "cd".repeat(32), vout: 1, value: "123456789012345678" }],
          payment: { address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", value: "100000", vout: 0 },
          change: null,
        };
        const base = { rung: 1, nonce: 0, signature: null, maxFeePerGas: null, maxPriorityFeePerGas: null, gasPrice: null };
        await store.recordTransaction(record.id, {
          ...base,
          transactionHash: "ef".repeat(32),
          role: "replacement",
          rawTransaction: "00",
          bitcoin,
          broadcast: true,
        });
        const [kept] = (await store.getOperation(record.id))!.transactions;
        expect(kept).to.deep.include({ role: "replacement", bitcoin });
      });

      it("answers undefined for an unknown id, and changes nothing for one", async function () {
        expect(await store.getOperation(randomUUID())).to.equal(undefined);
        expect(await store.changeOperation(randomUUID(), { status: "mined", reason: "nothing" })).to.equal(undefined);
      });

      it("rejects a status the schema does not know", async function () {
        let failed = false;
        await store.insertOperation(operation(null, { status: "lost" as never })).catch(() => (failed = true));
        expect(failed).to.equal(true);
      });

      it("inserts records that arrive together in one group, and a bad one fails alone", async function () {
        const records = Array.from({ length: 12 }, (_, index) => operation(null, { nonce: index, params: { index } }));
        const duplicate = { ...records[4]!, params: { index: "again" } };
        const outcomes = await Promise.allSettled([...records, duplicate].map((record) => store.insertOperation(record)));
        expect(outcomes.slice(0, 12).map((outcome) => outcome.status)).to.deep.equal(Array(12).fill("fulfilled"));
        expect(outcomes[12]!.status, "the second insert of one id").to.equal("rejected");
        for (const record of records) {
          expect(await store.getOperation(record.id)).to.deep.include({ status: "signed", nonce: record.nonce, params: record.params });
        }
      });

      it("lists one key's records newest first, page by page", async function () {
        const keyA = randomUUID();
        const keyB = randomUUID();
        const inserted: string[] = [];
        for (let index = 0; index < 5; index++) {
          const record = operation(keyA, { kind: index % 2 ? "mint" : "launch", params: { index } });
          await store.insertOperation(record);
          inserted.push(record.id);
          // Distinct timestamps, so "newest first" is the reverse of insertion.
          await untilDatabaseClockPasses(backend, Date.parse((await store.getOperation(record.id))!.createdAt), "the record's stamp");
        }
        await store.insertOperation(operation(keyB));
        await store.insertOperation(operation(keyB));

        const seen: string[] = [];
        let cursor: string | undefined;
        const pageSizes: number[] = [];
        do {
          const page = await store.listOperations(keyA, { limit: 2, ...(cursor ? { cursor } : {}) });
          pageSizes.push(page.items.length);
          for (const item of page.items) expect(item.apiKeyId).to.equal(keyA);
          seen.push(...page.items.map((item) => item.id));
          cursor = page.nextCursor ?? undefined;
          if (cursor) expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
        } while (cursor);
        expect(pageSizes).to.deep.equal([2, 2, 1]);
        expect(seen).to.deep.equal([...inserted].reverse());

        const exact = await store.listOperations(keyA, { limit: 5 });
        expect(exact.items).to.have.length(5);
        expect(exact.nextCursor).to.equal(null);

        const onlyB = await store.listOperations(keyB, { limit: 10 });
        expect(onlyB.items).to.have.length(2);
        expect(onlyB.items.every((item) => item.apiKeyId === keyB)).to.equal(true);
        expect(await store.listOperations(randomUUID(), { limit: 10 })).to.deep.equal({ items: [], nextCursor: null });
      });

      it("keeps keyless records apart from every key's", async function () {
        const keyless = operation(null, { kind: "faucet", tokenType: null, sender: null });
        await store.insertOperation(keyless);
        const page = await store.listOperations(null, { limit: 100 });
        expect(page.items.map((item) => item.id)).to.include(keyless.id);
        expect(page.items.every((item) => item.apiKeyId === null)).to.equal(true);
      });

      it("pages through records created at the same instant without losing or repeating one", async function () {
        const apiKeyId = randomUUID();
        const ids = new Set<string>();
        await Promise.all(
          Array.from({ length: 17 }, async () => {
            const record = operation(apiKeyId);
            ids.add(record.id);
            await store.insertOperation(record);
          }),
        );
        const seen: string[] = [];
        let previous: { createdAt: string } | undefined;
        let cursor: string | undefined;
        do {
          const page = await store.listOperations(apiKeyId, { limit: 3, ...(cursor ? { cursor } : {}) });
          for (const item of page.items) {
            if (previous) {
              expect(item.createdAt <= previous.createdAt, "newest first").to.equal(true);
            }
            previous = item;
            seen.push(item.id);
          }
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(seen).to.have.length(17);
        expect(new Set(seen)).to.deep.equal(ids);
      });

      it("rejects a cursor it did not issue and a limit out of range, naming the field", async function () {
        await expectServiceError(store.listOperations("k", { limit: 10, cursor: "not-a-cursor" }), ErrorCode.INVALID_ARGUMENT, "cursor");
        const forged = Buffer.from(JSON.stringify(["1; DROP TABLE operations", "x"])).toString("base64url");
        await expectServiceError(store.listOperations("k", { limit: 10, cursor: forged }), ErrorCode.INVALID_ARGUMENT, "cursor");
        await expectServiceError(store.listOperations("k", { limit: 0 }), ErrorCode.INVALID_ARGUMENT, "limit");
        await expectServiceError(store.listOperations("k", { limit: 1.5 }), ErrorCode.INVALID_ARGUMENT, "limit");
      });
    });

    describe("idempotency", function () {
      it("claims a new key, reports it in progress, conflicts on another body, replays when done", async function () {
        const apiKeyId = randomUUID();
        const key = randomUUID();
        expect(await store.beginIdempotent(apiKeyId, "POST /tokens", key, "hash-1")).to.deep.equal({ state: "new" });
        expect(await store.beginIdempotent(apiKeyId, "POST /tokens", key, "hash-1")).to.deep.equal({
          state: "in_progress",
          operationId: null,
        });
        expect(await store.beginIdempotent(apiKeyId, "POST /tokens", key, "hash-2")).to.deep.equal({ state: "conflict" });

        // Keys are scoped by API key and route.
        expect(await store.beginIdempotent(randomUUID(), "POST /tokens", key, "hash-2")).to.deep.equal({ state: "new" });
        expect(await store.beginIdempotent(apiKeyId, "POST /faucet", key, "hash-2")).to.deep.equal({ state: "new" });

        const body = { transactionHash: "0xabc", contractAddress: "0xdef", status: "pending", amounts: [1, 2] };
        await store.completeIdempotent(apiKeyId, "POST /tokens", key, 200, body);
        const replay = await store.beginIdempotent(apiKeyId, "POST /tokens", key, "hash-1");
        expect(replay).to.deep.equal({ state: "replay", statusCode: 200, body });
        // The first response comes back as it was written, keys in their order.
        expect(Object.keys((replay as { body: object }).body)).to.deep.equal(Object.keys(body));
        expect(await store.beginIdempotent(apiKeyId, "POST /tokens", key, "hash-2")).to.deep.equal({ state: "conflict" });

        // Releasing a finished claim does nothing: the response stays.
        await store.releaseIdempotent(apiKeyId, "POST /tokens", key);
        expect(await store.beginIdempotent(apiKeyId, "POST /tokens", key, "hash-1")).to.include({ state: "replay" });
      });

      it("hands a claim whose lease ran out to exactly one retry, with the operation it named, once", async function () {
        const held = randomUUID();
        const long = { operationId: randomUUID(), leaseMs: 60_000, retentionMs: 60_000 };
        expect(await store.beginIdempotent(null, "POST /tokens", held, "h", long)).to.deep.equal({ state: "new" });
        expect(await store.beginIdempotent(null, "POST /tokens", held, "h", long), "within its lease").to.deep.equal({
          state: "in_progress",
          operationId: long.operationId,
        });

        const key = randomUUID();
        const operationId = randomUUID();
        const claim = { operationId, leaseMs: 50, retentionMs: 60_000 };
        expect(await store.beginIdempotent(null, "POST /tokens", key, "h", claim)).to.deep.equal({ state: "new" });
        // The claim was stamped no later than this reading; its lease ends at most 50 ms after it.
        await untilDatabaseClockPasses(backend, (await databaseNow(backend)) + claim.leaseMs, "the claim's lease");
        // The one retry that takes the claim over holds it for a minute; the others find it in progress.
        const retry = { operationId: randomUUID(), leaseMs: 60_000, retentionMs: 60_000 };
        const retries = await Promise.all(Array.from({ length: 5 }, () => store.beginIdempotent(null, "POST /tokens", key, "h", retry)));
        expect(retries.filter((outcome) => outcome.state === "abandoned")).to.deep.equal([{ state: "abandoned", operationId }]);
        expect(retries.filter((outcome) => outcome.state === "in_progress")).to.have.length(4);
      });

      it("forgets a key after its retention: the key is free for any body, and the purge removes it", async function () {
        const key = randomUUID();
        const short = { leaseMs: 60_000, retentionMs: 50 };
        expect(await store.beginIdempotent(null, "POST /tokens", key, "first", short)).to.deep.equal({ state: "new" });
        await store.completeIdempotent(null, "POST /tokens", key, 200, { ok: true });
        // Each key was stamped no later than the reading after it; it is kept at most 50 ms after that.
        await untilDatabaseClockPasses(backend, (await databaseNow(backend)) + short.retentionMs, "the key's retention");
        expect(await store.beginIdempotent(null, "POST /tokens", key, "second", short)).to.deep.equal({ state: "new" });
        await store.completeIdempotent(null, "POST /tokens", key, 200, { ok: 2 });
        await untilDatabaseClockPasses(backend, (await databaseNow(backend)) + short.retentionMs, "the key's retention");
        expect(await store.purgeExpiredIdempotency()).to.be.greaterThan(0);
        expect(await store.beginIdempotent(null, "POST /tokens", key, "third", short)).to.deep.equal({ state: "new" });
      });

      it("lets a released claim run again, with any body", async function () {
        const key = randomUUID();
        expect(await store.beginIdempotent(null, "POST /tokens/mint", key, "a")).to.deep.equal({ state: "new" });
        await store.releaseIdempotent(null, "POST /tokens/mint", key);
        expect(await store.beginIdempotent(null, "POST /tokens/mint", key, "b")).to.deep.equal({ state: "new" });
        await store.completeIdempotent(null, "POST /tokens/mint", key, 422, { error: { code: "INSUFFICIENT_FUNDS" } });
        expect(await store.beginIdempotent(null, "POST /tokens/mint", key, "b")).to.deep.equal({
          state: "replay",
          statusCode: 422,
          body: { error: { code: "INSUFFICIENT_FUNDS" } },
        });
      });

      it("grants a key to exactly one of many simultaneous requests", async function () {
        const key = randomUUID();
        const results = await Promise.all(Array.from({ length: 8 }, () => store.beginIdempotent("k", "POST /faucet", key, "same")));
        expect(results.filter((result) => result.state === "new")).to.have.length(1);
        expect(results.filter((result) => result.state === "in_progress")).to.have.length(7);
      });
    });

    describe("rate limits", function () {
      it("counts hits in a fixed window and refuses those over the limit", async function () {
        const bucket = `key:${randomUUID()}`;
        const windowMs = 3_600_000;
        const results = [];
        for (let index = 0; index < 4; index++) results.push(await store.hitRateLimit(bucket, 3, windowMs));
        expect(results.map((result) => result.allowed)).to.deep.equal([true, true, true, false]);
        expect(results.map((result) => result.remaining)).to.deep.equal([2, 1, 0, 0]);
        for (const result of results) {
          expect(result.limit).to.equal(3);
          expect(result.resetMs).to.be.greaterThan(0).and.at.most(windowMs);
        }
        expect((await store.hitRateLimit(`key:${randomUUID()}`, 3, windowMs)).remaining, "another bucket has its own count").to.equal(2);
        // A window computed from seconds may be fractional: it is rounded, not refused.
        expect((await store.hitRateLimit(`key:${randomUUID()}`, 3, 1234.5)).allowed).to.equal(true);
      });

      it("allows hits again once the window has passed", async function () {
        const bucket = `key:${randomUUID()}`;
        const windowMs = 400;
        // A probe of no hits reads the count; a count of 0 means a window has begun since the last hit.
        const nextWindow = () => until(async () => (await store.hitRateLimit(bucket, 1, windowMs, 0)).count === 0, "the next window");
        await store.hitRateLimit(bucket, 1, windowMs);
        // Start on a fresh window, so the two hits below fall into one window.
        await nextWindow();
        expect((await store.hitRateLimit(bucket, 1, windowMs)).allowed).to.equal(true);
        expect((await store.hitRateLimit(bucket, 1, windowMs)).allowed).to.equal(false);
        await nextWindow();
        expect((await store.hitRateLimit(bucket, 1, windowMs)).allowed).to.equal(true);
      });

      it("counts simultaneous hits exactly", async function () {
        const bucket = `key:${randomUUID()}`;
        const results = await Promise.all(Array.from({ length: 12 }, () => store.hitRateLimit(bucket, 5, 3_600_000)));
        expect(results.filter((result) => result.allowed)).to.have.length(5);
      });
    });

    describe("sender lock", function () {
      it("runs one critical section at a time per key", async function () {
        const stats = await contend([store], `1:0x${randomUUID()}`, 8, 10);
        expect(stats).to.deep.equal({ maxInside: 1, completed: 8 });
      });

      it("lets different keys run at the same time", async function () {
        let entered = 0;
        // Each stays inside until all three are: with one key's lock blocking another, this would time out.
        await Promise.all(
          ["a", "b", "c"].map((suffix) =>
            store.senderLock().withLock(`1:0x${randomUUID()}${suffix}`, async () => {
              entered++;
              await until(() => entered === 3, "all three critical sections inside at once");
            }),
          ),
        );
        expect(entered).to.equal(3);
      });

      it("passes the work's result and error through and frees the key after an error", async function () {
        const key = `1:0x${randomUUID()}`;
        let failure: unknown;
        await store
          .senderLock()
          .withLock(key, async () => {
            throw new Error("send failed");
          })
          .catch((error: unknown) => (failure = error));
        expect((failure as Error).message).to.equal("send failed");
        expect(await store.senderLock().withLock(key, async () => 42)).to.equal(42);
      });
    });

    describe("restarts", function () {
      it("keeps keys, operations and idempotency records across close and reopen", async function () {
        const { id, key } = await store.createApiKey("survivor");
        const record = operation(id);
        await store.insertOperation(record);
        const idempotencyKey = randomUUID();
        await store.beginIdempotent(id, "POST /tokens", idempotencyKey, "h");
        await store.completeIdempotent(id, "POST /tokens", idempotencyKey, 200, { transactionHash: "0x1" });
        const pendingKey = randomUUID();
        await store.beginIdempotent(id, "POST /tokens", pendingKey, "h");

        await store.close();
        await store.close(); // closing twice is harmless
        store = await backend.open();

        expect(await store.verifyApiKey(key)).to.equal(id);
        expect(await store.getOperation(record.id)).to.deep.include({ id: record.id, status: "signed" });
        expect(await store.beginIdempotent(id, "POST /tokens", idempotencyKey, "h")).to.deep.equal({
          state: "replay",
          statusCode: 200,
          body: { transactionHash: "0x1" },
        });
        expect(await store.beginIdempotent(id, "POST /tokens", pendingKey, "h")).to.deep.include({ state: "in_progress" });
        await store.ping();
      });
    });
  });
}

describe("store on SQLite: the data directory", function () {
  let dataDir: string;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-store-dir-"));
  });

  afterEach(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("leases without waiting for an fsync, and every other write of the connection is synced again afterwards", async function () {
    const file = path.join(dataDir, "leases.sqlite");
    const raw = openSqliteFile(file);
    const store = new KyselyStore(new Kysely<Database>({ dialect: nodeSqliteDialect(raw) }), {
      kind: "sqlite",
      location: file,
      senderLock: new InProcessSenderLock(),
    });
    try {
      await store.migrate();
      const synchronous = () => (raw.prepare("pragma synchronous").get() as { synchronous: number }).synchronous;
      const FULL = 2;
      expect(synchronous()).to.equal(FULL);
      const record = operation(null);
      await store.insertOperation(record);
      const leased = await store.leaseDueOperations("tracker-a", 30_000, 10);
      expect(leased.map((due) => due.id)).to.deep.equal([record.id]);
      expect(await store.leaseDueOperations("tracker-b", 30_000, 10), "the lease holds").to.deep.equal([]);
      expect(synchronous(), "synced again after the lease").to.equal(FULL);
    } finally {
      await store.close();
    }
  });

  it("lives in <dataDir>/store.sqlite, private to its owner, describes itself, and never writes a key in the clear", async function () {
    const store = await openStore({ dataDir });
    let key: string;
    try {
      expect(store.kind).to.equal("sqlite");
      expect(store.location).to.equal(path.join(dataDir, "store.sqlite"));
      ({ key } = await store.createApiKey("disk"));
      await store.ping();
    } finally {
      await store.close();
    }
    expect((await stat(path.join(dataDir, "store.sqlite"))).mode & 0o777).to.equal(0o600);
    const secret = Buffer.from(key.slice(4));
    const files = await readdir(dataDir, { withFileTypes: true });
    let scanned = 0;
    for (const file of files) {
      if (!file.isFile()) continue;
      const content = await readFile(path.join(dataDir, file.name));
      expect(content.includes(secret), `${file.name} holds the API key`).to.equal(false);
      scanned++;
    }
    expect(scanned).to.be.greaterThan(0);
  });

  it("creates a fresh data directory 0700 and its files (database, -wal, -shm, lock, holder) 0600 under a 022 umask, which it leaves as it was", async function () {
    const fresh = path.join(dataDir, "fresh", "data");
    const owner = new DataDirectory(fresh, "hardhat serve");
    const { result: whileOpen, umaskAfter } = await underUmask(0o022, async () => {
      const store = await openStore({ dataDir: fresh, dataDirectory: owner });
      try {
        await store.createApiKey("modes");
        // Written while open: the write-ahead log and its index exist until the store closes.
        return await modesUnder(fresh);
      } finally {
        await store.close();
        owner.release();
      }
    });
    expect(umaskAfter, "the process umask").to.equal(0o022);
    expect(whileOpen).to.include.members([
      "store.sqlite 600",
      "store.sqlite-wal 600",
      "store.sqlite-shm 600",
      "owner.lock 600",
      "owner.json 600",
    ]);
    expect(whileOpen.filter((line) => !line.endsWith(" 700/") && !line.endsWith(" 600"))).to.deep.equal([]);
    expect(await notPrivate(path.join(dataDir, "fresh"))).to.deep.equal([]);
  });

  it("refuses a second service on the directory, and lets a store opened beside it (apikey:create) write what the service reads", async function () {
    const owner = new DataDirectory(dataDir, "hardhat serve");
    const service = await openStore({ dataDir, dataDirectory: owner });
    try {
      let refusal: unknown;
      await openStore({ dataDir, dataDirectory: new DataDirectory(dataDir, "hardhat serve") }).catch((error: unknown) => (refusal = error));
      expect((refusal as Error)?.message).to.match(/already open in this process/);
      const beside = await openStore({ dataDir });
      const { id, key } = await beside.createApiKey("beside");
      await beside.close();
      expect(await service.verifyApiKey(key)).to.equal(id);
    } finally {
      await service.close();
      owner.release();
    }
  });
});

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
