import type { Notifications } from "../../core/notifications/notifications.js";
import type { SubscriptionRecord } from "../../core/notifications/types.js";
import type { ServerContext } from "../context.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_PAIR } from "../examples.js";
import { HttpError, HttpErrorCode } from "../http-errors.js";
import { defineRoute } from "../route.js";
import {
  ChainEventPage,
  ChainEventQuery,
  CreateSubscriptionBody,
  Subscription,
  SubscriptionList,
  SubscriptionListQuery,
} from "../subscription-schemas.js";
import { errorResponses } from "./common.js";

// Chain notifications (docs/notifications.md): subscriptions of the API key, and the events they found.

const ID = { id: "The subscription's id" };

/** Ids are UUIDs: anything else is no subscription of yours, and never reaches the database. */
function subscriptionId(params: Record<string, string>): string {
  const id = params.id ?? "";
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) throw notFound();
  return id;
}

/** The public shape: no API key id (it is the caller's). */
function presentSubscription({ apiKeyId: _apiKeyId, ...subscription }: SubscriptionRecord) {
  return subscription;
}

const notFound = () => new HttpError(HttpErrorCode.NOT_FOUND, "no subscription with this id for your API key", "id");

/** The service's notifications: every served process has them (its store keeps them). */
function notificationsOf({ service }: ServerContext): Notifications {
  if (service.notifications === undefined) {
    throw new HttpError(HttpErrorCode.SERVICE_UNAVAILABLE, "this service keeps no chain notifications (it was started without a store)");
  }
  return service.notifications;
}

export const createSubscriptionRoute = defineRoute({
  method: "post",
  paths: ["/subscriptions"],
  operationId: "createSubscription",
  tag: "subscriptions",
  summary: "Subscribe to value moving to or from an address, or to a contract's events",
  description:
    "Exactly one of `address` (native currency and ERC-20, ERC-721 and ERC-1155 transfers to or from it, sent by anyone) or `contract` (its logs, decoded where `events` names their signatures). Each event found goes to your API key's webhooks subscribed to its type (`chain.activity`, `chain.event`) once its block has `confirmations`, and is listed by GET /subscriptions/{id}/events; a reorg that takes a delivered event's block away sends `chain.activity.removed` / `chain.event.removed` under the same id. Value moved by internal calls (a contract sending currency) is not seen. On Bitcoin an address subscription finds each output paying the address (`in`) and each transaction spending its coins (`out`).",
  auth: true,
  body: CreateSubscriptionBody,
  bodyExamples: {
    deposits: { summary: "Deposits to and withdrawals from an address", value: { ...EXAMPLE_PAIR, address: EXAMPLE_ACCOUNT.address } },
    events: {
      summary: "A token's Transfer events, after 3 confirmations",
      value: {
        ...EXAMPLE_PAIR,
        contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        events: ["Transfer(address indexed from, address indexed to, uint256 value)"],
        confirmations: 3,
      },
    },
  },
  responses: { 201: { description: "The subscription", schema: Subscription }, ...errorResponses(400, 401, 429, 502, 503, 504) },
  async handle({ body, apiKeyId }, context) {
    return { status: 201, body: presentSubscription(await notificationsOf(context).subscribe(apiKeyId, body)) };
  },
});

export const listSubscriptionsRoute = defineRoute({
  method: "get",
  paths: ["/subscriptions"],
  operationId: "listSubscriptions",
  tag: "subscriptions",
  summary: "Your API key's subscriptions, newest first",
  description: "Pass `nextCursor` as `cursor` for the next page.",
  auth: true,
  query: SubscriptionListQuery,
  responses: { 200: { description: "A page of subscriptions", schema: SubscriptionList }, ...errorResponses(400, 401, 429, 503) },
  async handle({ query, apiKeyId }, context) {
    const page = await notificationsOf(context).list(apiKeyId, {
      limit: query.limit ?? 20,
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    return { body: { items: page.items.map(presentSubscription), nextCursor: page.nextCursor } };
  },
});

export const getSubscriptionRoute = defineRoute({
  method: "get",
  paths: ["/subscriptions/:id"],
  operationId: "getSubscription",
  tag: "subscriptions",
  summary: "One of your API key's subscriptions",
  auth: true,
  pathParams: ID,
  responses: { 200: { description: "The subscription", schema: Subscription }, ...errorResponses(401, 404, 429, 503) },
  async handle({ params, apiKeyId }, context) {
    const found = await notificationsOf(context).get(apiKeyId, subscriptionId(params));
    if (found === undefined) throw notFound();
    return { body: presentSubscription(found) };
  },
});

export const deleteSubscriptionRoute = defineRoute({
  method: "delete",
  paths: ["/subscriptions/:id"],
  operationId: "deleteSubscription",
  tag: "subscriptions",
  summary: "Unsubscribe: nothing more is found for it; its events are no longer listed",
  description: "Deliveries already queued for your webhooks are sent as queued.",
  auth: true,
  pathParams: ID,
  responses: { 204: { description: "Removed" }, ...errorResponses(401, 404, 429, 503) },
  async handle({ params, apiKeyId }, context) {
    if (!(await notificationsOf(context).unsubscribe(apiKeyId, subscriptionId(params)))) throw notFound();
    return { status: 204, body: undefined };
  },
});

export const listChainEventsRoute = defineRoute({
  method: "get",
  paths: ["/subscriptions/:id/events"],
  operationId: "listSubscriptionEvents",
  tag: "subscriptions",
  summary: "A subscription's events, oldest first: what its webhooks receive, for clients without a public URL",
  description:
    "The same events, with the same ids, as the webhooks get: each once its block has the subscription's confirmations, and a removal (`*.removed`, the same `data.id`) when a reorg took it away. Pass `nextCursor` as `after` to get the events written since; an empty page keeps the cursor to ask again with.",
  auth: true,
  pathParams: ID,
  query: ChainEventQuery,
  responses: { 200: { description: "A page of events", schema: ChainEventPage }, ...errorResponses(400, 401, 404, 429, 503) },
  async handle({ params, query, apiKeyId }, context) {
    const page = await notificationsOf(context).events(apiKeyId, subscriptionId(params), {
      limit: query.limit ?? 50,
      ...(query.after ? { after: query.after } : {}),
    });
    if (page === undefined) throw notFound();
    return { body: page };
  },
});
