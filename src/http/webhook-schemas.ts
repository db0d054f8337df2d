import { z } from "zod/v4";

import { WEBHOOK_EVENTS } from "../webhooks/events.js";
import { Operation } from "./operation-schemas.js";

// The shapes of webhooks, their deliveries and the event body a webhook receives (routes/webhooks.ts). What only
// answers or documents is z.lazy: built on the first /openapi.json, not at start-up (operation-schemas.ts).

const WebhookEventName = z.enum(WEBHOOK_EVENTS);

export const CreateWebhookBody = z.strictObject({
  url: z
    .string()
    .max(2048)
    .describe("http or https; private, loopback and link-local targets are refused unless the service allows them")
    .meta({ examples: ["https://example.com/hooks/token-service"] }),
  events: z
    .array(WebhookEventName)
    .min(1)
    .max(WEBHOOK_EVENTS.length * 4)
    .describe("The operation state changes, and the chain events of your subscriptions (chain.*), to receive"),
});

const webhook = () =>
  z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(WebhookEventName),
    createdAt: z.string(),
  });

export const Webhook = z.lazy(webhook);

export const CreatedWebhook = z.lazy(() =>
  webhook().extend({
    secret: z.string().describe("Signs every delivery (Token-Service-Signature); shown only in this answer"),
  }),
);

export const WebhookList = z.lazy(() => z.object({ items: z.array(Webhook) }));

export const DeliveryList = z.lazy(() =>
  z.object({
    items: z.array(
      z.object({
        id: z.string().describe("The event id: the Webhook-Id header of each attempt; de-duplicate by it"),
        eventType: WebhookEventName,
        operationId: z.string(),
        status: z.enum(["pending", "delivered", "failed"]),
        attempts: z
          .number()
          .int()
          .nonnegative()
          .describe("Attempts started, one a crash cut short included (it may have reached the receiver)"),
        lastError: z.string().nullable(),
        lastResponseStatus: z.number().int().nonnegative().nullable(),
        nextAttemptAt: z.string().nullable().describe("While pending: when the next attempt is due"),
        createdAt: z.string(),
        deliveredAt: z.string().nullable(),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
);

/** What a webhook receives: one operation state change, as POST body. */
export const WebhookEventBody = z.lazy(() =>
  z.object({
    id: z.string().describe("The event id, also sent as the Webhook-Id header: the same event may arrive more than once"),
    type: WebhookEventName,
    createdAt: z.string().describe("When the state change was recorded"),
    data: Operation.describe("The operation after the change, as GET /api/v1/tokens lists it"),
  }),
);
