import { randomUUID } from "node:crypto";

import { sql, type Kysely, type Selectable } from "kysely";

import { invalidArgument } from "../domain/errors.js";
import type { OperationRecord } from "../core/operations/types.js";
import type { WebhookEvent } from "../webhooks/events.js";
import type { DeliveryOutcome, DeliveryPage, DeliveryRecord, DueDelivery, WebhookRecord, WebhookStore } from "../webhooks/types.js";
import { presentOperation } from "../domain/present-operation.js";
import { leaseDueRows } from "./due-leases.js";
import type { DialectSql } from "./dialect.js";
import { afterCursor, decodeOperationCursor, newestFirstPage } from "./operation-cursor.js";
import type { Database } from "./schema.js";

const MAX_PAGE_SIZE = 100;

const iso = (value: number | string | null): string | null => (value === null ? null : new Date(Number(value)).toISOString());

type DeliveryRow = Selectable<Database["webhook_deliveries"]>;

/** Webhook subscriptions and their outbox, over the same Kysely database as the operations. */
export class KyselyWebhookStore implements WebhookStore {
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly d: DialectSql,
  ) {}

  onQueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** For the operation store, after a commit that queued deliveries. */
  queuedCommitted(): void {
    for (const listener of this.listeners) listener();
  }

  /**
   * Writes the event for every subscription of the record's API key, in the caller's transaction (the state change's):
   * one insert … select, which inserts nothing for a key without subscribers. Answers how many deliveries it queued.
   */
  async queue(trx: Kysely<Database>, event: WebhookEvent, record: OperationRecord): Promise<number> {
    const payload = JSON.stringify(presentOperation(record));
    const now = this.d.nowMs;
    const result = await trx
      .insertInto("webhook_deliveries")
      .columns(["id", "webhook_id", "event_type", "operation_id", "payload", "status", "next_attempt_at", "created_at"])
      .expression((eb) =>
        eb
          .selectFrom("webhooks")
          .select([
            this.d.randomUuid.as("id"),
            "webhooks.id as webhook_id",
            sql<string>`${event}`.as("event_type"),
            sql<string>`${record.id}`.as("operation_id"),
            sql`cast(${payload} as ${sql.raw(this.d.jsonType)})`.as("payload"),
            sql<string>`'pending'`.as("status"),
            now.as("next_attempt_at"),
            now.as("created_at"),
          ])
          .where("api_key_id", record.apiKeyId === null ? "is" : "=", record.apiKeyId)
          .where(this.d.jsonArrayHas("events", event)),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  private toWebhook(row: { id: string; url: string; events: unknown; created_at: number | string }): WebhookRecord {
    return {
      id: row.id,
      url: row.url,
      events: this.d.readJson<WebhookEvent[]>(row.events) ?? [],
      createdAt: iso(row.created_at)!,
    };
  }

  async createWebhook(
    apiKeyId: string | null,
    webhook: { url: string; events: readonly WebhookEvent[]; secret: string },
  ): Promise<WebhookRecord> {
    const row = await this.db
      .insertInto("webhooks")
      .values({
        id: randomUUID(),
        api_key_id: apiKeyId,
        url: webhook.url,
        events: JSON.stringify([...new Set(webhook.events)]),
        secret: webhook.secret,
        created_at: this.d.nowMs,
      })
      .returning(["id", "url", "events", "created_at"])
      .executeTakeFirstOrThrow();
    return this.toWebhook(row);
  }

  private ofKey(apiKeyId: string | null) {
    return this.db.selectFrom("webhooks").where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId);
  }

  async listWebhooks(apiKeyId: string | null): Promise<WebhookRecord[]> {
    const rows = await this.ofKey(apiKeyId).select(["id", "url", "events", "created_at"]).orderBy("created_at").orderBy("id").execute();
    return rows.map((row) => this.toWebhook(row));
  }

  async getWebhook(apiKeyId: string | null, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.ofKey(apiKeyId).select(["id", "url", "events", "created_at"]).where("id", "=", id).executeTakeFirst();
    return row === undefined ? undefined : this.toWebhook(row);
  }

  async deleteWebhook(apiKeyId: string | null, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx
        .selectFrom("webhooks")
        .select("id")
        .where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId)
        .where("id", "=", id)
        .$if(this.d.name === "postgres", (query) => query.forUpdate())
        .executeTakeFirst();
      if (owned === undefined) return false;
      await trx.deleteFrom("webhook_deliveries").where("webhook_id", "=", id).execute();
      await trx.deleteFrom("webhooks").where("id", "=", id).execute();
      return true;
    });
  }

  private toDelivery(row: DeliveryRow): DeliveryRecord {
    return {
      id: row.id,
      eventType: row.event_type as WebhookEvent,
      operationId: row.operation_id,
      status: row.status,
      attempts: Number(row.attempts),
      lastError: row.last_error,
      lastResponseStatus: row.last_response_status === null ? null : Number(row.last_response_status),
      nextAttemptAt: row.status === "pending" ? iso(row.next_attempt_at) : null,
      createdAt: iso(row.created_at)!,
      deliveredAt: iso(row.delivered_at),
    };
  }

  async listDeliveries(
    apiKeyId: string | null,
    webhookId: string,
    options: { limit: number; cursor?: string },
  ): Promise<DeliveryPage | undefined> {
    const { limit } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    const after = options.cursor === undefined ? undefined : decodeOperationCursor(options.cursor);
    if ((await this.getWebhook(apiKeyId, webhookId)) === undefined) return undefined;
    let query = this.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("webhook_id", "=", webhookId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1);
    if (after !== undefined) query = query.where(afterCursor(after));
    return newestFirstPage(await query.execute(), limit, (row) => this.toDelivery(row));
  }

  async leaseDueDeliveries(owner: string, leaseMs: number, limit: number): Promise<DueDelivery[]> {
    const rows = await leaseDueRows(this.db, this.d, "webhook_deliveries", { owner, leaseMs, limit, countAttempt: true });
    if (rows.length === 0) return [];
    const webhooks = await this.db
      .selectFrom("webhooks")
      .select(["id", "url", "secret"])
      .where("id", "in", [...new Set(rows.map((row) => row.webhook_id))])
      .execute();
    const byId = new Map(webhooks.map((webhook) => [webhook.id, webhook]));
    return rows.flatMap((row) => {
      const webhook = byId.get(row.webhook_id);
      // Deleted meanwhile: its deliveries went with it.
      if (webhook === undefined) return [];
      return [
        {
          id: row.id,
          webhookId: row.webhook_id,
          url: webhook.url,
          secret: webhook.secret,
          eventType: row.event_type as WebhookEvent,
          payload: this.d.readJson(row.payload),
          createdAt: iso(row.created_at)!,
          // The attempts made before this one.
          attempts: Number(row.attempts) - 1,
        },
      ];
    });
  }

  async finishDelivery(id: string, owner: string, outcome: DeliveryOutcome): Promise<void> {
    const now = this.d.nowMs;
    const attempted = {
      last_response_status: outcome.responseStatus,
      lease_owner: null,
      lease_until: null,
    };
    const query = outcome.delivered
      ? this.db.updateTable("webhook_deliveries").set({
          ...attempted,
          status: "delivered",
          last_error: null,
          delivered_at: now,
          next_attempt_at: null,
        })
      : this.db.updateTable("webhook_deliveries").set(() => {
          const next = sql`${now} + ${Math.round(outcome.retryInMs)}`;
          // Past the retry window the delivery is final: failed, and listed so at /deliveries.
          const giveUp = sql<boolean>`${next} > ${sql.ref("created_at")} + ${Math.round(outcome.windowMs)}`;
          return {
            ...attempted,
            last_error: outcome.error,
            status: sql`case when ${giveUp} then 'failed' else 'pending' end`,
            next_attempt_at: sql`case when ${giveUp} then null else ${next} end`,
          };
        });
    await query.where("id", "=", id).where("lease_owner", "=", owner).where("status", "=", "pending").execute();
  }

  async releaseDeliveryLeases(owner: string): Promise<void> {
    await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: null, lease_until: null })
      .where("lease_owner", "=", owner)
      .execute();
  }
}
