import { CompiledQuery, sql, type Kysely } from "kysely";

import type { OperationChange, OperationStatus, StuckNotice } from "../core/operations/types.js";
import { eventOfChange, noticeOfChange, type OperationEvent } from "../domain/lifecycle.js";
import type { DialectSql } from "./dialect.js";
import { json, toRecord, withTransactions } from "./operation-rows.js";
import type { Database } from "./schema.js";
import { allowedSources, lastIndexById } from "./transition-guard.js";
import type { OperationRecord } from "./types.js";
import type { KyselyWebhookStore } from "./webhook-store.js";

// The changes of operation records (a request's, or a tracker pass's at once): each guarded by the states it may leave
// and by the tracker's lease, and committed with the webhook events it is (the outbox).

/** A record's state as a change finds it: its status and stuck notice (as stored), and whether its key has webhooks. */
interface ChangeBefore {
  status: string;
  stuck: unknown;
  subscribed: unknown;
}

/** Stands for the id in the compiled query of `stateBefore`, whose one parameter it is. */
const STATE_BEFORE_ID = "";

/** A change's transition as JSON text (its status, now, its reason); undefined for a change that records none. */
function transitionOf(change: OperationChange): string | undefined {
  if (change.reason === undefined) return undefined;
  const status = change.status ?? (change.from?.length === 1 ? change.from[0] : undefined);
  if (status === undefined) throw new Error("a transition needs its status: give `status`, or one `from` state");
  return JSON.stringify({ status, at: new Date().toISOString(), reason: change.reason });
}

export class OperationChanges {
  /** The text of `stateBefore`'s query, compiled on first use. */
  private stateBeforeSql: string | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly d: DialectSql,
    private readonly webhooks: KyselyWebhookStore,
  ) {}

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
    const record = toRecord(this.d, row);
    const after = before === undefined ? undefined : { status: row.status, stuck: row.stuck, subscribed: before.subscribed };
    if (before === undefined || !before.subscribed) return { record, queued: 0, ...(after ? { after } : {}) };
    const events = [
      change.status === undefined ? undefined : eventOfChange(before.status as OperationStatus, record.status),
      change.stuck === undefined ? undefined : noticeOfChange("stuck", this.d.readJson(before.stuck), record.stuck),
    ].filter((event): event is OperationEvent => event !== undefined);
    if (events.length === 0) return { record, queued: 0 };
    // The payload is the record as a reader gets it, with the transactions it was sent as.
    await withTransactions(db, this.d, [record]);
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
    return row === undefined ? { before } : { record: toRecord(this.d, row), before };
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
}
