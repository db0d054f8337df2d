import { sql, type Kysely, type Selectable } from "kysely";

import type { ChainEvent } from "../core/notifications/match.js";
import type { ChainEventType, DeliveredChainEvent, FoundEvent, ScannedHash } from "../core/notifications/types.js";
import type { DialectSql } from "./dialect.js";
import { deliveryId, feedId } from "./notification-keys.js";
import type { Database } from "./schema.js";

// What a scan's commit (and a rewind) writes inside the pair's transaction (notification-store.ts holds the
// transaction and the lease): the events found, the hashes of the blocks scanned, the feed entries at the pair's next
// positions, and a delivery per entry for each webhook that takes it.

/** The hashes kept per pair: a reorg deeper than this is not seen by its hashes. */
const KEPT_BLOCKS = 128;
/** Rows per insert statement: well under either database's limit on parameters. */
const CHUNK = 400;

type EventRow = Selectable<Database["chain_events"]>;

/** What one commit writes to the feed and queues: an event delivered, or its removal. */
export interface FeedEntry {
  subscriptionId: string;
  eventId: string;
  type: ChainEventType;
  blockHash: string;
  revision: number;
  data: DeliveredChainEvent["data"];
}

/** The pair's scan row, as the lease holder's transaction locked it. */
export interface HeldScan {
  nextBlock: number | null;
  /** The last feed position given out; moved up by the entries this transaction writes. */
  feedSeq: number;
}

/** A feed entry with where its event is in the chain, to put a commit's entries in block order. */
export interface OrderedEntry {
  blockNumber: number;
  position: number;
  entry: FeedEntry;
}

/** Block order: by block, then the order they were found in, then by id. */
export function inBlockOrder(entries: OrderedEntry[]): FeedEntry[] {
  return entries
    .sort(
      (a, b) =>
        a.blockNumber - b.blockNumber ||
        a.position - b.position ||
        (a.entry.eventId < b.entry.eventId ? -1 : a.entry.eventId > b.entry.eventId ? 1 : 0),
    )
    .map((ordered) => ordered.entry);
}

export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) out.push(items.slice(start, start + CHUNK));
  return out;
}

export class ChainEventWrites {
  constructor(private readonly d: DialectSql) {}

  /**
   * Writes the events found, each once: an id already there is left as it is, unless a reorg removed it after its
   * delivery (then it is found again, in its new block, under a new revision). An event the head already confirms
   * enough is written delivered, and answered for the feed (a backfill's are all due: writing them held and delivering
   * them by a second statement cost each event an update and a read of its row back); the others are held until a
   * later commit finds them due. Events of a subscription deleted since the scan read its list are dropped.
   */
  async insertFound(
    trx: Kysely<Database>,
    chain: string,
    network: string,
    found: readonly FoundEvent[],
    head: number,
  ): Promise<OrderedEntry[]> {
    if (found.length === 0) return [];
    const ids = [...new Set(found.map((entry) => entry.event.subscriptionId))];
    const live = new Set<string>();
    for (const part of chunks(ids)) {
      // A delete waits for this transaction (it locks the pair's scan row first), or went before it: none is half seen.
      const rows = await trx
        .selectFrom("subscriptions")
        .select("id")
        .where("id", "in", part)
        .where("chain", "=", chain)
        .where("network", "=", network)
        .execute();
      for (const row of rows) live.add(row.id);
    }
    const kept = found
      .map((entry, position) => ({ ...entry, position, confirmations: entry.dueAt <= head ? head - entry.event.blockNumber + 1 : null }))
      .filter((entry) => live.has(entry.event.subscriptionId));
    const byId = new Map(kept.map((entry) => [entry.event.id, entry]));
    const delivered: OrderedEntry[] = [];
    for (const part of chunks(kept)) {
      const written = await trx
        .insertInto("chain_events")
        .values(
          part.map(({ event, dueAt, position, confirmations }) => ({
            id: event.id,
            subscription_id: event.subscriptionId,
            chain,
            network,
            block_number: event.blockNumber,
            block_hash: event.blockHash,
            position,
            due_at: dueAt,
            type: event.type,
            payload: JSON.stringify(event),
            status: confirmations === null ? ("held" as const) : ("delivered" as const),
            confirmations,
            created_at: this.d.nowMs,
          })),
        )
        .onConflict((conflict) =>
          conflict
            .column("id")
            .doUpdateSet((eb) => ({
              block_number: eb.ref("excluded.block_number"),
              block_hash: eb.ref("excluded.block_hash"),
              position: eb.ref("excluded.position"),
              due_at: eb.ref("excluded.due_at"),
              payload: eb.ref("excluded.payload"),
              status: eb.ref("excluded.status"),
              confirmations: eb.ref("excluded.confirmations"),
              revision: sql<number>`chain_events.revision + 1`,
            }))
            .where("chain_events.status", "=", "removed"),
        )
        // The rows inserted or found again; an id already there and not removed answers nothing.
        .returning(["id", "revision"])
        .execute();
      for (const row of written) {
        const entry = byId.get(row.id)!;
        if (entry.confirmations === null) continue;
        delivered.push({
          blockNumber: entry.event.blockNumber,
          position: entry.position,
          entry: {
            subscriptionId: entry.event.subscriptionId,
            eventId: entry.event.id,
            type: entry.event.type,
            blockHash: entry.event.blockHash,
            revision: Number(row.revision),
            data: { ...entry.event, confirmations: entry.confirmations },
          },
        });
      }
    }
    return delivered;
  }

