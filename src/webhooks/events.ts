// The events and which change is which live in the lifecycle table (domain/lifecycle.ts); re-exported for the webhook door.
export { WEBHOOK_EVENTS, eventOfChange, type WebhookEvent } from "../domain/lifecycle.js";
