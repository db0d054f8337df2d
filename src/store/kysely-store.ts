import { randomUUID } from "node:crypto";

import { sql, type Kysely, type Selectable } from "kysely";

import { invalidArgument } from "../domain/errors.js";
import type { SenderLock } from "../chains/evm/sender-lock.js";
import type {
  LeaseFilter,
  LeasedOperation,
  NewNonceReservation,
  NonceReservation,
  OperationChange,
  OperationStatus,
  OperationTransition,
  PreparedTransaction,
  UnfinishedTransaction,
} from "../core/operations/types.js";
import { GroupCommit } from "./group-commit.js";
import { generateApiKey, hashApiKey, sameHash } from "./api-key-secret.js";
import { dialectSql, type DialectSql } from "./dialect.js";
import { eventOfChange } from "../domain/lifecycle.js";
import { allowedSources } from "./transition-guard.js";
import { migrate } from "./migrations.js";
import { afterCursor, decodeOperationCursor, newestFirstPage } from "./operation-cursor.js";
import type { Database } from "./schema.js";
import { KyselyWebhookStore } from "./webhook-store.js";
import type {
  ApiKeyRecord,
  IdempotencyBegin,
  IdempotencyClaim,
  NewOperation,
  OperationPage,
  OperationRecord,
  SharedRateLimitCount,
  Store,
} from "./types.js";

export const MAX_PAGE_SIZE = 100;

type OperationRow = Selectable<Database["operations"]>;

/** How long an expired reservation is kept, so that a late submit is told it expired rather than that it was never prepared. */
const RESERVATION_MEMORY_MS = 24 * 3_600_000;

const DEFAULT_CLAIM: IdempotencyClaim = { leaseMs: 120_000, retentionMs: 24 * 3_600_000 };

/** JSON parameters go in as text: PostgreSQL types them from the column, SQLite stores the text. */
function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));
const iso = (value: number | string | null): string | null => (value === null ? null : new Date(Number(value)).toISOString());

export interface KyselyStoreOptions {
  kind: Store["kind"];
  location: string;
  senderLock: SenderLock;
  /** Takes a named lock for the life of this store, across every process that shares it. */
  claimExclusive?: (name: string) => Promise<boolean>;
  /** Runs after the database is closed (end a lock pool, a lock connection). */
  onClose?: () => Promise<void>;
}

/** Everything the HTTP service stores, in one query layer over SQLite (embedded) and PostgreSQL (replicas). */
export class KyselyStore implements Store {
  readonly kind: Store["kind"];
  readonly location: string;
  readonly webhooks: KyselyWebhookStore;
  private readonly d: DialectSql;
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

  private toRecord(row: OperationRow): OperationRecord {
    return {
      id: row.id,
      apiKeyId: row.api_key_id,
      kind: row.kind as OperationRecord["kind"],
      chain: row.chain,
      network: row.network,
      tokenType: row.token_type,
      params: this.d.readJson<Record<string, unknown>>(row.params) ?? {},
      sender: row.sender,
      transactionHash: row.transaction_hash,
      contractAddress: row.contract_address,
      nonce: num(row.nonce),
      rawTransaction: row.raw_transaction,
      status: row.status as OperationStatus,
      error: this.d.readJson(row.error),
      blockNumber: num(row.block_number),
      blockHash: row.block_hash,
      result: this.d.readJson(row.result),
      transitions: this.d.readJson<OperationTransition[]>(row.transitions) ?? [],
      createdAt: iso(row.created_at)!,
      updatedAt: iso(row.updated_at)!,
    };
  }

