import { randomUUID } from "node:crypto";

import { sql, type ExpressionBuilder, type Kysely } from "kysely";

import { invalidArgument } from "../domain/errors.js";
import type { SenderLock } from "../chains/evm/sender-lock.js";
import type { ReservationFiller } from "../chains/evm/write/reservation-fillers.js";
import type {
  ExpiredReservationFiller,
  LeaseFilter,
  LeasedOperation,
  NewNonceReservation,
  NewOperationTransaction,
  NonceReservation,
  OperationChange,
  StoredTransaction,
  UnfinishedTransaction,
} from "../core/operations/types.js";
import { GroupCommit } from "./group-commit.js";
import { generateApiKey, hashApiKey, sameHash } from "./api-key-secret.js";
import { dialectSql, type DialectSql } from "./dialect.js";
import { eventOfChange } from "../domain/lifecycle.js";
import { migrate } from "./migrations.js";
import { afterCursor, decodeOperationCursor, newestFirstPage } from "./operation-cursor.js";
import { iso, num, operationRow, toRecord, transactionRow, withTransactions } from "./operation-rows.js";
import { OperationChanges } from "./operation-changes.js";
import type { Database } from "./schema.js";
import { KyselyWebhookStore } from "./webhook-store.js";
import { KyselyCustodyStore } from "./custody-store.js";
import { KyselyNotificationStore } from "./notification-store.js";
import { KyselyVerificationStore } from "./verification-store.js";
import * as reservationFillers from "./reservation-fillers.js";
import * as senderNonces from "./sender-nonces.js";
import * as idempotencyClaims from "./idempotency-claims.js";
import * as rateLimits from "./rate-limits.js";
import type {
  ApiKeyRecord,
  IdempotencyBegin,
  IdempotencyClaim,
  NewOperation,
  OperationFilter,
  OperationPage,
  OperationRecord,
  SharedRateLimitCount,
  Store,
} from "./types.js";

export const MAX_PAGE_SIZE = 100;

export interface KyselyStoreOptions {
  kind: Store["kind"];
  location: string;
  senderLock: SenderLock;
  /** Takes a named lock for the life of this store, across every process that shares it. */
  claimExclusive?: (name: string) => Promise<boolean>;
  /** Runs after the database is closed (end a lock pool, a lock connection). */
  onClose?: () => Promise<void>;
}

/**
 * Everything the HTTP service stores, in one query layer over SQLite (embedded) and PostgreSQL (replicas). The queries of
 * each part are in its own module beside it (operation-rows.ts, operation-changes.ts, sender-nonces.ts,
 * idempotency-claims.ts, rate-limits.ts, webhook-store.ts…); this class holds the connection and answers the Store
 * interface.
 */
