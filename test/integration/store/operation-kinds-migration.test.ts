import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Migrator } from "kysely";

import type { KyselyStore } from "../../../src/store/kysely-store.js";
import { migrate } from "../../../src/store/migrations.js";
import type { Database } from "../../../src/store/schema.js";
import type { NewOperation } from "../../../src/store/types.js";
import { insertLegacyOperation } from "../../helpers/legacy-operations.js";
import { migrationDatabases } from "../../helpers/migration-databases.js";

// 0004 and 0005 widen the check on operations.kind: transfers and approvals, then burns, pauses, role grants and revokes
// and ownership transfers. A store made before each (holding records) must keep every record, index and constraint but
// that one, and take the new kinds after it. Records are written and read column by column until the store is up to
// date (today's store writes columns later migrations add: helpers/legacy-operations.ts).

const WIDENINGS = [
  {
    migration: "0004_operation_kinds_transfer_approve",
    before: "0003_nonce_reservations",
    earlier: ["launch", "mint"],
    added: ["transfer", "approve"],
  },
  {
    migration: "0005_operation_kinds_burn_pause_roles",
    before: "0004_operation_kinds_transfer_approve",
    earlier: ["launch", "transfer", "approve"],
    added: ["burn", "pause", "grantRole", "revokeRole", "transferOwnership"],
  },
] as const satisfies ReadonlyArray<{ migration: string; before: string; earlier: readonly Kind[]; added: readonly Kind[] }>;

type Kind = NewOperation["kind"];

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

const variants = migrationDatabases("kinds");

for (const variant of variants) {
  for (const widening of WIDENINGS) {
    describe(`migration ${widening.migration}: ${widening.added.join(", ")} — ${variant.name}`, function () {
      let db: Kysely<Database>;
      let cleanup: () => Promise<unknown>;
      let store: KyselyStore;
      let migrator: Migrator;

      before(async function () {
        ({ db, cleanup, store, migrator } = await variant.open(this));
      });

      after(async function () {
        await db?.destroy();
        await cleanup?.();
      });

      it(`keeps the records a store made before it, and takes ${widening.added.join(", ")} only after it`, async function () {
        const { error } = await migrator.migrateTo(widening.before);
        if (error) throw error;

        let nonce = 0;
        const hash = () => `0x${(++nonce).toString(16).padStart(64, "0")}`;
        const earlier = widening.earlier.map((kind) => operation(kind, { transactionHash: hash(), nonce }));
        earlier.push(operation("mint", { status: "mined", transactionHash: hash(), nonce, reason: "granted" }));
        for (const record of earlier) await insertLegacyOperation(db, record);
        const columns = async () =>
          (
            await sql<
              Record<string, unknown>
            >`select id, kind, status, transaction_hash, nonce, params, transitions from operations order by id`.execute(db)
          ).rows;
        const before = await columns();
        // The old check refuses the new kinds: the migration is what admits them.
        for (const kind of widening.added) {
          let refused = false;
          await insertLegacyOperation(db, operation(kind, { transactionHash: hash() })).catch(() => (refused = true));
          expect(refused, `${kind} before ${widening.migration}`).to.equal(true);
        }

        const { error: migrating, results } = await migrator.migrateTo(widening.migration);
        if (migrating) throw migrating;
        expect(results?.map((result) => result.migrationName)).to.deep.equal([widening.migration]);

        expect(await columns()).to.deep.equal(before);
        const added = widening.added.map((kind) =>
          operation(kind, {
            tokenType: kind === "burn" ? "ERC20" : null,
            transactionHash: hash(),
            nonce,
            params: { contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
          }),
        );
        for (const record of added) await insertLegacyOperation(db, record);
        // Later migrations apply on top; the store, up to date, reads every record.
        await migrate(db as unknown as Kysely<unknown>, variant.dialect);
        for (const record of added) expect((await store.getOperation(record.id))?.kind).to.equal(record.kind);
        // The records are still found by what the indexes serve: a transaction hash, a sender's held nonces, a page.
        const mined = earlier.at(-1)!;
        expect((await store.findByTransactionHash("ethereum", "sepolia", mined.transactionHash!))?.id).to.equal(mined.id);
        expect(await store.heldNonces("ethereum", "sepolia", mined.sender!)).to.include.members(added.map((record) => record.nonce));
        expect((await store.listOperations("key-1", { limit: 50 })).items.map((item) => item.id)).to.have.members(
          [...earlier, ...added].map((record) => record.id),
        );

        // Every other constraint is as it was: an unknown kind and an unknown status are still refused.
        for (const bad of [
          operation("launch", { kind: "melt" as Kind, transactionHash: hash() }),
          operation("launch", { status: "lost" as "signed", transactionHash: hash() }),
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
          // Migration 0012: a launched token's verification finds its launch by the contract's address.
          "operations_by_contract",
        ]);
        // A store up to date applies none.
        expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.deep.equal([]);
      });
    });
  }
}
