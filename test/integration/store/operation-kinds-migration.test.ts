import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { Kysely, Migrator, PostgresDialect, sql } from "kysely";

import { InProcessSenderLock } from "../../../src/chains/evm/sender-lock.js";
import { KyselyStore } from "../../../src/store/kysely-store.js";
import { migrate, migrations } from "../../../src/store/migrations.js";
import type { Database } from "../../../src/store/schema.js";
import { nodeSqliteDialect, openSqliteFile } from "../../../src/store/sqlite-dialect.js";
import type { NewOperation } from "../../../src/store/types.js";
import { insertLegacyOperation } from "../../helpers/legacy-operations.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

// 0004 widens the check on operations.kind for transfers and approvals. A store made before it (0001–0003, holding
// records) must keep every record, index and constraint but that one, and take the new kinds after it.

const BEFORE = "0003_nonce_reservations";

function operation(kind: NewOperation["kind"], overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId: "key-1",
    kind,
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: { to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "5" },
    sender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    transactionHash: `0x${"ab".repeat(32)}`,
    contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    nonce: 3,
    rawTransaction: "0x02f8",
    status: "pending",
    error: null,
    reason: "accepted",
    ...overrides,
  };
}

const variants = [
  {
    name: "SQLite (embedded)",
    dialect: "sqlite" as const,
    async open(context: Mocha.Context) {
      void context;
      const directory = await mkdtemp(path.join(tmpdir(), "hts-kinds-"));
      const db = new Kysely<Database>({ dialect: nodeSqliteDialect(openSqliteFile(path.join(directory, "store.sqlite"))) });
      return { db, cleanup: () => rm(directory, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL server",
    dialect: "postgres" as const,
    async open(context: Mocha.Context) {
      const schema = await freshPostgresSchema(context, "hts_kinds");
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
      return { db, cleanup: () => schema.drop() };
    },
  },
];

for (const variant of variants) {
  describe(`migration 0004: transfer and approve operation kinds — ${variant.name}`, function () {
    let db: Kysely<Database>;
    let cleanup: () => Promise<unknown>;
    let store: KyselyStore;

    before(async function () {
      ({ db, cleanup } = await variant.open(this));
      store = new KyselyStore(db, { kind: variant.dialect, location: "test", senderLock: new InProcessSenderLock() });
    });

    after(async function () {
      await db?.destroy();
      await cleanup?.();
    });

    it("keeps the records a store made before it, and takes transfers and approvals only after it", async function () {
      const migrator = new Migrator({
        db: db as unknown as Kysely<unknown>,
        provider: { getMigrations: async () => migrations(variant.dialect) },
      });
      const { error } = await migrator.migrateTo(BEFORE);
      if (error) throw error;

      const launch = operation("launch", { tokenType: "ERC20", params: { name: "Gold", symbol: "GLD" } });
      const mined = operation("mint", { status: "mined", transactionHash: `0x${"cd".repeat(32)}`, nonce: 4, reason: "granted" });
      await insertLegacyOperation(db, launch);
      await insertLegacyOperation(db, mined);
      // The old check refuses the new kinds: the migration is what admits them.
      let refused = false;
      await insertLegacyOperation(db, operation("transfer")).catch(() => (refused = true));
      expect(refused, "a transfer before 0004").to.equal(true);

      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.include("0004_operation_kinds_transfer_approve");

      const kept = await Promise.all([store.getOperation(launch.id), store.getOperation(mined.id)]);
      expect(kept.map((record) => [record?.kind, record?.status, record?.transactionHash, record?.nonce])).to.deep.equal([
        ["launch", "pending", launch.transactionHash, 3],
        ["mint", "mined", mined.transactionHash, 4],
      ]);
      const transfer = operation("transfer", {
        tokenType: "NATIVE",
        contractAddress: null,
        transactionHash: `0x${"ef".repeat(32)}`,
        nonce: 5,
      });
      const approve = operation("approve", { params: { spender: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "7" }, nonce: 6 });
      await store.insertOperation(transfer);
      await store.insertOperation(approve);
      expect((await store.getOperation(transfer.id))?.kind).to.equal("transfer");
      expect((await store.getOperation(approve.id))?.kind).to.equal("approve");
      // The records are still found by what the indexes serve: a transaction hash, a sender's held nonces, a page.
      expect((await store.findByTransactionHash("ethereum", "sepolia", mined.transactionHash!))?.id).to.equal(mined.id);
      expect(await store.heldNonces("ethereum", "sepolia", launch.sender!)).to.deep.equal([3, 5, 6]);
      expect((await store.listOperations("key-1", { limit: 10 })).items.map((item) => item.id)).to.have.members([
        launch.id,
        mined.id,
        transfer.id,
        approve.id,
      ]);

      // Every other constraint is as it was: an unknown kind and an unknown status are still refused.
      for (const bad of [
        operation("launch", { kind: "burn" as NewOperation["kind"] }),
        operation("launch", { status: "lost" as "signed" }),
      ]) {
        let failed = false;
        await store.insertOperation(bad).catch(() => (failed = true));
        expect(failed, `${bad.kind}/${bad.status}`).to.equal(true);
      }
      const indexes =
        variant.dialect === "sqlite"
          ? (
              await sql<{
                name: string;
              }>`select name from sqlite_master where type = 'index' and tbl_name = 'operations' and sql is not null`.execute(db)
            ).rows
          : (
              await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where tablename = 'operations' and schemaname = current_schema() and indexname <> 'operations_pkey'`.execute(
                db,
              )
            ).rows;
      expect(indexes.map((index) => index.name)).to.have.members([
        "operations_by_key_newest_first",
        "operations_due",
        "operations_by_transaction_hash",
        "operations_unfinished_by_sender",
      ]);
      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.deep.equal([]);
    });
  });
}
