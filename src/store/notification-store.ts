import { sql, type Kysely, type Selectable } from "kysely";

import type {
  ChainEventPage,
  ChainEventType,
  DeliveredChainEvent,
  FoundEvent,
  NewSubscription,
  NotificationStore,
  ScanLease,
  ScannedHash,
  SubscriptionPage,
  SubscriptionRecord,
} from "../core/notifications/types.js";
import type { SubscriptionTarget } from "../domain/subscriptions.js";
import type { DialectSql } from "./dialect.js";
import { afterCursor } from "./operation-cursor.js";
import { checkLimit, decodeFeedCursor, decodeSubscriptionCursor, encodeFeedCursor, encodeSubscriptionCursor } from "./notification-keys.js";
import type { Database } from "./schema.js";
import { ChainEventWrites, inBlockOrder, type HeldScan } from "./chain-event-writes.js";

type SubscriptionRow = Selectable<Database["subscriptions"]>;
type FeedRow = Selectable<Database["chain_event_feed"]>;

const iso = (value: number | string): string => new Date(Number(value)).toISOString();
const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

/**
 * Chain notifications (core/notifications/types.ts) over the same Kysely database as the operations: subscriptions, the
 * per-pair scan with its lease, the events found, and their feed. Deliveries go to the webhook outbox in the commit's
 * transaction, and the webhook worker is kicked once it committed.
 */