export class KyselyStore implements Store {
  readonly kind: Store["kind"];
  readonly location: string;
  readonly webhooks: KyselyWebhookStore;
  readonly custody: KyselyCustodyStore;
  readonly notifications: KyselyNotificationStore;
  readonly verifications: KyselyVerificationStore;
  private readonly d: DialectSql;
  private readonly changes: OperationChanges;
  private closing: Promise<void> | undefined;
  private readonly inserts = new GroupCommit<NewOperation>(
    (operation) => this.insertOperationRows([operation]),
    (operations) => this.insertOperationRows(operations),
  );

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: KyselyStoreOptions,
  ) {
    this.kind = options.kind;
    this.location = options.location;
    this.d = dialectSql(options.kind === "postgres" ? "postgres" : "sqlite");
    this.webhooks = new KyselyWebhookStore(db, this.d);
    this.custody = new KyselyCustodyStore(db, this.d);
    this.notifications = new KyselyNotificationStore(db, this.d, this.webhooks);
    this.verifications = new KyselyVerificationStore(db, this.d);
    this.changes = new OperationChanges(db, this.d, this.webhooks);
  }

  async migrate(): Promise<void> {
    await migrate(this.db as unknown as Kysely<unknown>, this.d.name);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.db.destroy();
      } finally {
        await this.options.onClose?.();
      }
    })();
    return this.closing;
  }

  async claimExclusive(name: string): Promise<boolean> {
    return this.options.claimExclusive === undefined ? true : this.options.claimExclusive(name);
  }

  senderLock(): SenderLock {
    return this.options.senderLock;
  }

  // API keys

  async createApiKey(label?: string): Promise<{ id: string; key: string }> {
    const id = randomUUID();
    const key = generateApiKey();
    await this.db
      .insertInto("api_keys")
      .values({ id, label: label ?? null, key_hash: hashApiKey(key) })
      .execute();
    return { id, key };
  }

  async verifyApiKey(key: string): Promise<string | undefined> {
    // The lookup is by the SHA-256 of the presented key, never by the key: an index search that reveals how many
    // leading digest characters match tells nothing about the secret. The final comparison is constant-time.
    const presented = hashApiKey(key);
    const row = await this.db.selectFrom("api_keys").select(["id", "key_hash"]).where("key_hash", "=", presented).executeTakeFirst();
    return row !== undefined && sameHash(row.key_hash, presented) ? row.id : undefined;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.selectFrom("api_keys").select(["id", "label", "created_at"]).orderBy("created_at").orderBy("id").execute();
    return rows.map((row) => ({ id: row.id, label: row.label, createdAt: iso(row.created_at)! }));
  }

  // Operations

  async insertOperation(operation: NewOperation): Promise<void> {
    // A `signed` record is no event (the launch path stays one write); one recorded final at once (a bitcoin grant) is.
    const event = eventOfChange(undefined, operation.status);
    if (event === undefined) return this.inserts.add(operation);
    const queued = await this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto("operations").values(operationRow(this.d, operation)).returningAll().executeTakeFirstOrThrow();
      await this.insertTransactionRows(trx, [operation]);
      const [record] = await withTransactions(trx, this.d, [toRecord(this.d, row)]);
      return this.webhooks.queue(trx, event, record!);
    });
    if (queued > 0) this.webhooks.queuedCommitted();
  }

  /** One statement for a group of records (and one for their transactions): concurrent launches and mints share one commit. */
  private async insertOperationRows(operations: NewOperation[]): Promise<void> {
    const values = operations.map((operation) => operationRow(this.d, operation));
    if (!operations.some((operation) => (operation.transactions?.length ?? 0) > 0)) {
      await this.db.insertInto("operations").values(values).execute();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto("operations").values(values).execute();
      await this.insertTransactionRows(trx, operations);
    });
  }

  private async insertTransactionRows(db: Kysely<Database>, operations: NewOperation[]): Promise<void> {
    const rows = operations.flatMap((operation) =>
      (operation.transactions ?? []).map((tx) => transactionRow(this.d, operation.id, tx, operation.rawTransaction)),
    );
    if (rows.length > 0) await db.insertInto("operation_transactions").values(rows).execute();
  }

  changeOperation(id: string, change: OperationChange, leaseOwner?: string): Promise<OperationRecord | undefined> {
    return this.changes.changeOperation(id, change, leaseOwner);
  }

  changeOperations(
    changes: ReadonlyArray<{ id: string; change: OperationChange }>,
    leaseOwner: string,
  ): Promise<Array<OperationRecord | undefined>> {
    return this.changes.changeOperations(changes, leaseOwner);
  }

  /**
   * Runs `work` without waiting for the embedded store's fsync: for writes whose loss in a power cut harms nothing, such
   * as a tracker's lease (it only keeps other trackers off for a while). The next synced commit makes them durable too:
   * the write-ahead log is synced whole. Crashes of the process lose nothing either way; PostgreSQL is left as it is.
   */
  private async unsynced<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    if (this.d.name !== "sqlite") return work(this.db);
    return this.db.connection().execute(async (connection) => {
      await sql`pragma synchronous = normal`.execute(connection);
      try {
        return await work(connection);
      } finally {
        await sql`pragma synchronous = full`.execute(connection);
      }
    });
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.db.updateTable("operations").set({ lease_owner: null, lease_until: null }).where("lease_owner", "=", owner).execute();
  }

  async getOperation(id: string): Promise<OperationRecord | undefined> {
    const row = await this.db.selectFrom("operations").selectAll().where("id", "=", id).executeTakeFirst();
    return row === undefined ? undefined : (await withTransactions(this.db, this.d, [toRecord(this.d, row)]))[0];
  }

  async recordTransaction(operationId: string, transaction: NewOperationTransaction): Promise<OperationRecord | undefined> {
    const row = transactionRow(this.d, operationId, transaction);
    await this.db
      .insertInto("operation_transactions")
      .values(row)
      .onConflict((conflict) =>
        conflict
          .columns(["operation_id", "transaction_hash"])
          // A step signed ahead is marked as sent the first time; what was written before is kept.
          .doUpdateSet((eb) => ({ broadcast_at: eb.fn.coalesce("operation_transactions.broadcast_at", eb.ref("excluded.broadcast_at")) })),
      )
      .execute();
    return this.getOperation(operationId);
  }

  async signedCancelAt(
    chain: string,
    network: string,
    sender: string,
    nonce: number,
  ): Promise<{ operationId: string; rawTransaction: string } | undefined> {
    const row = await this.db
      .selectFrom("operations")
      .innerJoin("operation_transactions as cancel", "cancel.operation_id", "operations.id")
      .select(["operations.id", "cancel.raw_transaction"])
      .where("operations.chain", "=", chain)
      .where("operations.network", "=", network)
      .where("operations.sender", "=", sender)
      .where("operations.nonce", "=", nonce)
      .where("cancel.role", "=", "cancel")
      .orderBy("operations.created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    // A cancel is always stored whole.
    return row?.raw_transaction == null ? undefined : { operationId: row.id, rawTransaction: row.raw_transaction };
  }

  async storedTransaction(operationId: string, transactionHash: string): Promise<StoredTransaction | undefined> {
    const row = await this.db
      .selectFrom("operation_transactions")
      .select(["raw_transaction", "signature"])
      .where("operation_id", "=", operationId)
      .where("transaction_hash", "=", transactionHash.toLowerCase())
      .executeTakeFirst();
    return row === undefined ? undefined : { rawTransaction: row.raw_transaction, signature: row.signature };
  }

  async recheckMined(chain: string, network: string, fromBlock?: number): Promise<number> {
    let query = this.db
      .updateTable("operations")
      .set({ next_check_at: this.d.nowMs })
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("status", "in", ["mined", "cancelled"]);
    if (fromBlock !== undefined) query = query.where("block_number", ">=", fromBlock);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async recheckWatched(): Promise<number> {
    const result = await this.db
      .updateTable("operations")
      .set({ next_check_at: this.d.nowMs })
      .where("status", "in", ["mined", "cancelled"])
      .where("next_check_at", "is not", null)
      .where("next_check_at", ">", this.d.nowMs)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Records sent under `hash`: as the one they follow, or as any transaction they were sent as (a replaced one). */
  private sentUnder(hash: string) {
    const lower = hash.toLowerCase();
    return (eb: ExpressionBuilder<Database, "operations">) =>
      eb.or([
        eb("transaction_hash", "=", lower),
        eb(
          "id",
          "in",
          eb
            .selectFrom("operation_transactions")
            .select("operation_transactions.operation_id")
            .where("operation_transactions.transaction_hash", "=", lower)
            .where("operation_transactions.broadcast_at", "is not", null),
        ),
      ]);
  }

  async findByTransactionHash(chain: string, network: string, transactionHash: string): Promise<OperationRecord | undefined> {
    const row = await this.db
      .selectFrom("operations")
      .selectAll()
      .where(this.sentUnder(transactionHash))
      .where("chain", "=", chain)
      .where("network", "=", network)
      .orderBy("created_at", "desc")
      .executeTakeFirst();
    return row === undefined ? undefined : (await withTransactions(this.db, this.d, [toRecord(this.d, row)]))[0];
  }

  async findOwnOperation(apiKeyId: string | null, idOrHash: string): Promise<OperationRecord | undefined> {
    const row = await this.db
      .selectFrom("operations")
      .selectAll()
      .where((eb) => eb.or([eb("id", "=", idOrHash), this.sentUnder(idOrHash)(eb)]))
      .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : (await withTransactions(this.db, this.d, [toRecord(this.d, row)]))[0];
  }

  async pairsWithUnfinished(): Promise<Array<{ chain: string; network: string }>> {
    return this.db.selectFrom("operations").select(["chain", "network"]).distinct().where("status", "in", ["signed", "pending"]).execute();
  }

  async findOwnLaunch(
    apiKeyId: string | null,
    chain: string,
    network: string,
    contractAddress: string,
  ): Promise<OperationRecord | undefined> {
    const row = await this.db
      .selectFrom("operations")
      // Its first transaction's raw form, on the record (made before 0007) or on the first transaction's row.
      .leftJoin("operation_transactions as first", (join) =>
        join.onRef("first.operation_id", "=", "operations.id").on("first.role", "=", "original"),
      )
      .selectAll("operations")
      .select((eb) => eb.fn.coalesce("operations.raw_transaction", "first.raw_transaction").as("first_raw"))
      .where("operations.kind", "=", "launch")
      .where("operations.chain", "=", chain)
      .where("operations.network", "=", network)
      .where("operations.contract_address", "=", contractAddress)
      .where("operations.api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
      .orderBy("operations.created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : { ...toRecord(this.d, row), rawTransaction: row.first_raw };
  }

  async listOperations(
    apiKeyId: string | null,
    options: { limit: number; cursor?: string; filter?: OperationFilter },
  ): Promise<OperationPage> {
    const { limit, filter = {} } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    let query = this.db
      .selectFrom("operations")
      .selectAll()
      .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
      .$if(filter.kinds !== undefined, (q) => q.where("kind", "in", [...filter.kinds!]))
      .$if(filter.statuses !== undefined, (q) => q.where("status", "in", [...filter.statuses!]))
      .$if(filter.sender !== undefined, (q) => q.where("sender", "=", filter.sender!))
      .$if(filter.chain !== undefined, (q) => q.where("chain", "=", filter.chain!))
      .$if(filter.network !== undefined, (q) => q.where("network", "=", filter.network!))
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1);
    if (options.cursor !== undefined) query = query.where(afterCursor(decodeOperationCursor(options.cursor)));
    const page = newestFirstPage(await query.execute(), limit, (row) => toRecord(this.d, row));
    await withTransactions(this.db, this.d, page.items);
    return page;
  }

  async leaseDueOperations(owner: string, leaseMs: number, limit: number, filter: LeaseFilter = {}): Promise<LeasedOperation[]> {
    const { skip, only } = filter;
    const early = filter.early !== undefined && filter.early.size > 0 ? [...filter.early] : undefined;
    if (only !== undefined && only.size === 0) return [];
    // A read first: an idle tracker's poll then writes (and syncs) nothing.
    const anyDue =
      early !== undefined ||
      (await this.db
        .selectFrom("operations")
        .select("id")
        .where("next_check_at", "is not", null)
        .where("next_check_at", "<=", this.d.nowMs)
        .limit(1)
        .executeTakeFirst()) !== undefined;
    if (!anyDue) return [];
    const now = this.d.nowMs;
    const rows = await this.unsynced((db) =>
      db
        .updateTable("operations")
        .set({ lease_owner: owner, lease_until: sql`${now} + ${Math.round(leaseMs)}` })
        .where("id", "in", (eb) =>
          eb
            .selectFrom("operations")
            .select("id")
            .where("next_check_at", "is not", null)
            .where((inner) =>
              early === undefined
                ? inner("next_check_at", "<=", now)
                : inner.or([inner("next_check_at", "<=", now), inner("id", "in", early)]),
            )
            .where((inner) =>
              inner.or([inner("lease_until", "is", null), inner("lease_until", "<", now), inner("lease_owner", "=", owner)]),
            )
            .$if(skip !== undefined && skip.size > 0, (select) => select.where("id", "not in", [...skip!]))
            .$if(only !== undefined, (select) => select.where("id", "in", [...only!]))
            // The records the tracker knows are ready first: a backlog of due checks (reorg watches after a restart) does
            // not hold a launch's first look behind it.
            .$if(early !== undefined, (select) => select.orderBy((eb) => eb.case().when("id", "in", early!).then(0).else(1).end()))
            .orderBy("next_check_at")
            .limit(limit)
            // SKIP LOCKED: replicas polling at once each take other records. SQLite has one writer: nothing to skip.
            .$if(this.d.name === "postgres", (select) => select.forUpdate().skipLocked()),
        )
        .returningAll()
        .execute(),
    );
    return withTransactions(
      this.db,
      this.d,
      rows.map((row) => ({
        ...toRecord(this.d, row),
        missingSince: iso(row.missing_since),
        minedAt: iso(row.mined_at),
        broadcastBlock: num(row.broadcast_block),
      })),
    );
  }

  heldNonces(chain: string, network: string, sender: string): Promise<number[]> {
    return senderNonces.heldNonces(this.db, this.d, chain, network, sender);
  }

  unfinishedOfSender(chain: string, network: string, sender: string, fromNonce: number, limit: number): Promise<UnfinishedTransaction[]> {
    return senderNonces.unfinishedOfSender(this.db, chain, network, sender, fromNonce, limit);
  }

  reserveNonce(reservation: NewNonceReservation): Promise<string | undefined> {
    return senderNonces.reserveNonce(this.db, this.d, reservation);
  }

  getNonceReservation(chain: string, network: string, sender: string, nonce: number): Promise<NonceReservation | undefined> {
    return senderNonces.getNonceReservation(this.db, this.d, chain, network, sender, nonce);
  }

  unfilledReservations(chain: string, network: string, sender: string): Promise<number[]> {
    return reservationFillers.unfilledReservations(this.db, this.d, { chain, network, sender });
  }

  keepReservationFillers(chain: string, network: string, sender: string, fillers: readonly ReservationFiller[]): Promise<void> {
    return reservationFillers.keepReservationFillers(this.db, { chain, network, sender }, fillers);
  }

  reservationFillerAt(chain: string, network: string, sender: string, nonce: number): Promise<ExpiredReservationFiller | undefined> {
    return reservationFillers.reservationFillerAt(this.db, this.d, { chain, network, sender }, nonce);
  }

  async operationStats(): Promise<{ counts: Array<{ kind: string; status: string; count: number }>; oldestDueMs: number | null }> {
    const now = this.d.nowMs;
    const [counts, due] = await Promise.all([
      this.db
        .selectFrom("operations")
        .select(["kind", "status", (eb) => eb.fn.countAll<number | string>().as("count")])
        .groupBy(["kind", "status"])
        .execute(),
      this.db
        .selectFrom("operations")
        .select([(eb) => eb.fn.min("next_check_at").as("oldest"), now.as("now_ms")])
        .where("next_check_at", "<=", now)
        .executeTakeFirst(),
    ]);
    return {
      counts: counts.map((row) => ({ kind: row.kind, status: row.status, count: Number(row.count) })),
      oldestDueMs: due?.oldest === null || due?.oldest === undefined ? null : Number(due.now_ms) - Number(due.oldest),
    };
  }

  async reclaimAfterRestart(pairs?: ReadonlyArray<{ chain: string; network: string }>): Promise<void> {
    await this.db
      .updateTable("operations")
      .set({
        lease_owner: null,
        lease_until: null,
        next_check_at: sql`case when ${sql.ref("status")} = 'signed' then ${this.d.nowMs} else ${sql.ref("next_check_at")} end`,
      })
      .where("next_check_at", "is not", null)
      .$if(pairs !== undefined, (query) =>
        query.where((eb) => eb.or(pairs!.map((pair) => eb.and([eb("chain", "=", pair.chain), eb("network", "=", pair.network)])))),
      )
      .execute();
    // Claims cannot say which chain they were for: only a store no other process opens frees them all.
    if (pairs === undefined) {
      await this.db.updateTable("idempotency").set({ lease_until: this.d.nowMs }).where("status", "=", "in_progress").execute();
      // A delivery the dead process was attempting is sent again now (at least once), not at its lease's end.
      await this.db
        .updateTable("webhook_deliveries")
        .set({ lease_owner: null, lease_until: null })
        .where("lease_owner", "is not", null)
        .execute();
    }
  }

  // Idempotency

  beginIdempotent(
    apiKeyId: string | null,
    route: string,
    idempotencyKey: string,
    requestHash: string,
    claim?: IdempotencyClaim,
  ): Promise<IdempotencyBegin> {
    return idempotencyClaims.beginIdempotent(this.db, this.d, apiKeyId, route, idempotencyKey, requestHash, claim);
  }

  completeIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string, statusCode: number, body: unknown): Promise<void> {
    return idempotencyClaims.completeIdempotent(this.db, this.d, apiKeyId, route, idempotencyKey, statusCode, body);
  }

  releaseIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string): Promise<void> {
    return idempotencyClaims.releaseIdempotent(this.db, apiKeyId, route, idempotencyKey);
  }

  purgeExpiredIdempotency(): Promise<number> {
    return idempotencyClaims.purgeExpiredIdempotency(this.db, this.d);
  }

  // Rate limits

  hitRateLimit(bucket: string, limit: number, windowMs: number, hits = 1): Promise<SharedRateLimitCount> {
    return rateLimits.hitRateLimit(this.db, this.d, bucket, limit, windowMs, hits);
  }
}
