import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { ErrorCode } from "../../../src/domain/errors.js";
import { sql, type Migration } from "kysely";

import { migrate } from "../../../src/store/migrations.js";
import type { Store } from "../../../src/store/types.js";
import { expectServiceError } from "../../helpers/errors.js";
import { until } from "../../helpers/until.js";
import {
  ALL_MIGRATIONS,
  backends,
  contend,
  databaseNow,
  operation,
  rawDatabase,
  sqliteBackend,
  untilDatabaseClockPasses,
} from "../../helpers/store-backends.js";

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
