import type { WebhookEvent } from "./events.js";

export interface WebhookRecord {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One event for one webhook, as listed to its owner. */
export interface DeliveryRecord {
  /** The event id a receiver de-duplicates by (the Webhook-Id header). */
  id: string;
  eventType: WebhookEvent;
  operationId: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A delivery a worker holds the lease of, with what it needs to send it. */
export interface DueDelivery {
  id: string;
  webhookId: string;
  url: string;
  secret: string;
  eventType: WebhookEvent;
  /** The operation as it was at the change, presented as GET /tokens lists it. */
  payload: unknown;
  createdAt: string;
  attempts: number;
}

export type DeliveryOutcome =
  | { delivered: true; responseStatus: number }
  | {
      delivered: false;
      error: string;
      responseStatus: number | null;
      /** When to try again; the delivery fails instead when that is past `windowMs` from its creation. */
      retryInMs: number;
      windowMs: number;
    };

export interface DeliveryPage {
  items: DeliveryRecord[];
  nextCursor: string | null;
}

/** Subscriptions and their outbox; the HTTP service's SQL store implements it (the in-memory store has no webhooks). */
export interface WebhookStore {
  createWebhook(apiKeyId: string | null, webhook: { url: string; events: readonly WebhookEvent[]; secret: string }): Promise<WebhookRecord>;
  listWebhooks(apiKeyId: string | null): Promise<WebhookRecord[]>;
  getWebhook(apiKeyId: string | null, id: string): Promise<WebhookRecord | undefined>;
  /** Removes the webhook and its deliveries; false when the key has no such webhook. */
  deleteWebhook(apiKeyId: string | null, id: string): Promise<boolean>;
  /** Newest first; undefined when the key has no such webhook. */
  listDeliveries(
    apiKeyId: string | null,
    webhookId: string,
    options: { limit: number; cursor?: string },
  ): Promise<DeliveryPage | undefined>;
  /** Leases up to `limit` deliveries that are due, none another owner's lease holds. */
  leaseDueDeliveries(owner: string, leaseMs: number, limit: number): Promise<DueDelivery[]>;
  /** Records an attempt's outcome while `owner`'s lease holds, and ends the lease. */
  finishDelivery(id: string, owner: string, outcome: DeliveryOutcome): Promise<void>;
  releaseDeliveryLeases(owner: string): Promise<void>;
  /** Called after a commit that queued deliveries (a state change with subscribers). */
  onQueued(listener: () => void): void;
}