  /** The blocks' hashes (a block scanned again after a reorg takes its new hash), the newest KEPT_BLOCKS only. */
  async keepHashes(trx: Kysely<Database>, chain: string, network: string, blocks: readonly ScannedHash[]): Promise<void> {
    if (blocks.length === 0) return;
    for (const part of chunks(blocks)) {
      await trx
        .insertInto("scanned_blocks")
        .values(part.map((block) => ({ chain, network, number: block.number, hash: block.hash })))
        .onConflict((conflict) => conflict.columns(["chain", "network", "number"]).doUpdateSet((eb) => ({ hash: eb.ref("excluded.hash") })))
        .execute();
    }
    const oldestKept = trx
      .selectFrom("scanned_blocks")
      .select("number")
      .where("chain", "=", chain)
      .where("network", "=", network)
      .orderBy("number", "desc")
      .limit(1)
      .offset(KEPT_BLOCKS - 1);
    // Fewer kept than that: the subquery is null, and nothing is below null.
    await trx
      .deleteFrom("scanned_blocks")
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("number", "<", oldestKept)
      .execute();
  }

  entryOf(row: EventRow, removal: boolean): FeedEntry {
    const event = this.d.readJson<ChainEvent>(row.payload)!;
    return {
      subscriptionId: row.subscription_id,
      eventId: row.id,
      type: removal ? `${row.type}.removed` : row.type,
      blockHash: row.block_hash,
      revision: Number(row.revision),
      data: { ...event, confirmations: Number(row.confirmations) },
    };
  }

  /**
   * Writes the entries to the feed, in order, at the pair's next positions (moving `held.feedSeq`), and queues each for
   * every webhook of its subscription's API key that takes its type (a removal: its type or the event's). Ids are fixed
   * by the entry (and the webhook): written twice, they are there once. Answers how many deliveries it queued.
   */
  async writeFeed(trx: Kysely<Database>, held: HeldScan, entries: FeedEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const feed = entries.map((entry) => ({
      entry,
      id: feedId(entry.eventId, entry.blockHash, entry.type.endsWith(".removed"), entry.revision),
      seq: ++held.feedSeq,
      // The feed's and every delivery's payload: serialised once.
      payload: JSON.stringify(entry.data),
    }));
    for (const part of chunks(feed)) {
      await trx
        .insertInto("chain_event_feed")
        .values(
          part.map(({ entry, id, seq, payload }) => ({
            id,
            subscription_id: entry.subscriptionId,
            event_id: entry.eventId,
            type: entry.type,
            seq,
            payload,
            created_at: this.d.nowMs,
          })),
        )
        .onConflict((conflict) => conflict.column("id").doNothing())
        .execute();
    }

    const webhooks = await this.webhooksOf(trx, [...new Set(entries.map((entry) => entry.subscriptionId))]);
    const deliveries = feed.flatMap(({ entry, id, payload }) => {
      const base = entry.type.replace(/\.removed$/, "");
      return (webhooks.get(entry.subscriptionId) ?? [])
        .filter((webhook) => webhook.events.includes(entry.type) || webhook.events.includes(base))
        .map((webhook) => ({
          id: deliveryId(webhook.id, id),
          webhook_id: webhook.id,
          event_type: entry.type,
          operation_id: entry.subscriptionId,
          payload,
          status: "pending" as const,
          next_attempt_at: this.d.nowMs,
          created_at: this.d.nowMs,
        }));
    });
    let queued = 0;
    for (const part of chunks(deliveries)) {
      const result = await trx
        .insertInto("webhook_deliveries")
        .values(part)
        .onConflict((conflict) => conflict.column("id").doNothing())
        .executeTakeFirst();
      queued += Number(result.numInsertedOrUpdatedRows ?? 0n);
    }
    return queued;
  }

  /** The webhooks of each subscription's API key (keyless subscriptions: the keyless webhooks), with their events. */
  private async webhooksOf(
    trx: Kysely<Database>,
    subscriptionIds: string[],
  ): Promise<Map<string, Array<{ id: string; events: string[] }>>> {
    const owners = new Map<string, string | null>();
    for (const part of chunks(subscriptionIds)) {
      const rows = await trx.selectFrom("subscriptions").select(["id", "api_key_id"]).where("id", "in", part).execute();
      for (const row of rows) owners.set(row.id, row.api_key_id);
    }
    const keys = [...new Set(owners.values())];
    const named = keys.filter((key): key is string => key !== null);
    const rows = await trx
      .selectFrom("webhooks")
      .select(["id", "api_key_id", "events"])
      .where((eb) => {
        const either = [];
        if (named.length > 0) either.push(eb("api_key_id", "in", named));
        if (keys.includes(null)) either.push(eb("api_key_id", "is", null));
        return either.length === 0 ? eb.lit(false) : eb.or(either);
      })
      .orderBy("id")
      .execute();
    const byKey = new Map<string | null, Array<{ id: string; events: string[] }>>();
    for (const row of rows) {
      const list = byKey.get(row.api_key_id) ?? [];
      list.push({ id: row.id, events: this.d.readJson<string[]>(row.events) ?? [] });
      byKey.set(row.api_key_id, list);
    }
    return new Map([...owners].map(([subscription, key]) => [subscription, byKey.get(key) ?? []]));
  }
}
