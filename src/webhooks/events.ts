import { OPERATION_EVENTS, type OperationEvent } from "../domain/lifecycle.js";
import { CHAIN_EVENT_TYPES, type ChainEventType } from "../domain/subscriptions.js";

// The events a webhook subscribes to: an operation's state changes (the lifecycle table, domain/lifecycle.ts), and what
// chain notifications find for the API key's subscriptions (docs/notifications.md).
export { eventOfChange } from "../domain/lifecycle.js";
export { OPERATION_EVENTS, type OperationEvent, CHAIN_EVENT_TYPES, type ChainEventType };

export const WEBHOOK_EVENTS = [...OPERATION_EVENTS, ...CHAIN_EVENT_TYPES] as const;
export type WebhookEvent = OperationEvent | ChainEventType;
