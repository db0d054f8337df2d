import { EventFragment } from "ethers";

import { parseEvmAddress } from "./addresses.js";
import { invalidArgument } from "./errors.js";

// Chain notifications (issue 30): what a subscription watches. Parsed once, at the door, into one of two targets: an
// address (value moving to or from it: native currency and the transfers of ERC-20, ERC-721 and ERC-1155 tokens), or a
// contract (its logs, decoded where an event signature is given). Pure: no chain, no store.

/** What a webhook or a pull page carries: an event found, or its removal by a reorg (the same `data.id`). */
export const CHAIN_EVENT_TYPES = ["chain.activity", "chain.event", "chain.activity.removed", "chain.event.removed"] as const;
export type ChainEventType = (typeof CHAIN_EVENT_TYPES)[number];

/** What moves value to or from a watched address. */
export const SUBSCRIPTION_ASSETS = ["native", "erc20", "erc721", "erc1155"] as const;
export type SubscriptionAsset = (typeof SUBSCRIPTION_ASSETS)[number];

/** The most events one contract subscription names, and the most confirmations one may wait for. */
export const MAX_SUBSCRIBED_EVENTS = 20;
export const MAX_CONFIRMATIONS = 1_000;

/** A contract event a subscription asks for: its topic, and how to decode it when its parameters can be told apart. */
export interface SubscribedEvent {
  /** As the caller wrote it, normalised: `Transfer(address,address,uint256)`. */
  signature: string;
  /** keccak256 of the signature: the log's first topic. */
  topic: string;
  /** The full fragment, when the caller named the indexed parameters (`Transfer(address indexed from, …)`). */
  fragment: string | null;
}

export type SubscriptionTarget =
  | { kind: "address"; address: string; assets: SubscriptionAsset[] }
  | { kind: "contract"; contract: string; events: SubscribedEvent[] | null };

/** A create request, parsed: its chain and network are resolved by the caller (the registry knows them). */
export interface SubscriptionSpec {
  target: SubscriptionTarget;
  /** Delivered once its block has this many confirmations; 0: on first sight. */
  confirmations: number;
  /** Backfill from this block (inclusive); null: from the head when it is made. */
  fromBlock: number | null;
}

/**
 * Parses a create body's fields (chain and network aside): exactly one of `address` or `contract`; `assets` only with
 * an address, `events` only with a contract; Bitcoin takes an address only, and its only asset is its currency.
 * `parseAddress` checks an address of the pair's chain (an EVM checksum, or a Bitcoin address of its network).
 */
export function parseSubscriptionSpec(
  body: { address?: unknown; contract?: unknown; assets?: unknown; events?: unknown; confirmations?: unknown; fromBlock?: unknown },
  kind: "evm" | "bitcoin",
  parseAddress: (value: unknown, field: string) => string = parseEvmAddress,
): SubscriptionSpec {
  const hasAddress = body.address !== undefined && body.address !== null;
  const hasContract = body.contract !== undefined && body.contract !== null;
  if (hasAddress === hasContract) {
    throw invalidArgument(
      hasAddress ? "contract" : "address",
      "give exactly one of address (value moving to or from it) or contract (its events)",
    );
  }
  const confirmations = parseCount(body.confirmations, "confirmations", 1, MAX_CONFIRMATIONS);
  const fromBlock =
    body.fromBlock === undefined || body.fromBlock === null ? null : parseCount(body.fromBlock, "fromBlock", 0, Number.MAX_SAFE_INTEGER);
  if (hasAddress) {
    if (body.events !== undefined) throw invalidArgument("events", "events belong to a contract subscription: give contract, not address");
    const assets = kind === "bitcoin" ? parseBitcoinAssets(body.assets) : parseAssets(body.assets);
    return { target: { kind: "address", address: parseAddress(body.address, "address"), assets }, confirmations, fromBlock };
  }
  if (kind === "bitcoin") throw invalidArgument("contract", "Bitcoin has no contracts: subscribe to an address");
  if (body.assets !== undefined) throw invalidArgument("assets", "assets belong to an address subscription: give address, not contract");
  const events = body.events === undefined || body.events === null ? null : parseEvents(body.events);
  return { target: { kind: "contract", contract: parseEvmAddress(body.contract, "contract"), events }, confirmations, fromBlock };
}

function parseCount(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw invalidArgument(field, `${field} must be a whole number from 0 to ${max}`);
  }
  return value;
}

function parseAssets(value: unknown): SubscriptionAsset[] {
  if (value === undefined || value === null) return [...SUBSCRIPTION_ASSETS];
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidArgument("assets", `assets must be a non-empty list of ${SUBSCRIPTION_ASSETS.join(", ")}`);
  }
  const assets = new Set<SubscriptionAsset>();
  for (const [index, asset] of value.entries()) {
    const name = typeof asset === "string" ? asset.toLowerCase() : "";
    if (!(SUBSCRIPTION_ASSETS as readonly string[]).includes(name)) {
      throw invalidArgument(`assets[${index}]`, `assets[${index}] must be one of ${SUBSCRIPTION_ASSETS.join(", ")}`);
    }
    assets.add(name as SubscriptionAsset);
  }
  // In the order of SUBSCRIPTION_ASSETS: one subscription reads back the same whatever order it was given in.
  return SUBSCRIPTION_ASSETS.filter((asset) => assets.has(asset));
}

function parseBitcoinAssets(value: unknown): SubscriptionAsset[] {
  if (value === undefined || value === null) return ["native"];
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === "string" && value[0].toLowerCase() === "native") return ["native"];
  throw invalidArgument("assets", 'a Bitcoin address moves only its currency: leave assets out, or give ["native"]');
}

function parseEvents(value: unknown): SubscribedEvent[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SUBSCRIBED_EVENTS) {
    throw invalidArgument(
      "events",
      `events must be a list of 1 to ${MAX_SUBSCRIBED_EVENTS} event signatures, e.g. "Transfer(address,address,uint256)"`,
    );
  }
  const seen = new Map<string, SubscribedEvent>();
  for (const [index, text] of value.entries()) {
    const event = parseEvent(text, `events[${index}]`);
    seen.set(event.topic, seen.get(event.topic) ?? event);
  }
  return [...seen.values()];
}

/** One event signature: `Name(type,…)`, or the full form naming its indexed parameters. */
export function parseEvent(text: unknown, field: string): SubscribedEvent {
  let fragment: EventFragment;
  try {
    if (typeof text !== "string" || text.length > 1_000) throw new Error("not a string");
    fragment = EventFragment.from(text.trim().startsWith("event ") ? text.trim() : `event ${text.trim()}`);
  } catch {
    throw invalidArgument(
      field,
      `${field} must be an event signature such as "Transfer(address,address,uint256)" or "Transfer(address indexed from, address indexed to, uint256 value)"`,
    );
  }
  const named = fragment.inputs.some((input) => input.indexed === true || input.name !== "");
  return { signature: fragment.format("sighash"), topic: fragment.topicHash, fragment: named ? fragment.format("full") : null };
}
