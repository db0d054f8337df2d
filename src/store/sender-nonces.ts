import { sql, type Kysely } from "kysely";

import type { PreparedTransaction } from "../chains/evm/write/signed-transaction.js";
import type { NewNonceReservation, NonceReservation, OperationStatus, UnfinishedTransaction } from "../core/operations/types.js";
import type { DialectSql } from "./dialect.js";
import { iso, json } from "./operation-rows.js";
import type { Database } from "./schema.js";

// What holds a sender's nonces on a pair: its unfinished records (the node may not have them yet) and the reservations
// of transactions prepared for a caller to sign (until they expire).

/** How long an expired reservation is kept, so that a late submit is told it expired rather than that it was never prepared. */
const RESERVATION_MEMORY_MS = 24 * 3_600_000;

export async function heldNonces(db: Kysely<Database>, d: DialectSql, chain: string, network: string, sender: string): Promise<number[]> {
  const rows = await db
    .selectFrom("operations")
    .select("nonce")
    .where("chain", "=", chain)
    .where("network", "=", network)
    .where("sender", "=", sender)
    // Spelled as the partial index's condition, literally: a bound list would keep the planner off the index.
    .where(sql<boolean>`status in ('signed', 'pending')`)
    .where("nonce", "is not", null)
    .union((eb) =>
      eb
        .selectFrom("nonce_reservations")
        .select("nonce")
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("sender", "=", sender)
        .where("expires_at", ">", d.nowMs),
    )
    .execute();
  return rows.map((row) => Number(row.nonce)).sort((a, b) => a - b);
}

export async function unfinishedOfSender(
  db: Kysely<Database>,
  chain: string,
  network: string,
  sender: string,
  fromNonce: number,
  limit: number,
): Promise<UnfinishedTransaction[]> {
  const rows = await db
    .selectFrom("operations")
    // The raw form of the transaction the record follows: a replacement's is with its stored transactions.
    .leftJoin("operation_transactions as followed", (join) =>
      join.onRef("followed.operation_id", "=", "operations.id").onRef("followed.transaction_hash", "=", "operations.transaction_hash"),
    )
    // Its first transaction's raw form, on the record (made before 0007) or on the first transaction's row.
    .leftJoin("operation_transactions as first", (join) =>
      join.onRef("first.operation_id", "=", "operations.id").on("first.role", "=", "original"),
    )
    .select((eb) => [
      "operations.id",
      "operations.nonce",
      "operations.status",
      "operations.transaction_hash",
      eb.fn.coalesce("operations.raw_transaction", "first.raw_transaction").as("raw_transaction"),
      "followed.role as followed_role",
      "followed.raw_transaction as followed_raw_transaction",
      "followed.signature as followed_signature",
      "followed.max_fee_per_gas as followed_max_fee_per_gas",
      "followed.max_priority_fee_per_gas as followed_max_priority_fee_per_gas",
      "followed.gas_price as followed_gas_price",
    ])
    .where("operations.chain", "=", chain)
    .where("operations.network", "=", network)
    .where("operations.sender", "=", sender)
    // As in heldNonces: the partial index's condition, literally.
    .where(sql<boolean>`operations.status in ('signed', 'pending')`)
    .where("operations.nonce", ">=", fromNonce)
    .orderBy("operations.nonce")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    nonce: Number(row.nonce),
    status: row.status as OperationStatus,
    transactionHash: row.transaction_hash,
    rawTransaction: row.raw_transaction,
    followed:
      row.followed_role == null || row.followed_role === "original"
        ? null
        : {
            transactionHash: row.transaction_hash!,
            rawTransaction: row.followed_raw_transaction,
            signature: row.followed_signature,
            maxFeePerGas: row.followed_max_fee_per_gas,
            maxPriorityFeePerGas: row.followed_max_priority_fee_per_gas,
            gasPrice: row.followed_gas_price,
          },
  }));
}

export async function reserveNonce(db: Kysely<Database>, d: DialectSql, reservation: NewNonceReservation): Promise<string | undefined> {
  const now = d.nowMs;
  const { chain, network, sender, nonce } = reservation;
  const row = await db
    .insertInto("nonce_reservations")
    .values({
      chain,
      network,
      sender,
      nonce,
      prepared_transaction: json(reservation.transaction)!,
      created_at: now,
      expires_at: sql<number>`${now} + ${Math.round(reservation.ttlMs)}`,
    })
    .onConflict((conflict) =>
      conflict
        .columns(["chain", "network", "sender", "nonce"])
        .doUpdateSet((eb) => ({
          prepared_transaction: eb.ref("excluded.prepared_transaction"),
          created_at: eb.ref("excluded.created_at"),
          expires_at: eb.ref("excluded.expires_at"),
        }))
        // Only an expired reservation gives its nonce to another prepare.
        .where("nonce_reservations.expires_at", "<=", now),
    )
    .returning("expires_at")
    .executeTakeFirst();
  if (row === undefined) return undefined;
  // Reservations long past their expiry can no longer be submitted against (their nonces are used or reused): forgotten.
  // Housekeeping only: the reservation above is made, and a prepare is not refused (503 on a full disk) after it is.
  await db
    .deleteFrom("nonce_reservations")
    .where("chain", "=", chain)
    .where("network", "=", network)
    .where("sender", "=", sender)
    .where("expires_at", "<", sql<number>`${now} - ${RESERVATION_MEMORY_MS}`)
    .execute()
    .catch(() => undefined);
  return iso(row.expires_at)!;
}

export async function getNonceReservation(
  db: Kysely<Database>,
  d: DialectSql,
  chain: string,
  network: string,
  sender: string,
  nonce: number,
): Promise<NonceReservation | undefined> {
  const row = await db
    .selectFrom("nonce_reservations")
    .select(["prepared_transaction", "expires_at", d.nowMs.as("now_ms")])
    .where("chain", "=", chain)
    .where("network", "=", network)
    .where("sender", "=", sender)
    .where("nonce", "=", nonce)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    chain,
    network,
    sender,
    nonce,
    transaction: d.readJson<PreparedTransaction>(row.prepared_transaction)!,
    expiresAt: iso(row.expires_at)!,
    live: Number(row.expires_at) > Number(row.now_ms),
  };
}