  async insertOperation(operation: NewOperation): Promise<void> {
    // A `signed` record is no event (the launch path stays one write); one recorded final at once (a bitcoin grant) is.
    const event = eventOfChange(undefined, operation.status);
    if (event === undefined) return this.inserts.add(operation);
    const queued = await this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto("operations").values(this.operationRow(operation)).returningAll().executeTakeFirstOrThrow();
      return this.webhooks.queue(trx, event, this.toRecord(row));
    });
    if (queued > 0) this.webhooks.queuedCommitted();
  }

  /** One statement for a group of records: concurrent launches and mints share one commit. */
  private async insertOperationRows(operations: NewOperation[]): Promise<void> {
    await this.db
      .insertInto("operations")
      .values(operations.map((operation) => this.operationRow(operation)))
      .execute();
  }

  private operationRow(operation: NewOperation) {
    const unfinished = operation.status === "signed" || operation.status === "pending";
    const transitions: OperationTransition[] = [
      { status: operation.status, at: new Date().toISOString(), reason: operation.reason ?? "recorded" },
    ];
    const now = this.d.nowMs;
    return {
      id: operation.id,
      api_key_id: operation.apiKeyId,
      kind: operation.kind,
      chain: operation.chain,
      network: operation.network,
      token_type: operation.tokenType,
      params: json(operation.params ?? {}),
      sender: operation.sender,
      transaction_hash: operation.transactionHash,
      contract_address: operation.contractAddress,
      nonce: operation.nonce ?? null,
      raw_transaction: operation.rawTransaction ?? null,
      status: operation.status,
      error: json(operation.error),
      block_number: operation.blockNumber ?? null,
      block_hash: operation.blockHash ?? null,
      result: json(operation.result),
      transitions: json(transitions),
      created_at: now,
      updated_at: now,
      next_check_at: unfinished ? sql<number>`${now} + ${operation.checkInMs ?? 0}` : null,
      mined_at: operation.status === "mined" ? now : null,
      // Every row names the same columns: rows of one multi-row insert may differ only in values.
      lease_owner: operation.lease?.owner ?? null,
      lease_until: operation.lease ? sql<number>`${now} + ${Math.round(operation.lease.ms)}` : null,
    };
  }

  async changeOperation(id: string, change: OperationChange, leaseOwner?: string): Promise<OperationRecord | undefined> {
    if (change.status === undefined) return (await this.changeOperationIn(this.db, id, change, leaseOwner)).record;
    // A state change and its events commit together (the outbox).
    const { record, queued } = await this.db.transaction().execute((trx) => this.changeOperationIn(trx, id, change, leaseOwner));
    if (queued > 0) this.webhooks.queuedCommitted();
    return record;
  }

  async changeOperations(
    changes: ReadonlyArray<{ id: string; change: OperationChange }>,
    leaseOwner: string,
  ): Promise<Array<OperationRecord | undefined>> {
    if (changes.length === 1) return [await this.changeOperation(changes[0]!.id, changes[0]!.change, leaseOwner)];
    // One transaction, one commit (one fsync on the embedded store) for a whole tracker pass, events included.
    let queued = 0;
    const changed = await this.db.transaction().execute(async (trx) => {
      const records: Array<OperationRecord | undefined> = [];
      queued = 0;
      for (const { id, change } of changes) {
        const outcome = await this.changeOperationIn(trx, id, change, leaseOwner);
        records.push(outcome.record);
        queued += outcome.queued;
      }
      return records;
    });
    if (queued > 0) this.webhooks.queuedCommitted();
    return changed;
  }

  private async changeOperationIn(
    db: Kysely<Database>,
    id: string,
    change: OperationChange,
    leaseOwner?: string,
  ): Promise<{ record: OperationRecord | undefined; queued: number }> {
    // The status before, for the event a change is, and whether the record's key has webhooks at all (most have none:
    // then the change queues nothing and costs this one read). Read in the change's transaction, locked on PostgreSQL.
    const before =
      change.status === undefined
        ? undefined
        : await db
            .selectFrom("operations")
            .select((eb) => [
              "operations.status",
              eb
                .exists(
                  eb
                    .selectFrom("webhooks")
                    .select(sql`1`.as("one"))
                    .where((inner) =>
                      inner.or([
                        inner("webhooks.api_key_id", "=", inner.ref("operations.api_key_id")),
                        inner.and([inner("webhooks.api_key_id", "is", null), inner("operations.api_key_id", "is", null)]),
                      ]),
                    ),
                )
                .as("subscribed"),
            ])
            .where("operations.id", "=", id)
            .$if(this.d.name === "postgres", (query) => query.forUpdate("operations"))
            .executeTakeFirst();
    const now = this.d.nowMs;
    const set: Record<string, unknown> = { updated_at: now };
    if (change.status !== undefined) {
      set.status = change.status;
      if (change.status === "mined") set.mined_at = now;
    }
    if (change.reason !== undefined) {
      const status = change.status ?? (change.from?.length === 1 ? change.from[0] : undefined);
      if (status === undefined) throw new Error("a transition needs its status: give `status`, or one `from` state");
      set.transitions = this.d.appendToArray(
        "transitions",
        JSON.stringify({ status, at: new Date().toISOString(), reason: change.reason }),
      );
    }
    if (change.blockNumber !== undefined) set.block_number = change.blockNumber;
    if (change.blockHash !== undefined) set.block_hash = change.blockHash;
    if (change.result !== undefined) set.result = json(change.result);
    if (change.error !== undefined) set.error = json(change.error);
    if (change.missingSince !== undefined) set.missing_since = change.missingSince === null ? null : change.missingSince.getTime();
    if (change.checkInMs !== undefined)
      set.next_check_at = change.checkInMs === null ? null : sql`${now} + ${Math.round(change.checkInMs)}`;
    if (leaseOwner !== undefined) Object.assign(set, { lease_owner: null, lease_until: null });
    let query = db.updateTable("operations").set(set).where("id", "=", id);
    const allowed = allowedSources(change);
    // A move the lifecycle table lacks matches no record (and SQL has no empty IN list).
    if (allowed?.length === 0) return { record: undefined, queued: 0 };
    if (allowed !== undefined) query = query.where("status", "in", allowed);
    if (leaseOwner !== undefined) query = query.where("lease_owner", "=", leaseOwner);
    const row = await query.returningAll().executeTakeFirst();
    if (row === undefined) return { record: undefined, queued: 0 };
    const record = this.toRecord(row);
    const event = before === undefined || !before.subscribed ? undefined : eventOfChange(before.status as OperationStatus, record.status);
    return { record, queued: event === undefined ? 0 : await this.webhooks.queue(db, event, record) };
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
    return row === undefined ? undefined : this.toRecord(row);
  }

  async recheckMined(chain: string, network: string, fromBlock?: number): Promise<number> {
    let query = this.db
      .updateTable("operations")
      .set({ next_check_at: this.d.nowMs })
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("status", "=", "mined");
    if (fromBlock !== undefined) query = query.where("block_number", ">=", fromBlock);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async findByTransactionHash(chain: string, network: string, transactionHash: string): Promise<OperationRecord | undefined> {
    const row = await this.db
      .selectFrom("operations")
      .selectAll()
      .where("transaction_hash", "=", transactionHash.toLowerCase())
      .where("chain", "=", chain)
      .where("network", "=", network)
      .orderBy("created_at", "desc")
      .executeTakeFirst();
    return row === undefined ? undefined : this.toRecord(row);
  }

  async findOwnOperation(apiKeyId: string | null, idOrHash: string): Promise<OperationRecord | undefined> {
    const row = await this.db
      .selectFrom("operations")
      .selectAll()
      .where((eb) => eb.or([eb("id", "=", idOrHash), eb("transaction_hash", "=", idOrHash.toLowerCase())]))
      .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : this.toRecord(row);
  }

  async listOperations(apiKeyId: string | null, options: { limit: number; cursor?: string }): Promise<OperationPage> {
    const { limit } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    let query = this.db
      .selectFrom("operations")
      .selectAll()
      .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1);
    if (options.cursor !== undefined) query = query.where(afterCursor(decodeOperationCursor(options.cursor)));
    return newestFirstPage(await query.execute(), limit, (row) => this.toRecord(row));
  }

  async leaseDueOperations(owner: string, leaseMs: number, limit: number, filter: LeaseFilter = {}): Promise<LeasedOperation[]> {
    const { skip, only } = filter;
    if (only !== undefined && only.size === 0) return [];
    // A read first: an idle tracker's poll then writes (and syncs) nothing.
    const anyDue = await this.db
      .selectFrom("operations")
      .select("id")
      .where("next_check_at", "is not", null)
      .where("next_check_at", "<=", this.d.nowMs)
      .limit(1)
      .executeTakeFirst();
    if (anyDue === undefined) return [];
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
            .where("next_check_at", "<=", now)
            .where((inner) =>
              inner.or([inner("lease_until", "is", null), inner("lease_until", "<", now), inner("lease_owner", "=", owner)]),
            )
            .$if(skip !== undefined && skip.size > 0, (select) => select.where("id", "not in", [...skip!]))
            .$if(only !== undefined, (select) => select.where("id", "in", [...only!]))
            .orderBy("next_check_at")
            .limit(limit)
            // SKIP LOCKED: replicas polling at once each take other records. SQLite has one writer: nothing to skip.
            .$if(this.d.name === "postgres", (select) => select.forUpdate().skipLocked()),
        )
        .returningAll()
        .execute(),
    );
    return rows.map((row) => ({ ...this.toRecord(row), missingSince: iso(row.missing_since), minedAt: iso(row.mined_at) }));
  }

  async heldNonces(chain: string, network: string, sender: string): Promise<number[]> {
    const rows = await this.db
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
          .where("expires_at", ">", this.d.nowMs),
      )
      .execute();
    return rows.map((row) => Number(row.nonce)).sort((a, b) => a - b);
  }

  async unfinishedOfSender(
    chain: string,
    network: string,
    sender: string,
    fromNonce: number,
    limit: number,
  ): Promise<UnfinishedTransaction[]> {
    const rows = await this.db
      .selectFrom("operations")
      .select(["id", "nonce", "status", "transaction_hash", "raw_transaction"])
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("sender", "=", sender)
      // As in heldNonces: the partial index's condition, literally.
      .where(sql<boolean>`status in ('signed', 'pending')`)
      .where("nonce", ">=", fromNonce)
      .orderBy("nonce")
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      nonce: Number(row.nonce),
      status: row.status as OperationStatus,
      transactionHash: row.transaction_hash,
      rawTransaction: row.raw_transaction,
    }));
  }

  async reserveNonce(reservation: NewNonceReservation): Promise<string | undefined> {
    const now = this.d.nowMs;
    const { chain, network, sender, nonce } = reservation;
    const row = await this.db
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
    await this.db
      .deleteFrom("nonce_reservations")
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("sender", "=", sender)
      .where("expires_at", "<", sql<number>`${now} - ${RESERVATION_MEMORY_MS}`)
      .execute();
    return iso(row.expires_at)!;
  }

  async getNonceReservation(chain: string, network: string, sender: string, nonce: number): Promise<NonceReservation | undefined> {
    const row = await this.db
      .selectFrom("nonce_reservations")
      .select(["prepared_transaction", "expires_at", this.d.nowMs.as("now_ms")])
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
      transaction: this.d.readJson<PreparedTransaction>(row.prepared_transaction)!,
      expiresAt: iso(row.expires_at)!,
      live: Number(row.expires_at) > Number(row.now_ms),
    };
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

  /** The same expression as the unique index, so the index serves the lookup on both databases. */
  private sameKey(apiKeyId: string | null) {
    return { keyExpression: sql<string>`coalesce(api_key_id, '')`, apiKey: apiKeyId ?? "" } as const;
  }

  async beginIdempotent(
    apiKeyId: string | null,
    route: string,
    idempotencyKey: string,
    requestHash: string,
    claim: IdempotencyClaim = DEFAULT_CLAIM,
  ): Promise<IdempotencyBegin> {
    const scope = this.sameKey(apiKeyId);
    const now = this.d.nowMs;
    // A claim released (or expired) between the insert and the read leaves nothing to read: claim again.
    for (;;) {
      await this.db
        .deleteFrom("idempotency")
        .where(scope.keyExpression, "=", scope.apiKey)
        .where("route", "=", route)
        .where("key", "=", idempotencyKey)
        .where("expires_at", "<", now)
        .execute();
      const claimed = await this.db
        .insertInto("idempotency")
        .values({
          api_key_id: apiKeyId,
          route,
          key: idempotencyKey,
          request_hash: requestHash,
          status: "in_progress",
          operation_id: claim.operationId ?? null,
          created_at: now,
          lease_until: sql`${now} + ${Math.round(claim.leaseMs)}`,
          expires_at: sql`${now} + ${Math.round(claim.retentionMs)}`,
        })
        .onConflict((conflict) => conflict.doNothing())
        .returning(sql<number>`1`.as("claimed"))
        .execute();
      if (claimed.length > 0) return { state: "new" };
      const existing = await this.db
        .selectFrom("idempotency")
        .select(["request_hash", "status", "status_code", "body", "operation_id", "lease_until", now.as("now_ms")])
        .where(scope.keyExpression, "=", scope.apiKey)
        .where("route", "=", route)
        .where("key", "=", idempotencyKey)
        .executeTakeFirst();
      if (existing === undefined) continue;
      if (existing.request_hash !== requestHash) return { state: "conflict" };
      if (existing.status === "done")
        return { state: "replay", statusCode: Number(existing.status_code), body: this.d.readJson(existing.body) };
      if (Number(existing.lease_until) >= Number(existing.now_ms)) return { state: "in_progress", operationId: existing.operation_id };
      // The owner died (or overran its lease): take the claim over, once, for whoever gets here first.
      const taken = await this.db
        .updateTable("idempotency")
        .set({ lease_until: sql`${now} + ${Math.round(claim.leaseMs)}` })
        .where(scope.keyExpression, "=", scope.apiKey)
        .where("route", "=", route)
        .where("key", "=", idempotencyKey)
        .where("status", "=", "in_progress")
        .where("lease_until", "<", now)
        .returning("operation_id")
        .executeTakeFirst();
      if (taken === undefined) continue;
      return { state: "abandoned", operationId: taken.operation_id };
    }
  }

  async completeIdempotent(
    apiKeyId: string | null,
    route: string,
    idempotencyKey: string,
    statusCode: number,
    body: unknown,
  ): Promise<void> {
    const scope = this.sameKey(apiKeyId);
    await this.db
      .updateTable("idempotency")
      .set({ status: "done", status_code: statusCode, body: json(body), completed_at: this.d.nowMs })
      .where(scope.keyExpression, "=", scope.apiKey)
      .where("route", "=", route)
      .where("key", "=", idempotencyKey)
      .execute();
  }

  async releaseIdempotent(apiKeyId: string | null, route: string, idempotencyKey: string): Promise<void> {
    const scope = this.sameKey(apiKeyId);
    await this.db
      .deleteFrom("idempotency")
      .where(scope.keyExpression, "=", scope.apiKey)
      .where("route", "=", route)
      .where("key", "=", idempotencyKey)
      .where("status", "=", "in_progress")
      .execute();
  }

  async purgeExpiredIdempotency(): Promise<number> {
    const result = await this.db.deleteFrom("idempotency").where("expires_at", "<", this.d.nowMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  // Rate limits

  async hitRateLimit(bucket: string, limit: number, windowMs: number, hits = 1): Promise<SharedRateLimitCount> {
    // A server setting, not client input: a bad one is a configuration error, never a 400.
    if (!Number.isFinite(windowMs) || windowMs < 1) throw new RangeError(`the rate-limit window must be at least 1 ms, not ${windowMs}`);
    const window = Math.round(windowMs);
    const now = this.d.nowMs;
    const row = await this.db
      .insertInto("rate_limits")
      .values({ bucket, window_start: sql`${now} - ${now} % ${window}`, count: hits })
      .onConflict((conflict) => conflict.columns(["bucket", "window_start"]).doUpdateSet({ count: sql`rate_limits.count + ${hits}` }))
      .returning(["count", "window_start", now.as("now_ms")])
      .executeTakeFirstOrThrow();
    const count = Number(row.count);
    const windowStart = Number(row.window_start);
    // The first hit of a window retires the bucket's earlier windows, so the table stays small.
    if (count === hits)
      await this.db.deleteFrom("rate_limits").where("bucket", "=", bucket).where("window_start", "<", windowStart).execute();
    return {
      count,
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: Math.max(0, windowStart + window - Number(row.now_ms)),
    };
  }
}
