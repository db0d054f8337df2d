import { randomUUID } from "node:crypto";

import { PollingLoop } from "../domain/polling-loop.js";
import { postEvent } from "./post-event.js";
import { SIGNATURE_HEADER, signatureHeader } from "./signature.js";
import type { TargetGuard } from "./target-guard.js";
import type { DueDelivery, WebhookStore } from "./types.js";

export interface DeliverySettings {
  /** How long one attempt may take, connection included. */
  timeoutMs: number;
  /** How long after the event it is retried; then it is marked failed. */
  retryWindowMs: number;
  /** The first retry's upper bound; each later one doubles it, up to `maxBackoffMs` (full jitter below the bound). */
  firstBackoffMs: number;
  maxBackoffMs: number;
  /** How often an idle worker looks for deliveries queued by other processes (replicas, tasks). */
  pollMs: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  timeoutMs: 10_000,
  retryWindowMs: 24 * 3_600_000,
  firstBackoffMs: 5_000,
  maxBackoffMs: 3_600_000,
  pollMs: 1_000,
};

/** Where the worker reports; a pino logger is one. Never given a secret or a target URL (it may carry a token). */
export interface DeliveryLog {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Attempts in flight at once per process: a receiver that hangs holds one of them, not the others' deliveries. */
const MAX_IN_FLIGHT = 32;

/** Exponential backoff with full jitter: a random wait below min(max, first × 2^(attempt−1)). */
export function backoffMs(attempt: number, settings: Pick<DeliverySettings, "firstBackoffMs" | "maxBackoffMs">): number {
  const bound = Math.min(settings.maxBackoffMs, settings.firstBackoffMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(Math.random() * bound);
}

/** The JSON a receiver gets: `data` is the operation as GET /tokens presents it, at the moment of the change. */
export function eventBody(delivery: Pick<DueDelivery, "id" | "eventType" | "createdAt" | "payload">): string {
  return JSON.stringify({ id: delivery.id, type: delivery.eventType, createdAt: delivery.createdAt, data: delivery.payload });
}

/**
 * Sends queued webhook deliveries: leases due ones (one replica per delivery at a time), POSTs each signed, and
 * records the outcome. Kicked when this process queues events; polls for those other processes queued.
 */
export class DeliveryWorker {
  readonly owner = `webhooks-${randomUUID()}`;
  /** Again at once while a pass fills every free slot; kicked when this process queues events. */
  private readonly loop = new PollingLoop(
    async () => {
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      const claimed = await this.runOnce();
      return claimed > 0 && claimed === room;
    },
    () => this.settings.pollMs,
    // The store is unreachable: the deliveries wait in it, nothing is lost.
    (error) => this.onError(error),
  );
  private readonly inFlight = new Set<Promise<void>>();
  private abort = new AbortController();

  constructor(
    private readonly store: WebhookStore,
    private readonly guard: TargetGuard,
    private readonly settings: DeliverySettings,
    private readonly log?: DeliveryLog,
  ) {}

  private onError(error: unknown): void {
    this.log?.warn({ err: (error as Error).message }, "could not deliver webhooks yet");
  }

  start(): void {
    if (this.abort.signal.aborted) this.abort = new AbortController();
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    // Attempts cut short are not counted: their deliveries are sent again (at least once), by whoever takes them.
    this.abort.abort();
    await Promise.all(this.inFlight);
    // Deliveries this process held go to the other replicas now, not at lease end.
    await this.store.releaseDeliveryLeases(this.owner).catch(() => undefined);
  }

  /** Leases what is due, as far as there is room, and starts each attempt without waiting for it; answers how many. */
  async runOnce(): Promise<number> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return 0;
    // Longer than an attempt can take, so that no other replica sends the same delivery meanwhile.
    const leaseMs = this.settings.timeoutMs * 2 + 5_000;
    const due = await this.store.leaseDueDeliveries(this.owner, leaseMs, room);
    for (const delivery of due) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) => this.onError(error))
        .finally(() => {
          this.inFlight.delete(attempt);
          // A full worker left due deliveries behind: look again now that there is room.
          if (this.inFlight.size === MAX_IN_FLIGHT - 1) this.kick();
        });
      this.inFlight.add(attempt);
    }
    return due.length;
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const body = eventBody(delivery);
    const outcome = await postEvent(
      delivery.url,
      body,
      {
        "Content-Type": "application/json",
        "User-Agent": "hardhat-token-service-webhooks",
        "Webhook-Id": delivery.id,
        [SIGNATURE_HEADER]: signatureHeader(delivery.secret, body),
      },
      this.guard,
      this.settings.timeoutMs,
      this.abort.signal,
    );
    if (this.abort.signal.aborted) return;
    this.log?.debug(
      { delivery: delivery.id, webhook: delivery.webhookId, type: delivery.eventType, status: outcome.status, error: outcome.error },
      "webhook delivery attempted",
    );
    await this.store.finishDelivery(
      delivery.id,
      this.owner,
      outcome.error === undefined
        ? { delivered: true, responseStatus: outcome.status! }
        : {
            delivered: false,
            error: outcome.error,
            responseStatus: outcome.status,
            retryInMs: backoffMs(delivery.attempts + 1, this.settings),
            windowMs: this.settings.retryWindowMs,
          },
    );
  }
}
