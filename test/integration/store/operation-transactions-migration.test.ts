import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Migrator } from "kysely";

import type { KyselyStore } from "../../../src/store/kysely-store.js";
import { migrate } from "../../../src/store/migrations.js";
import type { Database } from "../../../src/store/schema.js";
import type { NewOperation } from "../../../src/store/types.js";
import { insertLegacyOperation } from "../../helpers/legacy-operations.js";
import { migrationDatabases } from "../../helpers/migration-databases.js";

// 0006 keeps every transaction an operation is sent as (operation_transactions), adds its stuck notice and the head
// its transaction was sent at, and widens the status check with `cancelled`. A store made before it keeps its records.

const BEFORE = "0004_operation_kinds_transfer_approve";
const MIGRATION = "0006_operation_transactions_cancelled";

function operation(overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId: "key-1",
    kind: "transfer",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "NATIVE",
    params: { to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "5" },
    sender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    transactionHash: `0x${"ab".repeat(32)}`,
    contractAddress: null,
    nonce: 3,
    rawTransaction: "0x02f8",
    status: "pending",
    error: null,
    reason: "accepted",
    ...overrides,
  };
}

const variants = migrationDatabases("0006");

for (const variant of variants) {
  describe(`migration 0006: operation transactions and the cancelled state — ${variant.name}`, function () {
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

    it("keeps the records a store made before it (read with no transactions and no notice), and takes cancelled after it", async function () {
      const { error } = await migrator.migrateTo(BEFORE);
      if (error) throw error;
      const pending = operation();
      const mined = operation({ status: "mined", transactionHash: `0x${"cd".repeat(32)}`, nonce: 2, blockNumber: 7, blockHash: "0xb7" });
      await insertLegacyOperation(db, pending);
      await insertLegacyOperation(db, mined);
      let refused = false;
      await insertLegacyOperation(db, operation({ status: "cancelled" })).catch(() => (refused = true));
      expect(refused, "cancelled before 0006").to.equal(true);

      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.include(MIGRATION);

      const kept = await store.getOperation(pending.id);
      expect(kept).to.deep.include({
        status: "pending",
        transactionHash: pending.transactionHash,
        nonce: 3,
        stuck: null,
        transactions: [],
      });
      expect((await store.getOperation(mined.id))?.blockNumber).to.equal(7);
      expect(await store.heldNonces("ethereum", "sepolia", pending.sender!)).to.deep.equal([3]);
      const leased = (await store.leaseDueOperations("after-0006", 60_000, 10)).find(({ id }) => id === pending.id);
      expect(leased?.broadcastBlock).to.equal(null);

      // After it: the first transaction written as the core writes it before a record's first replacement, then the
      // cancel, followed, taking the nonce.
      const first = {
        rung: 0,
        nonce: 3,
        rawTransaction: null,
        signature: null,
        maxFeePerGas: "3",
        maxPriorityFeePerGas: "1",
        gasPrice: null,
      };
      await store.recordTransaction(pending.id, { ...first, transactionHash: pending.transactionHash!, role: "original", broadcast: true });
      await store.recordTransaction(pending.id, {
        transactionHash: `0x${"ee".repeat(32)}`,
        role: "cancel",
        rung: 1,
        nonce: 3,
        rawTransaction: "0x02ee",
        signature: null,
        maxFeePerGas: "9",
        maxPriorityFeePerGas: "2",
        gasPrice: null,
        broadcast: true,
      });
      const cancelled = await store.changeOperation(pending.id, {
        status: "cancelled",
        reason: "cancelled",
        transactionHash: `0x${"ee".repeat(32)}`,
        blockNumber: 8,
        blockHash: "0xb8",
        checkInMs: null,
      });
      expect(cancelled).to.deep.include({ status: "cancelled", transactionHash: `0x${"ee".repeat(32)}` });
      expect(
        (await store.findByTransactionHash("ethereum", "sepolia", pending.transactionHash!))?.id,
        "the hash it was first sent as",
      ).to.equal(pending.id);

      // Every other constraint is as it was: an unknown status and an unknown role are refused.
      let failed = false;
      await store.insertOperation(operation({ status: "lost" as "signed" })).catch(() => (failed = true));
      expect(failed, "unknown status").to.equal(true);
      failed = false;
      await sql`insert into operation_transactions (operation_id, transaction_hash, role, rung, nonce, raw_transaction, created_at)
        values (${pending.id}, '0x01', 'speedup', 2, 3, '0x', 0)`
        .execute(db)
        .catch(() => (failed = true));
      expect(failed, "unknown role").to.equal(true);
      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect)).to.deep.equal([]);
    });
  });
}
