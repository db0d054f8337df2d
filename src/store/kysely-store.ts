import { randomUUID } from "node:crypto";

import { CompiledQuery, sql, type ExpressionBuilder, type Kysely, type Selectable } from "kysely";

import { invalidArgument } from "../domain/errors.js";
import type { SenderLock } from "../chains/evm/sender-lock.js";
import type { ReservationFiller } from "../chains/evm/write/reservation-fillers.js";
import type { PreparedTransaction } from "../chains/evm/write/signed-transaction.js";
import type {
  ExpiredReservationFiller,
  LeaseFilter,
  LeasedOperation,
  NewNonceReservation,
  NewOperationTransaction,
  NonceReservation,
  OperationChange,
  OperationStatus,
  OperationTransaction,
  OperationTransition,
  StoredTransaction,
  StuckNotice,
  UnfinishedTransaction,
} from "../core/operations/types.js";
import { GroupCommit } from "./group-commit.js";
import { generateApiKey, hashApiKey, sameHash } from "./api-key-secret.js";
import { dialectSql, type DialectSql } from "./dialect.js";
import { eventOfChange, noticeOfChange, type BitcoinSpend, type OperationEvent } from "../domain/lifecycle.js";
import { allowedSources, lastIndexById } from "./transition-guard.js";
import { migrate } from "./migrations.js";
import { afterCursor, decodeOperationCursor, newestFirstPage } from "./operation-cursor.js";
import type { Database } from "./schema.js";
import { KyselyWebhookStore } from "./webhook-store.js";
import { KyselyCustodyStore } from "./custody-store.js";
import { KyselyNotificationStore } from "./notification-store.js";
import * as reservationFillers from "./reservation-fillers.js";
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

type OperationRow = Selectable<Database["operations"]>;
type TransactionRow = Omit<Selectable<Database["operation_transactions"]>, "raw_transaction" | "signature" | "nonce" | "created_at">;

/** The columns of an operation's transactions a reader gets (the raw forms are read one at a time, to broadcast). */
const TRANSACTION_COLUMNS = [
  "operation_id",
  "transaction_hash",
  "role",
  "rung",
  "max_fee_per_gas",
  "max_priority_fee_per_gas",
  "gas_price",
  "broadcast_at",
  "bitcoin_spend",
] as const;

/** How long an expired reservation is kept, so that a late submit is told it expired rather than that it was never prepared. */
/** A record's state as a change finds it: its status and stuck notice (as stored), and whether its key has webhooks. */
interface ChangeBefore {
  status: string;
  stuck: unknown;
  subscribed: unknown;
}

/** Stands for the id in the compiled query of `stateBefore`, whose one parameter it is. */
const STATE_BEFORE_ID = "";

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
/** A change's transition as JSON text (its status, now, its reason); undefined for a change that records none. */
function transitionOf(change: OperationChange): string | undefined {
  if (change.reason === undefined) return undefined;
  const status = change.status ?? (change.from?.length === 1 ? change.from[0] : undefined);
  if (status === undefined) throw new Error("a transition needs its status: give `status`, or one `from` state");
  return JSON.stringify({ status, at: new Date().toISOString(), reason: change.reason });
}

