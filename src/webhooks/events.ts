import type { OperationStatus } from "../core/operations/types.js";

export const WEBHOOK_EVENTS = [
  "operation.pending",
  "operation.mined",
  "operation.failed",
  "operation.dropped",
  "operation.reorged",
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * The event a state change is, or undefined when it is none: recording a `signed` record is not an event (the launch
 * path stays one write), and a record whose status did not change (a re-broadcast, a confirmation counted) is not one.
 */
export function eventOfChange(previous: OperationStatus | undefined, next: OperationStatus): WebhookEvent | undefined {
  if (previous === next || next === "signed") return undefined;
  if (previous === "mined" && next === "pending") return "operation.reorged";
  return `operation.${next}`;
}
