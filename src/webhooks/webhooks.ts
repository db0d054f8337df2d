import type { WebhookEvent } from "./events.js";
import { newWebhookSecret } from "./signature.js";
import type { TargetGuard } from "./target-guard.js";
import type { DeliveryPage, WebhookRecord, WebhookStore } from "./types.js";

/** Webhook subscriptions of an API key; every call is scoped to that key (another key's webhook does not exist for it). */
export class Webhooks {
  constructor(
    private readonly store: WebhookStore,
    private readonly guard: TargetGuard,
  ) {}

  /** Checks the URL (scheme, and no private target unless allowed) and answers the new webhook with its secret, once. */
  async register(
    apiKeyId: string | null,
    request: { url: string; events: readonly WebhookEvent[] },
  ): Promise<WebhookRecord & { secret: string }> {
    const url = await this.guard.checkRegistration(request.url);
    const secret = newWebhookSecret();
    const webhook = await this.store.createWebhook(apiKeyId, { url, events: request.events, secret });
    return { ...webhook, secret };
  }

  list(apiKeyId: string | null): Promise<WebhookRecord[]> {
    return this.store.listWebhooks(apiKeyId);
  }

  get(apiKeyId: string | null, id: string): Promise<WebhookRecord | undefined> {
    return this.store.getWebhook(apiKeyId, id);
  }

  remove(apiKeyId: string | null, id: string): Promise<boolean> {
    return this.store.deleteWebhook(apiKeyId, id);
  }

  deliveries(apiKeyId: string | null, id: string, page: { limit: number; cursor?: string }): Promise<DeliveryPage | undefined> {
    return this.store.listDeliveries(apiKeyId, id, page);
  }
}
