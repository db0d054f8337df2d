import { expect } from "chai";
import { sql, type Kysely, type Migrator } from "kysely";

import type { KyselyStore } from "../../../src/store/kysely-store.js";
import { migrate } from "../../../src/store/migrations.js";
import type { Database } from "../../../src/store/schema.js";
import { migrationDatabases } from "../../helpers/migration-databases.js";

// 0008 keeps beside a nonce reservation the filler a key-in-body send above it signed ahead. A reservation a store made
// before it is kept, reads as having no filler, and takes one after it.

const BEFORE = "0007_operation_transactions_signatures";
const MIGRATION = "0008_nonce_reservation_fillers";
const PAIR = { chain: "ethereum", network: "sepolia", sender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" };

for (const variant of migrationDatabases("0008")) {
  describe(`migration 0008: a filler kept beside each nonce reservation — ${variant.name}`, function () {
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

    it("keeps the reservations a store made before it, without a filler, and gives each one the first filler it is handed", async function () {
      const { error } = await migrator.migrateTo(BEFORE);
      if (error) throw error;
      // As 0007's store reserved: one live reservation, one long expired.
      const now = Date.now();
      for (const [nonce, expiresAt] of [
        [4, now + 600_000],
        [2, now - 1_000],
      ] as const) {
        await sql`insert into nonce_reservations (chain, network, sender, nonce, prepared_transaction, created_at, expires_at)
          values (${PAIR.chain}, ${PAIR.network}, ${PAIR.sender}, ${nonce}, ${JSON.stringify({ nonce })}, ${now}, ${expiresAt})`.execute(
          db,
        );
      }

      // The later migrations apply after it.
      expect((await migrate(db as unknown as Kysely<unknown>, variant.dialect))[0]).to.equal(MIGRATION);

      expect(await store.unfilledReservations(PAIR.chain, PAIR.network, PAIR.sender), "the live one, with no filler").to.deep.equal([4]);
      expect(await store.getNonceReservation(PAIR.chain, PAIR.network, PAIR.sender, 4)).to.include({ nonce: 4 });
      await store.keepReservationFillers(PAIR.chain, PAIR.network, PAIR.sender, [{ nonce: 4, rawTransaction: "0x02f8f4" }]);
      await store.keepReservationFillers(PAIR.chain, PAIR.network, PAIR.sender, [{ nonce: 4, rawTransaction: "0x02f8ff" }]);
      expect(await store.unfilledReservations(PAIR.chain, PAIR.network, PAIR.sender)).to.deep.equal([]);
      // Not handed out while the reservation lives; the first one kept once it has expired.
      expect(await store.reservationFillerAt(PAIR.chain, PAIR.network, PAIR.sender, 4)).to.equal(undefined);
      await sql`update nonce_reservations set expires_at = ${now - 1} where nonce = 4`.execute(db);
      expect(await store.reservationFillerAt(PAIR.chain, PAIR.network, PAIR.sender, 4)).to.include({ rawTransaction: "0x02f8f4" });
      expect(await store.reservationFillerAt(PAIR.chain, PAIR.network, PAIR.sender, 2), "the old one never had a filler").to.equal(
        undefined,
      );

      expect(await migrate(db as unknown as Kysely<unknown>, variant.dialect), "applied once").to.deep.equal([]);
    });
  });
}
