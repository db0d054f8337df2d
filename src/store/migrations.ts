import { Migrator, sql, type Kysely, type Migration } from "kysely";

import { dialectSql, type DialectName } from "./dialect.js";
import { dropOperationsCheck, replaceOperationsCheck } from "./operations-checks.js";

/**
 * The schema, written once with Kysely's schema builder for both databases. Append only: a released
 * migration is never edited, a change is a new name that sorts after the others.
 */
export function migrations(dialect: DialectName): Record<string, Migration> {
  const d = dialectSql(dialect);
  const now = sql`(${d.nowMs})`;
  return {
    "0001_api_keys_operations_idempotency_rate_limits": {
      async up(db: Kysely<unknown>) {
        await d
          .strict(
            db.schema
              .createTable("api_keys")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("label", "text")
              .addColumn("key_hash", "text", (c) => c.notNull().unique())
              .addColumn("created_at", d.msType, (c) => c.notNull().defaultTo(now)),
          )
          .execute();

        await d
          .strict(
            db.schema
              .createTable("operations")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("api_key_id", "text")
              .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('launch', 'mint', 'faucet')`))
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("token_type", "text")
              .addColumn("params", d.jsonType, (c) => c.notNull().defaultTo("{}"))
              .addColumn("sender", "text")
              .addColumn("transaction_hash", "text")
              .addColumn("contract_address", "text")
              .addColumn("nonce", d.msType)
              .addColumn("raw_transaction", "text")
              .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('signed', 'pending', 'mined', 'failed', 'dropped')`))
              .addColumn("error", d.jsonType)
              .addColumn("block_number", d.msType)
              .addColumn("block_hash", "text")
              .addColumn("result", d.jsonType)
              .addColumn("transitions", d.jsonType, (c) => c.notNull().defaultTo("[]"))
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addColumn("updated_at", d.msType, (c) => c.notNull())
              // The tracker: when to look next (null: final), who holds the record and until when.
              .addColumn("next_check_at", d.msType)
              .addColumn("lease_owner", "text")
              .addColumn("lease_until", d.msType)
              .addColumn("missing_since", d.msType)
              .addColumn("mined_at", d.msType),
          )
          .execute();
        await db.schema
          .createIndex("operations_by_key_newest_first")
          .on("operations")
          .columns(["api_key_id", "created_at desc", "id desc"])
          .execute();
        await db.schema
          .createIndex("operations_due")
          .on("operations")
          .column("next_check_at")
          .where(sql.ref("next_check_at"), "is not", null)
          .execute();
        await db.schema.createIndex("operations_by_transaction_hash").on("operations").column("transaction_hash").execute();
        await db.schema
          .createIndex("operations_unfinished_by_sender")
          .on("operations")
          .columns(["chain", "network", "sender", "nonce"])
          .where(sql.ref("status"), "in", sql`('signed', 'pending')`)
          .execute();

        // body keeps its keys in order (json, not jsonb): a replay returns the first response as it was.
        await d
          .strict(
            db.schema
              .createTable("idempotency")
              .addColumn("api_key_id", "text")
              .addColumn("route", "text", (c) => c.notNull())
              .addColumn("key", "text", (c) => c.notNull())
              .addColumn("request_hash", "text", (c) => c.notNull())
              .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('in_progress', 'done')`))
              .addColumn("status_code", "integer")
              .addColumn("body", d.orderedJsonType)
              .addColumn("operation_id", "text")
              .addColumn("created_at", d.msType, (c) => c.notNull().defaultTo(now))
              .addColumn("completed_at", d.msType)
              .addColumn("lease_until", d.msType, (c) => c.notNull())
              .addColumn("expires_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await db.schema
          .createIndex("idempotency_claim")
          .unique()
          .on("idempotency")
          .expression(sql`coalesce(api_key_id, ''), route, key`)
          .execute();
        await db.schema.createIndex("idempotency_expiry").on("idempotency").column("expires_at").execute();

        // window_start is milliseconds since the epoch, on the database's clock, shared by every replica.
        await db.schema
          .createTable("rate_limits")
          .addColumn("bucket", "text", (c) => c.notNull())
          .addColumn("window_start", d.msType, (c) => c.notNull())
          .addColumn("count", "integer", (c) => c.notNull())
          .addPrimaryKeyConstraint("rate_limits_pkey", ["bucket", "window_start"])
          .$call((builder) => (dialect === "sqlite" ? builder.modifyEnd(sql`strict, without rowid`) : builder))
          .execute();
      },
    },
    "0002_webhooks": {
      async up(db: Kysely<unknown>) {
        // The secret is kept as given (not hashed like an API key): every delivery is signed with it.
        await d
          .strict(
            db.schema
              .createTable("webhooks")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("api_key_id", "text")
              .addColumn("url", "text", (c) => c.notNull())
              .addColumn("events", d.jsonType, (c) => c.notNull())
              .addColumn("secret", "text", (c) => c.notNull())
              .addColumn("created_at", d.msType, (c) => c.notNull().defaultTo(now)),
          )
          .execute();
        await db.schema.createIndex("webhooks_by_key").on("webhooks").columns(["api_key_id", "created_at", "id"]).execute();

        // The outbox: written in the transaction of the operation's state change, then delivered by any replica.
        await d
          .strict(
            db.schema
              .createTable("webhook_deliveries")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("webhook_id", "text", (c) => c.notNull().references("webhooks.id").onDelete("cascade"))
              .addColumn("event_type", "text", (c) => c.notNull())
              .addColumn("operation_id", "text", (c) => c.notNull())
              .addColumn("payload", d.jsonType, (c) => c.notNull())
              .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
              .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
              .addColumn("next_attempt_at", d.msType)
              .addColumn("lease_owner", "text")
              .addColumn("lease_until", d.msType)
              .addColumn("last_error", "text")
              .addColumn("last_response_status", "integer")
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addColumn("delivered_at", d.msType),
          )
          .execute();
        await db.schema
          .createIndex("webhook_deliveries_newest_first")
          .on("webhook_deliveries")
          .columns(["webhook_id", "created_at desc", "id desc"])
          .execute();
        await db.schema
          .createIndex("webhook_deliveries_due")
          .on("webhook_deliveries")
          .column("next_attempt_at")
          .where(sql.ref("status"), "=", sql.lit("pending"))
          .execute();
      },
    },
    // Nonces prepared for a caller to sign (issue 10 §1); shared by replicas like the records they will become.
    "0003_nonce_reservations": {
      async up(db: Kysely<unknown>) {
        await d
          .strict(
            db.schema
              .createTable("nonce_reservations")
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("sender", "text", (c) => c.notNull())
              .addColumn("nonce", d.msType, (c) => c.notNull())
              .addColumn("prepared_transaction", d.jsonType, (c) => c.notNull())
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addColumn("expires_at", d.msType, (c) => c.notNull())
              .addPrimaryKeyConstraint("nonce_reservations_pkey", ["chain", "network", "sender", "nonce"]),
          )
          .execute();
        await db.schema.createIndex("nonce_reservations_expiry").on("nonce_reservations").column("expires_at").execute();
      },
    },
    // Transfers and approvals are operations too: the kind column's check admits them.
    "0004_operation_kinds_transfer_approve": {
      up: (db: Kysely<unknown>) => replaceOperationsCheck(db, dialect, "kind", ["launch", "mint", "faucet", "transfer", "approve"]),
    },
    // Burns, pauses, role grants and revokes, and ownership transfers are operations too (docs/decisions/0036).
    "0005_operation_kinds_burn_pause_roles": {
      up: (db: Kysely<unknown>) =>
        replaceOperationsCheck(db, dialect, "kind", [
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
        ]),
    },
    // Stuck transactions (issue 20 §3–5): every transaction an operation was sent as, with the fee ladder a key-in-body
    // send signs ahead; the `cancelled` state; the stuck notice; the head the followed transaction was sent at.
    "0006_operation_transactions_cancelled": {
      async up(db: Kysely<unknown>) {
        await replaceOperationsCheck(db, dialect, "status", ["signed", "pending", "mined", "failed", "dropped", "cancelled"]);
        await db.schema.alterTable("operations").addColumn("stuck", d.jsonType).execute();
        await db.schema.alterTable("operations").addColumn("broadcast_block", d.msType).execute();
        // No foreign key to operations: SQLite widens a check on operations by rebuilding the table (see below).
        await d
          .strict(
            db.schema
              .createTable("operation_transactions")
              .addColumn("operation_id", "text", (c) => c.notNull())
              .addColumn("transaction_hash", "text", (c) => c.notNull())
              .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('original', 'replacement', 'cancel')`))
              .addColumn("rung", "integer", (c) => c.notNull())
              .addColumn("nonce", d.msType, (c) => c.notNull())
              // Public once broadcast, as operations.raw_transaction; a step signed ahead is stored as it will be sent.
              .addColumn("raw_transaction", "text", (c) => c.notNull())
              .addColumn("max_fee_per_gas", "text")
              .addColumn("max_priority_fee_per_gas", "text")
              .addColumn("gas_price", "text")
              .addColumn("created_at", d.msType, (c) => c.notNull())
              // Written before the broadcast, as the signed record is: null while a step is only signed ahead.
              .addColumn("broadcast_at", d.msType)
              .addPrimaryKeyConstraint("operation_transactions_pkey", ["operation_id", "transaction_hash"]),
          )
          .execute();
        await db.schema.createIndex("operation_transactions_by_hash").on("operation_transactions").column("transaction_hash").execute();
      },
    },
    // A fee ladder's step signed ahead is kept as its signature (it is the first transaction with other fees), and the
    // first transaction's raw form once, on its row (operations.raw_transaction stays for records made before): a send
    // wrote six copies of a 5 KB deployment before.
    "0007_operation_transactions_signatures": {
      async up(db: Kysely<unknown>) {
        // Every row but the first transaction's keeps a way to rebuild what was (or will be) sent.
        const kept = sql`raw_transaction is not null or signature is not null or role = 'original'`;
        if (dialect === "postgres") {
          await sql`alter table operation_transactions alter column raw_transaction drop not null`.execute(db);
          await sql`alter table operation_transactions add column signature text`.execute(db);
          await sql`alter table operation_transactions add constraint operation_transactions_kept_check check (${kept})`.execute(db);
          return;
        }
        // SQLite cannot drop a not-null: the table is made again (SQLite's documented procedure), rows copied as they are.
        await d
          .strict(
            db.schema
              .createTable("operation_transactions_rebuilt")
              .addColumn("operation_id", "text", (c) => c.notNull())
              .addColumn("transaction_hash", "text", (c) => c.notNull())
              .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('original', 'replacement', 'cancel')`))
              .addColumn("rung", "integer", (c) => c.notNull())
              .addColumn("nonce", d.msType, (c) => c.notNull())
              .addColumn("raw_transaction", "text")
              .addColumn("signature", "text")
              .addColumn("max_fee_per_gas", "text")
              .addColumn("max_priority_fee_per_gas", "text")
              .addColumn("gas_price", "text")
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addColumn("broadcast_at", d.msType)
              .addPrimaryKeyConstraint("operation_transactions_pkey", ["operation_id", "transaction_hash"])
              .addCheckConstraint("operation_transactions_kept_check", kept),
          )
          .execute();
        const columns = sql.raw(
          "operation_id, transaction_hash, role, rung, nonce, raw_transaction, max_fee_per_gas, max_priority_fee_per_gas, gas_price, created_at, broadcast_at",
        );
        await sql`insert into operation_transactions_rebuilt (${columns}) select ${columns} from operation_transactions`.execute(db);
        await sql`drop table operation_transactions`.execute(db);
        await sql`alter table operation_transactions_rebuilt rename to operation_transactions`.execute(db);
        await db.schema.createIndex("operation_transactions_by_hash").on("operation_transactions").column("transaction_hash").execute();
      },
    },
    // A reservation keeps the zero-value transfer a key-in-body send above it signed ahead at its nonce, sent if the
    // reservation expires unused, so that the sends above it are not stranded (docs/decisions/0047-no-sender-stranded.md).
    "0008_nonce_reservation_fillers": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("nonce_reservations").addColumn("filler_transaction", "text").execute();
      },
    },
    // Held wallets (docs/custody.md): one keystore (its seed encrypted as Web3 Secret Storage v3, with the public key of
    // its EVM account so that addresses are derived without the passphrase), and the wallets it holds, by pair.
    "0009_held_wallets": {
      async up(db: Kysely<unknown>) {
        await d
          .strict(
            db.schema
              .createTable("keystore")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("seed", "text", (c) => c.notNull())
              .addColumn("evm_account_key", "text", (c) => c.notNull())
              .addColumn("next_index", d.msType, (c) => c.notNull())
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addColumn("updated_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await d
          .strict(
            db.schema
              .createTable("held_wallets")
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("address", "text", (c) => c.notNull())
              .addColumn("api_key_id", "text")
              .addColumn("source", "text", (c) => c.notNull().check(sql`source in ('derived', 'imported', 'kms')`))
              // Derived: its index under the seed's account. Imported: its key, encrypted as Web3 Secret Storage v3.
              // KMS: the id (ARN) of its key in AWS KMS, which never leaves it.
              .addColumn("derivation_index", d.msType)
              .addColumn("encrypted_key", "text")
              .addColumn("kms_key_id", "text")
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addPrimaryKeyConstraint("held_wallets_pkey", ["chain", "network", "address"]),
          )
          .execute();
        await db.schema
          .createIndex("held_wallets_by_key_newest_first")
          .on("held_wallets")
          .columns(["api_key_id", "created_at", "address"])
          .execute();
        // A held wallet's policy (by address, across its pairs), and the native value its writes sent each UTC day.
        await d
          .strict(
            db.schema
              .createTable("wallet_policies")
              .addColumn("address", "text", (c) => c.primaryKey())
              .addColumn("api_key_id", "text")
              .addColumn("policy", d.jsonType, (c) => c.notNull())
              .addColumn("updated_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await d
          .strict(
            db.schema
              .createTable("wallet_spending")
              .addColumn("operation_id", "text", (c) => c.primaryKey())
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("address", "text", (c) => c.notNull())
              .addColumn("day", "text", (c) => c.notNull())
              // uint256 in decimal: summed by the service, not the database.
              .addColumn("value", "text", (c) => c.notNull())
              .addColumn("created_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await db.schema
          .createIndex("wallet_spending_by_day")
          .on("wallet_spending")
          .columns(["chain", "network", "address", "day"])
          .execute();
      },
    },
    // A Bitcoin transaction's coins and fee, kept with it: what its speed-up or cancel (BIP 125) must spend and outbid.
    "0010_bitcoin_transaction_spends": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("operation_transactions").addColumn("bitcoin_spend", d.jsonType).execute();
      },
    },
    // Chain notifications (core/notifications/types.ts): subscriptions, each pair's scan (its cursor, its lease, the
    // hashes of its newest blocks), the events found, and the feed of deliveries and removals the pull API pages through.
    "0011_chain_notifications": {
      async up(db: Kysely<unknown>) {
        await d
          .strict(
            db.schema
              .createTable("subscriptions")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("api_key_id", "text")
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("target", d.jsonType, (c) => c.notNull())
              .addColumn("confirmations", "integer", (c) => c.notNull())
              .addColumn("from_block", d.msType)
              .addColumn("start_block", d.msType, (c) => c.notNull())
              .addColumn("backfill_next", d.msType)
              .addColumn("created_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await db.schema
          .createIndex("subscriptions_by_key_newest_first")
          .on("subscriptions")
          .columns(["api_key_id", "created_at desc", "id desc"])
          .execute();
        await db.schema.createIndex("subscriptions_by_pair").on("subscriptions").columns(["chain", "network"]).execute();

        // One row per pair: its cursor (null before the first scan), the replica scanning it, and the feed's order.
        await d
          .strict(
            db.schema
              .createTable("chain_scans")
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("next_block", d.msType)
              .addColumn("lease_owner", "text")
              .addColumn("lease_until", d.msType)
              // The last feed position given out for the pair's subscriptions: the feed is ordered as it was committed.
              .addColumn("feed_seq", d.msType, (c) => c.notNull().defaultTo(0))
              .addColumn("updated_at", d.msType, (c) => c.notNull())
              .addPrimaryKeyConstraint("chain_scans_pkey", ["chain", "network"]),
          )
          .execute();
        await d
          .strict(
            db.schema
              .createTable("scanned_blocks")
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("number", d.msType, (c) => c.notNull())
              .addColumn("hash", "text", (c) => c.notNull())
              .addPrimaryKeyConstraint("scanned_blocks_pkey", ["chain", "network", "number"]),
          )
          .execute();

        // An event found: held until due, then delivered; removed when a reorg took its block after its delivery (kept,
        // so that the same event found again in the new block is delivered again, as a new revision).
        await d
          .strict(
            db.schema
              .createTable("chain_events")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("subscription_id", "text", (c) => c.notNull().references("subscriptions.id").onDelete("cascade"))
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("block_number", d.msType, (c) => c.notNull())
              .addColumn("block_hash", "text", (c) => c.notNull())
              // Its place in the range it was found in: events of one block are delivered in block order.
              .addColumn("position", "integer", (c) => c.notNull())
              .addColumn("due_at", d.msType, (c) => c.notNull())
              .addColumn("type", "text", (c) => c.notNull().check(sql`type in ('chain.activity', 'chain.event')`))
              .addColumn("payload", d.jsonType, (c) => c.notNull())
              .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('held', 'delivered', 'removed')`))
              // Its confirmations when it was delivered; null while held.
              .addColumn("confirmations", "integer")
              // How many times it was found again after a removal.
              .addColumn("revision", "integer", (c) => c.notNull().defaultTo(0))
              .addColumn("created_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await db.schema
          .createIndex("chain_events_held_due")
          .on("chain_events")
          .columns(["chain", "network", "due_at"])
          .where(sql.ref("status"), "=", sql.lit("held"))
          .execute();
        await db.schema.createIndex("chain_events_by_block").on("chain_events").columns(["chain", "network", "block_number"]).execute();
        await db.schema.createIndex("chain_events_by_subscription").on("chain_events").column("subscription_id").execute();

        // What the pull API pages through, oldest first: one row per delivery or removal. Its id is fixed by the event,
        // its block, its revision and whether it is a removal; seq is the pair's feed position, in commit order.
        await d
          .strict(
            db.schema
              .createTable("chain_event_feed")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("subscription_id", "text", (c) => c.notNull().references("subscriptions.id").onDelete("cascade"))
              .addColumn("event_id", "text", (c) => c.notNull())
              .addColumn("type", "text", (c) =>
                c.notNull().check(sql`type in ('chain.activity', 'chain.event', 'chain.activity.removed', 'chain.event.removed')`),
              )
              .addColumn("seq", d.msType, (c) => c.notNull())
              .addColumn("payload", d.jsonType, (c) => c.notNull())
              .addColumn("created_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await db.schema
          .createIndex("chain_event_feed_in_order")
          .unique()
          .on("chain_event_feed")
          .columns(["subscription_id", "seq"])
          .execute();
      },
    },
    // A token's verification input (GET /tokens/{address}/verification) finds its launch by the contract's address.
    "0012_operations_by_contract": {
      async up(db: Kysely<unknown>) {
        await db.schema.createIndex("operations_by_contract").on("operations").columns(["chain", "network", "contract_address"]).execute();
      },
    },
    // Verifications of launched tokens on explorers (core/verifications/types.ts): the explorer's reference is written
    // before the record is asked about, so that a restart or another replica never submits it again.
    "0013_verifications": {
      async up(db: Kysely<unknown>) {
        await d
          .strict(
            db.schema
              .createTable("verifications")
              .addColumn("id", "text", (c) => c.primaryKey())
              .addColumn("api_key_id", "text")
              .addColumn("explorer", "text", (c) => c.notNull().check(sql`explorer in ('etherscan', 'blockscout', 'sourcify')`))
              .addColumn("chain", "text", (c) => c.notNull())
              .addColumn("network", "text", (c) => c.notNull())
              .addColumn("address", "text", (c) => c.notNull())
              .addColumn("operation_id", "text", (c) => c.notNull())
              .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'verified', 'failed')`))
              .addColumn("explorer_reference", "text")
              .addColumn("explorer_message", "text")
              .addColumn("url", "text")
              .addColumn("next_check_at", d.msType)
              .addColumn("lease_owner", "text")
              .addColumn("lease_until", d.msType)
              .addColumn("created_at", d.msType, (c) => c.notNull())
              .addColumn("updated_at", d.msType, (c) => c.notNull()),
          )
          .execute();
        await db.schema
          .createIndex("verifications_due")
          .on("verifications")
          .column("next_check_at")
          .where(sql.ref("status"), "=", sql.lit("pending"))
          .execute();
        await db.schema
          .createIndex("verifications_by_contract")
          .on("verifications")
          .columns(["chain", "network", "address", "explorer"])
          .execute();
      },
    },
    // The kind column's check goes (docs/decisions/0063): a write kind is one module of src/domain/kinds/ and its name
    // is checked where a record is written (store/operation-rows.ts, memory-store.ts), so that a new kind needs no
    // migration. SQLite rebuilds the table to drop a check; every record, index and other constraint is kept.
    "0014_operation_kinds_checked_in_code": {
      up: (db: Kysely<unknown>) => dropOperationsCheck(db, dialect, "kind"),
    },
  };
}

/**
 * Applies the pending migrations with Kysely's Migrator, in one transaction: replicas that start at
 * once queue on its lock and each migration runs exactly once. Returns the names it applied.
 */
export async function migrate(db: Kysely<unknown>, dialect: DialectName, extra: Record<string, Migration> = {}): Promise<string[]> {
  if (dialect === "postgres") {
    const legacy = await sql<{ found: string | null }>`select to_regclass('schema_migrations')::text as found`.execute(db);
    if (legacy.rows[0]?.found) {
      throw new Error(
        "this PostgreSQL schema holds the 0.1 store layout (schema_migrations); point DATABASE_URL at an empty database or schema (the 0.1 package was never published, its data is not carried over)",
      );
    }
  }
  // Kysely looks for its own tables in every schema it may use unless told which: another schema's migration tables
  // (another app, another replica set) would make it skip creating ours.
  const migrationTableSchema =
    dialect === "postgres" ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations(dialect), ...extra }) },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((result) => result.status === "Success").map((result) => result.migrationName);
}
