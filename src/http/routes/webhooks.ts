import { defineRoute } from "../route.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";
import { CreatedWebhook, CreateWebhookBody, DeliveryList, Webhook, WebhookList } from "../webhook-schemas.js";
import { OperationListQuery } from "../operation-schemas.js";
import { errorResponses } from "./common.js";

const ID = { id: "The webhook's id" };

/** Ids are UUIDs: anything else is no webhook of yours, and never reaches the database. */
function webhookId(params: Record<string, string>): string {
  const id = params.id ?? "";
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) throw notFound();
  return id;
}

const notFound = () => new HttpError(HttpErrorCode.NOT_FOUND, "no webhook with this id for your API key");

export const createWebhookRoute = defineRoute({
  method: "post",
  paths: ["/webhooks"],
  operationId: "createWebhook",
  tag: "webhooks",
  summary: "Subscribe a URL to your operations' state changes",
  description:
    'Each event is POSTed as JSON `{id, type, createdAt, data}` (`data`: the operation as GET /tokens lists it) with headers `Webhook-Id` and `Token-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. Retried with backoff until a 2xx or the retry window ends. The `secret` is shown only here.',
  auth: true,
  body: CreateWebhookBody,
  bodyExamples: {
    finalStates: {
      summary: "Mined and failed operations, to a public HTTPS URL",
      value: { url: "https://example.com/hooks/token-service", events: ["operation.mined", "operation.failed"] },
    },
  },
  responses: { 201: { description: "Registered", schema: CreatedWebhook }, ...errorResponses(400, 401, 413, 415, 429) },
  async handle({ body, apiKeyId }, { webhooks }) {
    return { status: 201, body: await webhooks.register(apiKeyId, body) };
  },
});

export const listWebhooksRoute = defineRoute({
  method: "get",
  paths: ["/webhooks"],
  operationId: "listWebhooks",
  tag: "webhooks",
  summary: "Your API key's webhooks (without secrets)",
  auth: true,
  responses: { 200: { description: "The webhooks, oldest first", schema: WebhookList }, ...errorResponses(401, 429) },
  async handle({ apiKeyId }, { webhooks }) {
    return { body: { items: await webhooks.list(apiKeyId) } };
  },
});

export const getWebhookRoute = defineRoute({
  method: "get",
  paths: ["/webhooks/:id"],
  operationId: "getWebhook",
  tag: "webhooks",
  summary: "One of your webhooks (without its secret)",
  auth: true,
  pathParams: ID,
  responses: { 200: { description: "The webhook", schema: Webhook }, ...errorResponses(401, 404, 429) },
  async handle({ params, apiKeyId }, { webhooks }) {
    const webhook = await webhooks.get(apiKeyId, webhookId(params));
    if (webhook === undefined) throw notFound();
    return { body: webhook };
  },
});

export const deleteWebhookRoute = defineRoute({
  method: "delete",
  paths: ["/webhooks/:id"],
  operationId: "deleteWebhook",
  tag: "webhooks",
  summary: "Unsubscribe: the webhook and its deliveries are removed, undelivered events included",
  auth: true,
  pathParams: ID,
  responses: { 204: { description: "Removed" }, ...errorResponses(401, 404, 429) },
  async handle({ params, apiKeyId }, { webhooks }) {
    if (!(await webhooks.remove(apiKeyId, webhookId(params)))) throw notFound();
    return { status: 204, body: undefined };
  },
});

export const listDeliveriesRoute = defineRoute({
  method: "get",
  paths: ["/webhooks/:id/deliveries"],
  operationId: "listWebhookDeliveries",
  tag: "webhooks",
  summary: "A webhook's deliveries, newest first: pending, delivered, or failed after the retry window",
  description: "Pass `nextCursor` as `cursor` for the next page.",
  auth: true,
  pathParams: ID,
  query: OperationListQuery,
  responses: { 200: { description: "A page of deliveries", schema: DeliveryList }, ...errorResponses(400, 401, 404, 429) },
  async handle({ params, query, apiKeyId }, { webhooks }) {
    const page = await webhooks.deliveries(apiKeyId, webhookId(params), {
      limit: query.limit ?? 20,
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    if (page === undefined) throw notFound();
    return { body: page };
  },
});