export class KyselyNotificationStore implements NotificationStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly d: DialectSql,
    private readonly outbox: { queuedCommitted(): void },
  ) {
    this.writes = new ChainEventWrites(d);
  }

  private readonly writes: ChainEventWrites;

  private toSubscription(row: SubscriptionRow): SubscriptionRecord {
    return {
      id: row.id,
      apiKeyId: row.api_key_id,
      chain: row.chain,
      network: row.network,
      target: this.d.readJson<SubscriptionTarget>(row.target)!,
      confirmations: Number(row.confirmations),
      fromBlock: num(row.from_block),
      startBlock: Number(row.start_block),
      backfillNext: num(row.backfill_next),
      createdAt: iso(row.created_at),
    };
  }

  private toDelivered(row: FeedRow): DeliveredChainEvent {
    return {
      id: row.event_id,
      type: row.type as ChainEventType,
      createdAt: iso(row.created_at),
      data: this.d.readJson<DeliveredChainEvent["data"]>(row.payload)!,
    };
  }

  // Subscriptions

  async createSubscription(subscription: NewSubscription): Promise<SubscriptionRecord> {
    return this.db.transaction().execute(async (trx) => {
      const scan = await trx
        .selectFrom("chain_scans")
        .select("next_block")
        .where("chain", "=", subscription.chain)
        .where("network", "=", subscription.network)
        .executeTakeFirst();
      const cursor = num(scan?.next_block ?? null);
      const { fromBlock } = subscription;
      // Below the pair's cursor: the pair's scan does not go back for it, its own backfill does.
      const backfillNext = fromBlock !== null && cursor !== null && fromBlock < cursor ? fromBlock : null;
      const row = await trx
        .insertInto("subscriptions")
        .values({
          id: subscription.id,
          api_key_id: subscription.apiKeyId,
          chain: subscription.chain,
          network: subscription.network,
          target: JSON.stringify(subscription.target),
          confirmations: subscription.confirmations,
          from_block: fromBlock,
          start_block: subscription.startBlock,
          backfill_next: backfillNext,
          created_at: this.d.nowMs,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return this.toSubscription(row);
    });
  }

  private ofKey(apiKeyId: string | null) {
    return this.db.selectFrom("subscriptions").where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId);
  }

  async listSubscriptions(apiKeyId: string | null, options: { limit: number; cursor?: string }): Promise<SubscriptionPage> {
    const { limit } = options;
    checkLimit(limit);
    let query = this.ofKey(apiKeyId)
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1);
    if (options.cursor !== undefined) query = query.where(afterCursor(decodeSubscriptionCursor(options.cursor)));
    const rows = await query.execute();
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => this.toSubscription(row)),
      nextCursor: rows.length > limit && last ? encodeSubscriptionCursor(String(last.created_at), last.id) : null,
    };
  }

  async getSubscription(apiKeyId: string | null, id: string): Promise<SubscriptionRecord | undefined> {
    const row = await this.ofKey(apiKeyId).selectAll().where("id", "=", id).executeTakeFirst();
    return row === undefined ? undefined : this.toSubscription(row);
  }

  async deleteSubscription(apiKeyId: string | null, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx
        .selectFrom("subscriptions")
        .select(["chain", "network"])
        .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
        .where("id", "=", id)
        .executeTakeFirst();
      if (owned === undefined) return false;
      // PostgreSQL: the pair's scan row first, as a commit or a rewind locks it before it writes the subscription's
      // events and feed rows: one waits for the other, they never deadlock over the rows both write.
      if (this.d.name === "postgres") {
        await trx
          .selectFrom("chain_scans")
          .select("chain")
          .where("chain", "=", owned.chain)
          .where("network", "=", owned.network)
          .forUpdate()
          .execute();
      }
      // SQLite does not enforce the foreign keys' cascade: deleted here on both.
      await trx.deleteFrom("chain_event_feed").where("subscription_id", "=", id).execute();
      await trx.deleteFrom("chain_events").where("subscription_id", "=", id).execute();
      const deleted = await trx
        .deleteFrom("subscriptions")
        .where("id", "=", id)
        .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
        .executeTakeFirst();
      // Deleted meanwhile by another request: that one answered true.
      return Number(deleted.numDeletedRows) > 0;
    });
  }

  async subscriptionsOf(chain: string, network: string): Promise<SubscriptionRecord[]> {
    const rows = await this.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("chain", "=", chain)
      .where("network", "=", network)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map((row) => this.toSubscription(row));
  }

  async watchedPairs(): Promise<Array<{ chain: string; network: string }>> {
    return this.db.selectFrom("subscriptions").select(["chain", "network"]).distinct().orderBy("chain").orderBy("network").execute();
  }

  async listEvents(
    apiKeyId: string | null,
    subscriptionId: string,
    options: { limit: number; after?: string },
  ): Promise<ChainEventPage | undefined> {
    const { limit } = options;
    checkLimit(limit);
    const after = options.after === undefined ? undefined : decodeFeedCursor(options.after, subscriptionId);
    if ((await this.getSubscription(apiKeyId, subscriptionId)) === undefined) return undefined;
    const rows = await this.db
      .selectFrom("chain_event_feed")
      .selectAll()
      .where("subscription_id", "=", subscriptionId)
      .$if(after !== undefined, (query) => query.where("seq", ">", after!))
      .orderBy("seq")
      .limit(limit)
      .execute();
    const last = rows.at(-1);
    return {
      items: rows.map((row) => this.toDelivered(row)),
      nextCursor: last === undefined ? null : encodeFeedCursor(subscriptionId, String(last.seq)),
    };
  }

  // The scan

  async leaseScan(chain: string, network: string, owner: string, leaseMs: number): Promise<ScanLease | undefined> {
    const now = this.d.nowMs;
    const until = sql<number>`${now} + ${Math.round(leaseMs)}`;
    // One statement: the first lease inserts the row, a later one takes it only if free, run out, or already ours.
    // Two replicas racing for it: one insert or update wins, the other's condition fails on the row as committed.
    const taken = await this.db
      .insertInto("chain_scans")
      .values({ chain, network, next_block: null, lease_owner: owner, lease_until: until, updated_at: now })
      .onConflict((conflict) =>
        conflict
          .columns(["chain", "network"])
          .doUpdateSet({ lease_owner: owner, lease_until: until, updated_at: now })
          .where((eb) =>
            eb.or([
              eb("chain_scans.lease_owner", "is", null),
              eb("chain_scans.lease_until", "<", now),
              eb("chain_scans.lease_owner", "=", owner),
            ]),
          ),
      )
      .returning("next_block")
      .executeTakeFirst();
    if (taken === undefined) return undefined;
    const recent = await this.db
      .selectFrom("scanned_blocks")
      .select(["number", "hash"])
      .where("chain", "=", chain)
      .where("network", "=", network)
      .orderBy("number")
      .execute();
    return { nextBlock: num(taken.next_block), recent: recent.map((row) => ({ number: Number(row.number), hash: row.hash })) };
  }

  async releaseScan(chain: string, network: string, owner: string): Promise<void> {
    await this.db
      .updateTable("chain_scans")
      .set({ lease_owner: null, lease_until: null, updated_at: this.d.nowMs })
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("lease_owner", "=", owner)
      .execute();
  }

  /** The pair's scan row, locked for the transaction, while `owner` holds its lease; undefined when it lost it. */
  private async heldScan(trx: Kysely<Database>, chain: string, network: string, owner: string): Promise<HeldScan | undefined> {
    const row = await trx
      .selectFrom("chain_scans")
      .select(["next_block", "feed_seq"])
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("lease_owner", "=", owner)
      // PostgreSQL: a takeover waits for this commit (SQLite's write transactions take the one write lock up front).
      .$if(this.d.name === "postgres", (query) => query.forUpdate())
      .executeTakeFirst();
    return row === undefined ? undefined : { nextBlock: num(row.next_block), feedSeq: Number(row.feed_seq) };
  }

  async commitScan(
    chain: string,
    network: string,
    owner: string,
    scan: { blocks: ScannedHash[]; found: FoundEvent[]; nextBlock: number; head: number; backfill?: { subscriptionId: string } },
  ): Promise<boolean> {
    const queued = await this.db.transaction().execute(async (trx) => {
      const held = await this.heldScan(trx, chain, network, owner);
      if (held === undefined) return undefined;
      const delivered = await this.writes.insertFound(trx, chain, network, scan.found, scan.head);
      if (scan.backfill !== undefined) {
        // Done once it reached the pair's cursor (or the pair has none: its first scan starts at the lowest start).
        const done = held.nextBlock === null || scan.nextBlock >= held.nextBlock;
        await trx
          .updateTable("subscriptions")
          .set({ backfill_next: done ? null : scan.nextBlock })
          .where("id", "=", scan.backfill.subscriptionId)
          .where("chain", "=", chain)
          .where("network", "=", network)
          .execute();
      } else {
        await this.writes.keepHashes(trx, chain, network, scan.blocks);
      }
      // Events held by earlier commits that the head now confirms enough.
      const due = await trx
        .updateTable("chain_events")
        .set({ status: "delivered", confirmations: sql<number>`cast(${scan.head} - block_number + 1 as integer)` })
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("status", "=", "held")
        .where("due_at", "<=", scan.head)
        .returningAll()
        .execute();
      const entries = inBlockOrder([
        ...due.map((row) => ({ blockNumber: Number(row.block_number), position: row.position, entry: this.writes.entryOf(row, false) })),
        ...delivered,
      ]);
      const count = await this.writes.writeFeed(trx, held, entries);
      await trx
        .updateTable("chain_scans")
        .set({
          ...(scan.backfill === undefined ? { next_block: scan.nextBlock } : {}),
          feed_seq: held.feedSeq,
          updated_at: this.d.nowMs,
        })
        .where("chain", "=", chain)
        .where("network", "=", network)
        .execute();
      return count;
    });
    if (queued === undefined) return false;
    if (queued > 0) this.outbox.queuedCommitted();
    return true;
  }

  async rewindScan(chain: string, network: string, owner: string, ancestor: number): Promise<boolean> {
    const queued = await this.db.transaction().execute(async (trx) => {
      const held = await this.heldScan(trx, chain, network, owner);
      if (held === undefined) return undefined;
      await trx
        .deleteFrom("scanned_blocks")
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("number", ">", ancestor)
        .execute();
      await trx
        .deleteFrom("chain_events")
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("status", "=", "held")
        .where("block_number", ">", ancestor)
        .execute();
      const removed = await trx
        .updateTable("chain_events")
        .set({ status: "removed" })
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("status", "=", "delivered")
        .where("block_number", ">", ancestor)
        .returningAll()
        .execute();
      const count = await this.writes.writeFeed(
        trx,
        held,
        inBlockOrder(
          removed.map((row) => ({ blockNumber: Number(row.block_number), position: row.position, entry: this.writes.entryOf(row, true) })),
        ),
      );
      // A backfill that went past the new cursor is done: the pair's scan goes over those blocks again, for it too.
      await trx
        .updateTable("subscriptions")
        .set({ backfill_next: null })
        .where("chain", "=", chain)
        .where("network", "=", network)
        .where("backfill_next", ">=", ancestor + 1)
        .execute();
      await trx
        .updateTable("chain_scans")
        .set({ next_block: ancestor + 1, feed_seq: held.feedSeq, updated_at: this.d.nowMs })
        .where("chain", "=", chain)
        .where("network", "=", network)
        .execute();
      return count;
    });
    if (queued === undefined) return false;
    if (queued > 0) this.outbox.queuedCommitted();
    return true;
  }
}