export class KyselyStore implements Store {
  /** The text of `stateBefore`'s query, compiled on first use. */
  private stateBeforeSql: string | undefined;
  readonly kind: Store["kind"];
  readonly location: string;
  readonly webhooks: KyselyWebhookStore;
  readonly custody: KyselyCustodyStore;
  readonly notifications: KyselyNotificationStore;
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
    this.custody = new KyselyCustodyStore(db, this.d);
    this.notifications = new KyselyNotificationStore(db, this.d, this.webhooks);
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
      stuck: this.d.readJson<StuckNotice>(row.stuck),
      transactions: [],
      createdAt: iso(row.created_at)!,
      updatedAt: iso(row.updated_at)!,
    };
  }

  private toTransaction(row: TransactionRow): OperationTransaction {
    const bitcoin = this.d.readJson<BitcoinSpend>(row.bitcoin_spend);
    return {
      transactionHash: row.transaction_hash,
      role: row.role,
      rung: Number(row.rung),
      maxFeePerGas: row.max_fee_per_gas,
      maxPriorityFeePerGas: row.max_priority_fee_per_gas,
      gasPrice: row.gas_price,
      broadcastAt: iso(row.broadcast_at),
      ...(bitcoin ? { bitcoin } : {}),
    };
  }

  /** The records with their transactions, lowest step first: one query for all of them. */
  private async withTransactions<R extends OperationRecord>(records: R[], db: Kysely<Database> = this.db): Promise<R[]> {
    if (records.length === 0) return records;
    const rows = await db
      .selectFrom("operation_transactions")
      .select([...TRANSACTION_COLUMNS, sql<string | null>`case when role = 'original' then raw_transaction end`.as("first_raw")])
      .where(
        "operation_id",
        "in",
        records.map((record) => record.id),
      )
      .orderBy("rung")
      .orderBy("created_at")
      .execute();
    const byOperation = new Map<string, OperationTransaction[]>();
    const firstRaws = new Map<string, string>();
    for (const { first_raw: firstRaw, ...row } of rows) {
      const list = byOperation.get(row.operation_id) ?? [];
      list.push(this.toTransaction(row));
      byOperation.set(row.operation_id, list);
      if (firstRaw !== null) firstRaws.set(row.operation_id, firstRaw);
    }
    for (const record of records) {
      record.transactions = byOperation.get(record.id) ?? [];
      record.rawTransaction ??= firstRaws.get(record.id) ?? null;
    }
    return records;
  }

  /** `firstRaw`: the record's first raw form, kept on its first transaction's row (see operationRow). */
  private transactionRow(operationId: string, transaction: NewOperationTransaction, firstRaw?: string | null) {
    const now = this.d.nowMs;
    return {
      operation_id: operationId,
      transaction_hash: transaction.transactionHash.toLowerCase(),
      role: transaction.role,
      rung: transaction.rung,
      nonce: transaction.nonce,
      raw_transaction: transaction.rawTransaction ?? (transaction.role === "original" ? (firstRaw ?? null) : null),
      signature: transaction.signature,
      max_fee_per_gas: transaction.maxFeePerGas,
      max_priority_fee_per_gas: transaction.maxPriorityFeePerGas,
      gas_price: transaction.gasPrice,
      created_at: now,
      broadcast_at: transaction.broadcast ? now : null,
      bitcoin_spend: json(transaction.bitcoin),
    };
  }

  async insertOperation(operation: NewOperation): Promise<void> {
    // A `signed` record is no event (the launch path stays one write); one recorded final at once (a bitcoin grant) is.
    const event = eventOfChange(undefined, operation.status);
    if (event === undefined) return this.inserts.add(operation);
    const queued = await this.db.transaction().execute(async (trx) => {
      const row = await trx.insertInto("operations").values(this.operationRow(operation)).returningAll().executeTakeFirstOrThrow();
      await this.insertTransactionRows(trx, [operation]);
      const [record] = await this.withTransactions([this.toRecord(row)], trx);
      return this.webhooks.queue(trx, event, record!);
    });
    if (queued > 0) this.webhooks.queuedCommitted();
  }

  /** One statement for a group of records (and one for their transactions): concurrent launches and mints share one commit. */
  private async insertOperationRows(operations: NewOperation[]): Promise<void> {
    const values = operations.map((operation) => this.operationRow(operation));
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
      (operation.transactions ?? []).map((tx) => this.transactionRow(operation.id, tx, operation.rawTransaction)),
    );
    if (rows.length > 0) await db.insertInto("operation_transactions").values(rows).execute();
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
      // Kept on the first transaction's row when it has one: SQLite writes a row again whole (overflow pages too) on every
      // update, and a record is updated several times in its life while its raw form (5 KB for a deployment) never changes.
      raw_transaction: operation.transactions?.some((transaction) => transaction.role === "original")
        ? null
        : (operation.rawTransaction ?? null),
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
      stuck: null,
      broadcast_block: null,
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
    const last = lastIndexById(changes);
    const changed = await this.db.transaction().execute(async (trx) => {
      const records: Array<OperationRecord | undefined> = [];
      queued = 0;
      const known = new Map<string, ChangeBefore>();
      for (let index = 0; index < changes.length; index++) {
        const { id, change } = changes[index]!;
        if (last.get(id) === index + 1) {
          // The record's last two changes: one update where they can be joined.
          const joined = await this.changeTwiceIn(trx, id, [change, changes[index + 1]!.change], leaseOwner, known.get(id));
          if (joined.record !== undefined) {
            records.push(joined.record, joined.record);
            known.delete(id);
            index++;
            continue;
          }
          if (joined.before !== undefined) known.set(id, joined.before);
        }
        const outcome = await this.changeOperationIn(trx, id, change, leaseOwner, last.get(id) !== index, known.get(id));
        if (outcome.after !== undefined) known.set(id, outcome.after);
        else known.delete(id);
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
    /** Another change of the record follows in the same transaction: the lease holds until that one. */
    keepLease = false,
    /** What an earlier change of the record in the same transaction left: its state is known, not read again. */
    known?: ChangeBefore,
  ): Promise<{ record: OperationRecord | undefined; queued: number; after?: ChangeBefore }> {
    // The status before, for the event a change is, and whether the record's key has webhooks at all (most have none:
    // then the change queues nothing and costs this one read). Read in the change's transaction, locked on PostgreSQL.
    const before =
      change.status === undefined && (change.stuck === undefined || change.stuck === null)
        ? known
        : (known ?? (await this.stateBefore(db, id)));
    const set = this.fieldsOf(change);
    const transition = transitionOf(change);
    if (transition !== undefined) set.transitions = this.d.appendToArray("transitions", transition);
    if (leaseOwner !== undefined && !keepLease) Object.assign(set, { lease_owner: null, lease_until: null });
    let query = db.updateTable("operations").set(set).where("id", "=", id);
    const allowed = allowedSources(change);
    // A move the lifecycle table lacks matches no record (and SQL has no empty IN list).
    if (allowed?.length === 0) return { record: undefined, queued: 0 };
    if (allowed !== undefined) query = query.where("status", "in", allowed);
    if (leaseOwner !== undefined) query = query.where("lease_owner", "=", leaseOwner);
    const row = await query.returningAll().executeTakeFirst();
    if (row === undefined) return { record: undefined, queued: 0 };
    const record = this.toRecord(row);
    const after = before === undefined ? undefined : { status: row.status, stuck: row.stuck, subscribed: before.subscribed };
    if (before === undefined || !before.subscribed) return { record, queued: 0, ...(after ? { after } : {}) };
    const events = [
      change.status === undefined ? undefined : eventOfChange(before.status as OperationStatus, record.status),
      change.stuck === undefined ? undefined : noticeOfChange("stuck", this.d.readJson(before.stuck), record.stuck),
    ].filter((event): event is OperationEvent => event !== undefined);
    if (events.length === 0) return { record, queued: 0 };
    // The payload is the record as a reader gets it, with the transactions it was sent as.
    await this.withTransactions([record], db);
    let queued = 0;
    for (const event of events) queued += await this.webhooks.queue(db, event, record);
    return { record, queued, ...(after ? { after } : {}) };
  }

  /**
   * Two changes of one record in a row (a tracker's first look finding a send already mined: `pending`, then `mined`)
   * written as one update, both transitions appended in order, when no webhook is subscribed (events would each need the
   * record as that change left it). No record, and nothing written, when they cannot be joined or the first would not
   * apply: the caller then writes them one by one, as ever. `before` is the state read for it, for the caller to reuse.
   */
  private async changeTwiceIn(
    db: Kysely<Database>,
    id: string,
    [first, second]: readonly [OperationChange, OperationChange],
    leaseOwner: string,
    known: ChangeBefore | undefined,
  ): Promise<{ record?: OperationRecord; before: ChangeBefore | undefined }> {
    const before = known ?? (await this.stateBefore(db, id));
    const firstSources = allowedSources(first);
    const secondSources = allowedSources(second);
    const joinable =
      before !== undefined &&
      !before.subscribed &&
      first.status !== undefined &&
      firstSources?.length !== 0 &&
      (secondSources === undefined || secondSources.includes(first.status));
    if (!joinable) return { before };
    const set: Record<string, unknown> = { ...this.fieldsOf(first), ...this.fieldsOf(second), lease_owner: null, lease_until: null };
    const transitions = [first, second].map(transitionOf).filter((transition) => transition !== undefined);
    if (transitions.length > 0) set.transitions = this.d.appendToArray("transitions", ...transitions);
    let query = db.updateTable("operations").set(set).where("id", "=", id).where("lease_owner", "=", leaseOwner);
    if (firstSources !== undefined) query = query.where("status", "in", firstSources);
    const row = await query.returningAll().executeTakeFirst();
    return row === undefined ? { before } : { record: this.toRecord(row), before };
  }

  /** The columns a change writes, but for its transition and the lease. */
  private fieldsOf(change: OperationChange): Record<string, unknown> {
    const now = this.d.nowMs;
    const set: Record<string, unknown> = { updated_at: now };
    if (change.status !== undefined) {
      set.status = change.status;
      if (change.status === "mined" || change.status === "cancelled") set.mined_at = now;
    }
    if (change.blockNumber !== undefined) set.block_number = change.blockNumber;
    if (change.blockHash !== undefined) set.block_hash = change.blockHash;
    if (change.result !== undefined) set.result = json(change.result);
    if (change.error !== undefined) set.error = json(change.error);
    if (change.missingSince !== undefined) set.missing_since = change.missingSince === null ? null : change.missingSince.getTime();
    if (change.transactionHash !== undefined) set.transaction_hash = change.transactionHash.toLowerCase();
    if (change.broadcastBlock !== undefined) set.broadcast_block = change.broadcastBlock;
    if (change.stuck !== undefined)
      set.stuck = change.stuck === null ? null : json({ at: new Date().toISOString(), ...change.stuck } satisfies StuckNotice);
    if (change.checkInMs !== undefined)
      set.next_check_at = change.checkInMs === null ? null : sql`${now} + ${Math.round(change.checkInMs)}`;
    return set;
  }

  /**
   * A record's status and stuck notice before a change, and whether its key has webhooks. The query is the same for
   * every change but its id: compiled once (a tracker pass runs it for each record), the id bound each time.
   */
  private async stateBefore(db: Kysely<Database>, id: string): Promise<ChangeBefore | undefined> {
    this.stateBeforeSql ??= db
      .selectFrom("operations")
      .select((eb) => [
        "operations.status",
        "operations.stuck",
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
      .where("operations.id", "=", STATE_BEFORE_ID)
      .$if(this.d.name === "postgres", (query) => query.forUpdate("operations"))
      .compile().sql;
    const { rows } = await db.executeQuery<ChangeBefore>(CompiledQuery.raw(this.stateBeforeSql, [id]));
    return rows[0];
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
    return row === undefined ? undefined : (await this.withTransactions([this.toRecord(row)]))[0];
  }

  async recordTransaction(operationId: string, transaction: NewOperationTransaction): Promise<OperationRecord | undefined> {
    const row = this.transactionRow(operationId, transaction);
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
    return row === undefined ? undefined : (await this.withTransactions([this.toRecord(row)]))[0];
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
    return row === undefined ? undefined : (await this.withTransactions([this.toRecord(row)]))[0];
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
    return row === undefined ? undefined : { ...this.toRecord(row), rawTransaction: row.first_raw };
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
    const page = newestFirstPage(await query.execute(), limit, (row) => this.toRecord(row));
    await this.withTransactions(page.items);
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
    return this.withTransactions(
      rows.map((row) => ({
        ...this.toRecord(row),
        missingSince: iso(row.missing_since),
        minedAt: iso(row.mined_at),
        broadcastBlock: num(row.broadcast_block),
      })),
    );
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
    // Housekeeping only: the reservation above is made, and a prepare is not refused (503 on a full disk) after it is.
    await this.db
      .deleteFrom("nonce_reservations")
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("sender", "=", sender)
      .where("expires_at", "<", sql<number>`${now} - ${RESERVATION_MEMORY_MS}`)
      .execute()
      .catch(() => undefined);
    return iso(row.expires_at)!;
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
    // The first hit of a window retires the bucket's earlier windows, so the table stays small. Housekeeping only: a hit
    // already counted is not refused (503 on a full disk) after it is.
    if (count === hits)
      await this.db
        .deleteFrom("rate_limits")
        .where("bucket", "=", bucket)
        .where("window_start", "<", windowStart)
        .execute()
        .catch(() => undefined);
    return {
      count,
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: Math.max(0, windowStart + window - Number(row.now_ms)),
    };
  }
}
