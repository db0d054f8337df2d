import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Migrator } from "kysely";

import { OPERATION_KINDS } from "../../../src/domain/lifecycle.js";
import type { KyselyStore } from "../../../src/store/kysely-store.js";
import { migrate } from "../../../src/store/migrations.js";
import type { Database } from "../../../src/store/schema.js";
import type { NewOperation } from "../../../src/store/types.js";
import { insertLegacyOperation } from "../../helpers/legacy-operations.js";
import { migrationDatabases } from "../../helpers/migration-databases.js";

// 0014 drops the check on operations.kind (docs/decisions/0063): the kinds are the code's list, checked where a record is
// written. A store made before it, holding a record of every kind the check admitted in every state, keeps each record,
// index and other constraint; after it, a kind of domain/kinds/ is written with no migration of its own, and a kind no
// module describes is still refused, by the store.

const MIGRATION = "0014_operation_kinds_checked_in_code";
const BEFORE = "0013_verifications";
type Kind = NewOperation["kind"];
/** The kinds the database's check admitted (migration 0005's list): every other kind is new since 0014. */
const CHECKED_KINDS: Kind[] = [
  "launch",
  "mint",
  "faucet",
  "transfer",
  "approve",
  "burn",
  "pause",
  "grantRole",
  "revokeRole",
  "transferOwnership",
];
const NEW_KINDS = OPERATION_KINDS.filter((kind) => !CHECKED_KINDS.includes(kind));
const STATUSES = ["signed", "pending", "mined", "failed", "dropped", "cancelled"] as const;

let nonce = 0;
function operation(kind: Kind, overrides: Partial<NewOperation> = {}): NewOperation {
  nonce += 1;
  return {
    id: randomUUID(),
    apiKeyId: "key-1",
    kind,
    chain: "ethereum",
    network: "sepolia",
    tokenType: kind === "faucet" ? null : "ERC20",
    params: { contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3", amount: "5" },
    sender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    transactionHash: `0x${nonce.toString(16).padStart(64, "0")}`,
    contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    nonce,
    rawTransaction: "0x02f8",
    status: "pending",
    error: null,
    reason: "accepted",
    ...overrides,
  };
}

async function refused(write: Promise<unknown>): Promise<boolean> {
  return write.then(
    () => false,
    () => true,
  );
}

for (const variant of migrationDatabases("kinds_in_code")) {
  describe(`migration ${MIGRATION} — ${variant.name}`, function () {
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

    it("keeps a record of every kind in every state, then takes a kind made since in code and still refuses others", async function () {
      expect(NEW_KINDS, "the kinds made since").to.include("delegate");
      expect(
        CHECKED_KINDS.every((kind) => OPERATION_KINDS.includes(kind)),
        "every earlier kind is still one",
      ).to.equal(true);
      const { error } = await migrator.migrateTo(BEFORE);
      if (error) throw error;

      const earlier = CHECKED_KINDS.flatMap((kind) => STATUSES.map((status) => operation(kind, { status })));
      for (const record of earlier) await insertLegacyOperation(db, record);
      const columns = async () =>
        (
          await sql<
            Record<string, unknown>
          >`select id, api_key_id, kind, chain, network, token_type, params, sender, transaction_hash, contract_address, nonce, status, transitions, created_at, next_check_at, mined_at from operations order by id`.execute(
            db,
          )
        ).rows;
      const before = await columns();
      expect(before).to.have.length(CHECKED_KINDS.length * STATUSES.length);
      // The database's check refuses a kind it does not list: the migration is what lets the code decide.
      for (const kind of NEW_KINDS) expect(await refused(insertLegacyOperation(db, operation(kind))), kind).to.equal(true);

      const { error: migrating, results } = await migrator.migrateTo(MIGRATION);
      if (migrating) throw migrating;
      expect(results?.map((result) => result.migrationName)).to.deep.equal([MIGRATION]);
      expect(await columns()).to.deep.equal(before);
      for (const record of earlier) expect((await store.getOperation(record.id))?.kind, record.kind).to.equal(record.kind);

      // A kind of domain/kinds/ is written by the store and read back; one no module describes is refused by the store.
      const added = NEW_KINDS.map((kind) =>
        operation(kind, { tokenType: null, params: { delegatee: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" } }),
      );
      for (const record of added) await store.insertOperation(record);
      for (const record of added) expect((await store.getOperation(record.id))?.kind).to.equal(record.kind);
      expect(await refused(store.insertOperation(operation("melt" as Kind))), "an unknown kind").to.equal(true);
      // The database's other checks stay: an unknown status is refused by the database itself.
      expect(await refused(insertLegacyOperation(db, operation("mint", { status: "lost" as "signed" }))), "an unknown status").to.equal(
        true,
      );

      const pending = earlier.find((record) => record.status === "pending" && record.kind === "transfer")!;
      expect((await store.findByTransactionHash("ethereum", "sepolia", pending.transactionHash!))?.id).to.equal(pending.id);
      expect(
        (await store.listOperations("key-1", { limit: 100, filter: { kinds: [...NEW_KINDS, "pause"] } })).items.map((item) => item.kind),
      ).to.have.members([...added.map((record) => record.kind), ...STATUSES.map(() => "pause")]);
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
        "operations_by_contract",
      ]);
      // A store up to date applies none.
      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.deep.equal([]);
    });
  });
}
