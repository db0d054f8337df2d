// Chain notifications (docs/notifications.md): subscriptions, the events found for them, and the per-pair scan that finds
// them. The store keeps all of it, so that replicas share one scan (a lease per pair), a restart resumes from its
// cursor, and an event delivered is never delivered under another id.

import type { ChainEvent } from "./match.js";

import type { ChainEventType, SubscriptionTarget } from "../../domain/subscriptions.js";

export { CHAIN_EVENT_TYPES, type ChainEventType } from "../../domain/subscriptions.js";

export interface SubscriptionRecord {
  id: string;
  /** Its owner: only that API key sees it, and its events go to that key's webhooks (null: made without a key). */
  apiKeyId: string | null;
  chain: string;
  network: string;
  target: SubscriptionTarget;
  /** Delivered once its block has this many confirmations; 0: on first sight. */
  confirmations: number;
  /** The backfill's first block, as asked; null: none asked. */
  fromBlock: number | null;
  /** The first block it watches: `fromBlock`, else the head when it was made. Blocks below it are not matched for it. */
  startBlock: number;
  /**
   * The next block of its own backfill: set when it was made with a `fromBlock` below the pair's scan cursor (the pair's
   * scan does not go back for it), and moved up by its backfill until that reaches the cursor; then null.
   */
  backfillNext: number | null;
  createdAt: string;
}

/** What the store writes; it sets `backfillNext` itself, in the insert's transaction, from the pair's cursor then. */
export type NewSubscription = Omit<SubscriptionRecord, "createdAt" | "backfillNext">;

export interface SubscriptionPage {
  items: SubscriptionRecord[];
  /** Opaque cursor for the next (older) page, or null at the end. */
  nextCursor: string | null;
}

/** An event as delivered: its type, when it was written, and the event (with its confirmations at delivery). */
export interface DeliveredChainEvent {
  /** The event's id (a removal carries the id of the event it removes). */
  id: string;
  type: ChainEventType;
  createdAt: string;
  data: ChainEvent & { confirmations: number };
}

export interface ChainEventPage {
  items: DeliveredChainEvent[];
  /** Pass as `after` for the events written since; null when there were none (ask again later with the last one). */
  nextCursor: string | null;
}

/** An event found in a scanned block, and the height at which its block has the confirmations its subscription asks. */
export interface FoundEvent {
  event: ChainEvent;
  /** Due once the head reaches this height (its block's height + confirmations − 1; for 0 confirmations, its block's). */
  dueAt: number;
}

/** A scanned block, kept to see a reorg by its hash (the newest ones only). */
export interface ScannedHash {
  number: number;
  hash: string;
}

/** A pair's scan, as the replica holding its lease reads it. */
export interface ScanLease {
  /** The next height to scan; null before the first scan (it starts at the lowest startBlock of the pair's subscriptions). */
  nextBlock: number | null;
  /** The hashes of the newest blocks scanned, highest last. */
  recent: ScannedHash[];
}

export interface NotificationStore {
  createSubscription(subscription: NewSubscription): Promise<SubscriptionRecord>;
  /** Newest first. */
  listSubscriptions(apiKeyId: string | null, options: { limit: number; cursor?: string }): Promise<SubscriptionPage>;
  getSubscription(apiKeyId: string | null, id: string): Promise<SubscriptionRecord | undefined>;
  /** Removes it and its events (delivered ones stay in the webhook outbox); false when the key has no such subscription. */
  deleteSubscription(apiKeyId: string | null, id: string): Promise<boolean>;
  /** Every subscription of a pair, whoever owns it: the scanner's list. */
  subscriptionsOf(chain: string, network: string): Promise<SubscriptionRecord[]>;
  /** The pairs with at least one subscription. */
  watchedPairs(): Promise<Array<{ chain: string; network: string }>>;
  /** A subscription's delivered events and removals, oldest first, after `after`; undefined when the key has no such subscription. */
  listEvents(
    apiKeyId: string | null,
    subscriptionId: string,
    options: { limit: number; after?: string },
  ): Promise<ChainEventPage | undefined>;

  /** Takes (or renews) the pair's scan lease for `owner`; undefined while another owner's lease holds. */
  leaseScan(chain: string, network: string, owner: string, leaseMs: number): Promise<ScanLease | undefined>;
  /**
   * Commits a scanned range while `owner`'s lease holds, in one transaction: the blocks' hashes (the newest kept), the
   * events found (each once: an id already there is left as it is), the cursor moved to `nextBlock`, and every event of
   * the pair due at `head` delivered: written to the feed and queued for the owner's webhooks. False: the lease was lost
   * and nothing was written.
   */
  commitScan(
    chain: string,
    network: string,
    owner: string,
    scan: {
      blocks: ScannedHash[];
      found: FoundEvent[];
      nextBlock: number;
      head: number;
      /**
       * A subscription's backfill instead of the pair's scan: its `backfillNext` moves to `nextBlock` (null once it
       * reached the pair's cursor), the pair's cursor and kept hashes stay as they are (`blocks` is empty).
       */
      backfill?: { subscriptionId: string };
    },
  ): Promise<boolean>;
  /**
   * A reorg replaced the blocks above `ancestor`: their hashes are forgotten, their events not yet delivered dropped,
   * those delivered removed (a removal written to the feed and queued), and the cursor set to `ancestor + 1`. False: the
   * lease was lost and nothing was written.
   */
  rewindScan(chain: string, network: string, owner: string, ancestor: number): Promise<boolean>;
  /** Lets the lease go (a process stopping): another replica takes the scan at once. */
  releaseScan(chain: string, network: string, owner: string): Promise<void>;
}
