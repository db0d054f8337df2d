import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Migrator } from "kysely";

import type { KyselyStore } from "../../../src/store/kysely-store.js";
import { migrate } from "../../../src/store/migrations.js";
import type { Database } from "../../../src/store/schema.js";
import type { NewOperation } from "../../../src/store/types.js";
import { insertLegacyOperation } from "../../helpers/legacy-operations.js";
import { migrationDatabases } from "../../helpers/migration-databases.js";

// 0007 keeps a fee ladder's steps signed ahead as signatures (raw_transaction may be null, a signature column) and the
// first transaction's raw form only on its record. The rows a store wrote before it (every step whole) are kept and read.

const BEFORE = "0006_operation_transactions_cancelled";
const MIGRATION = "0007_operation_transactions_signatures";
const hash = (byte: string) => `0x${byte.repeat(32)}`;

function operation(overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId: "key-1",
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: {},
    sender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    transactionHash: hash("a0"),
    contractAddress: null,
    nonce: 3,
    rawTransaction: "0x02f8a0",
    status: "pending",
    error: null,
    reason: "accepted",
    ...overrides,
  };
}

const variants = migrationDatabases("0007");

for (const variant of variants) {
  describe(`migration 0007: a fee ladder's steps kept as signatures — ${variant.name}`, function () {
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

    it("keeps the steps a store wrote whole before it, and takes steps kept as signatures after it, never a row it cannot send", async function () {
      const { error } = await migrator.migrateTo(BEFORE);
      if (error) throw error;
      const before = operation();
      await insertLegacyOperation(db, before);
      // As 0006's store wrote a ladder: every row whole, the first one's too; one step already sent.
      for (const [byte, role, rung, sent] of [
        ["a0", "original", 0, true],
        ["a1", "replacement", 1, true],
        ["a2", "replacement", 2, false],
        ["ac", "cancel", 3, false],
      ] as const) {
        await sql`insert into operation_transactions (operation_id, transaction_hash, role, rung, nonce, raw_transaction,
            max_fee_per_gas, max_priority_fee_per_gas, gas_price, created_at, broadcast_at)
          values (${before.id}, ${hash(byte)}, ${role}, ${rung}, 3, ${`0x02f8${byte}`}, ${String(rung + 1)}, '1', null, ${Date.now()},
            ${sent ? Date.now() : null})`.execute(db);
      }

      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.include(MIGRATION);

      expect(await store.storedTransaction(before.id, hash("a2"))).to.deep.equal({ rawTransaction: "0x02f8a2", signature: null });
      expect(await store.storedTransaction(before.id, hash("a0"))).to.deep.equal({ rawTransaction: "0x02f8a0", signature: null });
      expect(
        (await store.getOperation(before.id))?.transactions.map(({ rung, broadcastAt }) => [rung, broadcastAt !== null]),
      ).to.deep.equal([
        [0, true],
        [1, true],
        [2, false],
        [3, false],
      ]);
      expect((await store.findByTransactionHash("ethereum", "sepolia", hash("a1")))?.id, "a sent step's hash").to.equal(before.id);
      expect(await store.signedCancelAt("ethereum", "sepolia", before.sender!, 3)).to.deep.equal({
        operationId: before.id,
        rawTransaction: "0x02f8ac",
      });

      const after = operation({ transactionHash: hash("b0"), nonce: 4, rawTransaction: "0x02f8b0" });
      const signature = `0x${"5a".repeat(65)}`;
      const common = { nonce: 4, maxPriorityFeePerGas: "1", gasPrice: null };
      await store.insertOperation({
        ...after,
        transactions: [
          {
            ...common,
            transactionHash: hash("b0"),
            role: "original",
            rung: 0,
            rawTransaction: null,
            signature: null,
            maxFeePerGas: "1",
            broadcast: true,
          },
          {
            ...common,
            transactionHash: hash("b1"),
            role: "replacement",
            rung: 1,
            rawTransaction: null,
            signature,
            maxFeePerGas: "2",
            broadcast: false,
          },
        ],
      });
      expect(await store.storedTransaction(after.id, hash("b1"))).to.deep.equal({ rawTransaction: null, signature });
      // The first raw form is kept once, on its transaction's row, not on the record SQLite writes again at each update.
      expect(await store.storedTransaction(after.id, hash("b0"))).to.deep.equal({ rawTransaction: "0x02f8b0", signature: null });
      expect((await store.getOperation(after.id))?.rawTransaction).to.equal("0x02f8b0");
      const { rows } = await sql<{ raw: string | null }>`select raw_transaction as raw from operations where id = ${after.id}`.execute(db);
      expect(rows).to.deep.equal([{ raw: null }]);
      expect((await store.unfinishedOfSender("ethereum", "sepolia", after.sender!, 4, 1))[0]?.rawTransaction).to.equal("0x02f8b0");
      expect((await store.unfinishedOfSender("ethereum", "sepolia", before.sender!, 3, 1))[0]?.rawTransaction, "made before").to.equal(
        "0x02f8a0",
      );

      // A step with neither its raw form nor a signature could never be sent: refused. So is a second row of one hash.
      let refused = false;
      await sql`insert into operation_transactions (operation_id, transaction_hash, role, rung, nonce, created_at)
        values (${after.id}, ${hash("b2")}, 'replacement', 2, 4, 0)`
        .execute(db)
        .catch(() => (refused = true));
      expect(refused, "a replacement kept as nothing").to.equal(true);
      refused = false;
      await sql`insert into operation_transactions (operation_id, transaction_hash, role, rung, nonce, signature, created_at)
        values (${after.id}, ${hash("b1")}, 'replacement', 1, 4, ${signature}, 0)`
        .execute(db)
        .catch(() => (refused = true));
      expect(refused, "the same hash twice").to.equal(true);
      refused = false;
      await sql`insert into operation_transactions (operation_id, transaction_hash, role, rung, nonce, raw_transaction, created_at)
        values (${after.id}, ${hash("b3")}, 'speedup', 3, 4, '0x', 0)`
        .execute(db)
        .catch(() => (refused = true));
      expect(refused, "an unknown role").to.equal(true);
      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.deep.equal([]);
    });
  });
}
