import type { Kysely } from "kysely";

import type { ReservationFiller } from "../chains/evm/write/reservation-fillers.js";
import type { ExpiredReservationFiller } from "../core/operations/types.js";
import type { DialectSql } from "./dialect.js";
import type { Database } from "./schema.js";

// The fillers kept beside nonce reservations (migration 0008): a zero-value transfer from the sender to itself at a
// reserved nonce, signed ahead by a key-in-body send that took a nonce above it. The tracker sends one only once its
// reservation expired unused, so that the sends above it are not stranded behind a nonce nobody will use.

type Pair = { chain: string; network: string; sender: string };

/** The nonces of the sender's live reservations without a filler, ascending. */
export async function unfilledReservations(db: Kysely<Database>, d: DialectSql, { chain, network, sender }: Pair): Promise<number[]> {
  const rows = await db
    .selectFrom("nonce_reservations")
    .select("nonce")
    .where("chain", "=", chain)
    .where("network", "=", network)
    .where("sender", "=", sender)
    .where("expires_at", ">", d.nowMs)
    .where("filler_transaction", "is", null)
    .orderBy("nonce")
    .execute();
  return rows.map((row) => Number(row.nonce));
}

/** Keeps each filler beside its reservation, unless that one keeps one already (the first is kept: any one fills the nonce). */
export async function keepReservationFillers(
  db: Kysely<Database>,
  { chain, network, sender }: Pair,
  fillers: readonly ReservationFiller[],
): Promise<void> {
  if (fillers.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const filler of fillers) {
      await trx
        .updateTable("nonce_reservations")
        .set({ filler_transaction: filler.rawTransaction })
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("sender", "=", sender)
        .where("nonce", "=", filler.nonce)
        .where("filler_transaction", "is", null)
        .execute();
    }
  });
}

/** The filler of the sender's reservation of `nonce`, once that reservation expired. */
export async function reservationFillerAt(
  db: Kysely<Database>,
  d: DialectSql,
  { chain, network, sender }: Pair,
  nonce: number,
): Promise<ExpiredReservationFiller | undefined> {
  const row = await db
    .selectFrom("nonce_reservations")
    .select(["filler_transaction", "expires_at"])
    .where("chain", "=", chain)
    .where("network", "=", network)
    .where("sender", "=", sender)
    .where("nonce", "=", nonce)
    .where("expires_at", "<=", d.nowMs)
    .where("filler_transaction", "is not", null)
    .executeTakeFirst();
  if (row?.filler_transaction == null) return undefined;
  return { rawTransaction: row.filler_transaction, expiresAt: new Date(Number(row.expires_at)).toISOString() };
}
