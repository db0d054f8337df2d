import { createHash } from "node:crypto";

import type { SubscriptionAsset, SubscriptionTarget } from "../../domain/subscriptions.js";
import { decodeEvent, type DecodedValue } from "./contract-events.js";
import { movementsOf, type ChainLog } from "./transfer-logs.js";

// Matches one block's value movements and logs against the subscriptions of its chain: pure, so that every replica,
// and a rescan after a reorg or a restart, finds the same events under the same ids. An id is fixed by the
// subscription, the transaction, the log (or "native" for the transaction's own value), the position in an ERC-1155
// batch and the direction: delivering one twice is delivering it under one id.

/** A top-level transaction moving native currency: value moved by internal calls is not seen (docs/notifications.md). */
export interface NativeTransfer {
  transactionHash: string;
  from: string;
  /** Null for a contract creation. */
  to: string | null;
  /** Wei, decimal. */
  value: string;
}

export interface ScannedBlock {
  /** An EVM block (a Bitcoin block is bitcoin-match.ts's ScannedBitcoinBlock). */
  kind?: "evm";
  chain: string;
  network: string;
  number: number;
  hash: string;
  logs: readonly ChainLog[];
  transfers: readonly NativeTransfer[];
}

export interface WatchedSubscription {
  id: string;
  target: SubscriptionTarget;
}

interface EventBase {
  id: string;
  subscriptionId: string;
  chain: string;
  network: string;
  txHash: string;
  /** The log's index in its block; null for native currency (no log records it). */
  logIndex: number | null;
  blockNumber: number;
  blockHash: string;
}

/** Value that moved to (`in`) or from (`out`) a watched address. A transfer to itself is both: two events. */
export interface ActivityEvent extends EventBase {
  type: "chain.activity";
  direction: "in" | "out";
  asset: SubscriptionAsset;
  /** The token's contract; null for native currency. */
  contract: string | null;
  from: string;
  to: string;
  amount: string | null;
  tokenId: string | null;
}

/** A log of a watched contract: decoded where its signature was subscribed and decodes, else its topics and data. */
export interface ContractEvent extends EventBase {
  type: "chain.event";
  contract: string;
  /** The subscribed signature it matched; null when the subscription takes every event. */
  event: string | null;
  args: Record<string, DecodedValue> | null;
  topics: string[];
  data: string;
}

export type ChainEvent = ActivityEvent | ContractEvent;

/** Every event of `block` for `subscriptions`, in block order (log index, then the batch's order, out before in). */
export function eventsOf(block: ScannedBlock, subscriptions: readonly WatchedSubscription[]): ChainEvent[] {
  const byAddress = new Map<string, WatchedSubscription[]>();
  const byContract = new Map<string, WatchedSubscription[]>();
  for (const subscription of subscriptions) {
    const index = subscription.target.kind === "address" ? byAddress : byContract;
    const key = (subscription.target.kind === "address" ? subscription.target.address : subscription.target.contract).toLowerCase();
    index.set(key, [...(index.get(key) ?? []), subscription]);
  }
  const base = (subscriptionId: string, txHash: string, logIndex: number | null) => ({
    subscriptionId,
    chain: block.chain,
    network: block.network,
    txHash,
    logIndex,
    blockNumber: block.number,
    blockHash: block.hash,
  });
  const events: ChainEvent[] = [];

  for (const transfer of block.transfers) {
    if (BigInt(transfer.value) === 0n || transfer.to === null) continue;
    for (const direction of ["out", "in"] as const) {
      const watched = byAddress.get((direction === "out" ? transfer.from : transfer.to).toLowerCase()) ?? [];
      for (const subscription of watched) {
        if (subscription.target.kind !== "address" || !subscription.target.assets.includes("native")) continue;
        events.push({
          type: "chain.activity",
          id: eventId(subscription.id, transfer.transactionHash, "native", null, direction),
          ...base(subscription.id, transfer.transactionHash, null),
          direction,
          asset: "native",
          contract: null,
          from: transfer.from,
          to: transfer.to,
          amount: transfer.value,
          tokenId: null,
        });
      }
    }
  }

  for (const log of [...block.logs].sort((a, b) => a.logIndex - b.logIndex)) {
    for (const subscription of byContract.get(log.address.toLowerCase()) ?? []) {
      const event = contractEventOf(subscription, log);
      if (event !== undefined) events.push({ ...event, ...base(subscription.id, log.transactionHash, log.logIndex) });
    }
    if (byAddress.size === 0) continue;
    for (const movement of movementsOf(log)) {
      for (const direction of ["out", "in"] as const) {
        for (const subscription of byAddress.get((direction === "out" ? movement.from : movement.to).toLowerCase()) ?? []) {
          if (subscription.target.kind !== "address" || !subscription.target.assets.includes(movement.asset)) continue;
          events.push({
            type: "chain.activity",
            id: eventId(subscription.id, log.transactionHash, String(log.logIndex), movement.batchIndex, direction),
            ...base(subscription.id, log.transactionHash, log.logIndex),
            direction,
            asset: movement.asset,
            contract: movement.contract,
            from: movement.from,
            to: movement.to,
            amount: movement.amount,
            tokenId: movement.tokenId,
          });
        }
      }
    }
  }
  return events;
}

function contractEventOf(subscription: WatchedSubscription, log: ChainLog): Omit<ContractEvent, keyof Omit<EventBase, "id">> | undefined {
  if (subscription.target.kind !== "contract") return undefined;
  const topic = log.topics[0]?.toLowerCase();
  const events = subscription.target.events;
  const matched = events === null ? null : events.find((event) => event.topic === topic);
  if (matched === undefined) return undefined;
  return {
    type: "chain.event",
    id: eventId(subscription.id, log.transactionHash, String(log.logIndex), null, null),
    contract: log.address,
    event: matched?.signature ?? null,
    args: matched === null ? null : decodeEvent(matched, log),
    topics: [...log.topics],
    data: log.data,
  };
}

/** The event's id: the same for every replica and every rescan of the same block content. */
export function eventId(
  subscriptionId: string,
  txHash: string,
  position: string,
  batchIndex: number | null,
  direction: "in" | "out" | null,
): string {
  const key = [subscriptionId, txHash.toLowerCase(), position, batchIndex ?? "", direction ?? ""].join(":");
  return `evt_${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}
