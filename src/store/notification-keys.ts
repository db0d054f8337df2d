import { createHash } from "node:crypto";

import { invalidArgument } from "../domain/errors.js";

// The ids, cursors and page sizes of chain notifications: a feed row's and a delivery's ids are fixed by what they carry, so that a
// rescan or another replica writing them again writes nothing new; cursors are opaque, tagged with what they page, so
// that a cursor of another list (or another subscription's feed) is refused naming its field.

/** A feed row's id: the same for the same event, block, revision and kind (a delivery or a removal), on any replica. */
export function feedId(eventId: string, blockHash: string, removal: boolean, revision: number): string {
  const key = [eventId, blockHash.toLowerCase(), removal ? "removed" : "delivered", revision].join(":");
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

/** A delivery's id, UUID-shaped (the outbox's cursors read ids so): fixed by the webhook and the feed row it carries. */
export function deliveryId(webhookId: string, feed: string): string {
  const hex = createHash("sha256").update(`${webhookId}:${feed}`).digest("hex");
  const variant = (8 | (parseInt(hex[16]!, 16) & 3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const MAX_PAGE_SIZE = 100;

export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
}

function decodeParts(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

const encodeParts = (parts: string[]): string => Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");

/** The cursor of the next (older) page of subscriptions: the last one's creation time (milliseconds) and id. */
export const encodeSubscriptionCursor = (createdAtMillis: string, id: string): string =>
  encodeParts(["subscriptions", createdAtMillis, id]);

/** The cursor a feed page answers: its subscription and the last feed position read. */
export const encodeFeedCursor = (subscriptionId: string, seq: string): string => encodeParts(["events", subscriptionId, seq]);

/** Where a page of subscriptions ends (newest first): the last one's creation time and id. */
export function decodeSubscriptionCursor(cursor: string): { createdAtMillis: string; id: string } {
  const decoded = decodeParts(cursor);
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 3 ||
    decoded[0] !== "subscriptions" ||
    typeof decoded[1] !== "string" ||
    !/^\d{1,15}$/.test(decoded[1]) ||
    typeof decoded[2] !== "string" ||
    decoded[2].length === 0 ||
    decoded[2].length > 200
  ) {
    throw invalidArgument("cursor", "cursor is not one this service returned");
  }
  return { createdAtMillis: decoded[1], id: decoded[2] };
}

/** Where a subscription's feed was read to: its id and the last position read (the pair's commit order). */
export function decodeFeedCursor(cursor: string, subscriptionId: string): number {
  const decoded = decodeParts(cursor);
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 3 ||
    decoded[0] !== "events" ||
    typeof decoded[1] !== "string" ||
    typeof decoded[2] !== "string" ||
    !/^\d{1,15}$/.test(decoded[2])
  ) {
    throw invalidArgument("after", "after is not a cursor this service returned");
  }
  if (decoded[1] !== subscriptionId) throw invalidArgument("after", "after is a cursor of another subscription's events");
  return Number(decoded[2]);
}
