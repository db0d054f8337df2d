import { z } from "zod/v4";

import { CHAIN_EVENT_TYPES, MAX_CONFIRMATIONS, MAX_SUBSCRIBED_EVENTS, SUBSCRIPTION_ASSETS } from "../domain/subscriptions.js";
import { EXAMPLE_ACCOUNT } from "./examples.js";
import { chain, network } from "./schemas.js";

// The shapes of chain notifications (docs/notifications.md): subscriptions, and the events they find. The body is
// checked here for its shape; what depends on the chain (an address of it, a Bitcoin subscription's fields) is checked
// once by the core's parser (domain/subscriptions.ts), which names the field.

export const CreateSubscriptionBody = z.strictObject({
  chain,
  network,
  address: z
    .string()
    .optional()
    .describe(
      "Watch value moving to or from this address (native currency and token transfers; on Bitcoin, outputs paying it and spends of its coins); give this or contract",
    )
    .meta({ examples: [EXAMPLE_ACCOUNT.address] }),
  contract: z.string().optional().describe("Watch this contract's events (EVM chains); give this or address"),
  assets: z
    .array(z.string())
    .max(SUBSCRIPTION_ASSETS.length)
    .optional()
    .describe(`With address: which of ${SUBSCRIPTION_ASSETS.join(", ")} (default all; on Bitcoin only native)`),
  events: z
    .array(z.string().max(1_000))
    .max(MAX_SUBSCRIBED_EVENTS)
    .optional()
    .describe(
      'With contract: event signatures, e.g. "Transfer(address,address,uint256)" (default every event, undecoded); name the indexed parameters ("Transfer(address indexed from, address indexed to, uint256 value)") to have them decoded by name',
    ),
  confirmations: z
    .number()
    .int()
    .min(0)
    .max(MAX_CONFIRMATIONS)
    .optional()
    .describe("Deliver an event once its block has this many confirmations (default 1; 0: on first sight)"),
  fromBlock: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Backfill from this block (inclusive); default: from the block after the head when it is made"),
});

const Target = z.union([
  z.object({ kind: z.literal("address"), address: z.string(), assets: z.array(z.enum(SUBSCRIPTION_ASSETS)) }),
  z.object({
    kind: z.literal("contract"),
    contract: z.string(),
    events: z
      .array(z.object({ signature: z.string(), topic: z.string(), fragment: z.string().nullable() }))
      .nullable()
      .describe("null: every event of the contract"),
  }),
]);

export const Subscription = z.lazy(() =>
  z.object({
    id: z.string(),
    chain: z.string(),
    network: z.string(),
    target: Target,
    confirmations: z.number().int(),
    fromBlock: z.number().int().nullable(),
    startBlock: z.number().int().describe("The first block it watches"),
    backfillNext: z.number().int().nullable().describe("While its backfill runs: the next block it reads; null once done"),
    createdAt: z.string(),
  }),
);

export const SubscriptionList = z.lazy(() => z.object({ items: z.array(Subscription), nextCursor: z.string().nullable() }));

export const SubscriptionListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Default 20"),
  cursor: z.string().optional().describe("nextCursor of the previous page"),
});

export const ChainEventQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Default 50"),
  after: z.string().optional().describe("nextCursor of the previous page: the events written since"),
});

/** One event as a webhook or a pull page carries it. */
export const ChainEventData = z.lazy(() =>
  z.object({
    id: z.string().describe("The event's id: the same for every delivery of it, and for its removal"),
    subscriptionId: z.string(),
    chain: z.string(),
    network: z.string(),
    type: z.enum(["chain.activity", "chain.event"]),
    txHash: z.string(),
    logIndex: z
      .number()
      .int()
      .nullable()
      .describe(
        "The log's index; null for native currency (no log records it). Bitcoin: the output's index (vout) of an in, null for an out",
      ),
    blockNumber: z.number().int(),
    blockHash: z.string(),
    confirmations: z.number().int().describe("Its block's confirmations when it was delivered"),
    direction: z.enum(["in", "out"]).optional().describe("chain.activity: to the watched address, or from it"),
    asset: z.enum(SUBSCRIPTION_ASSETS).optional(),
    contract: z.string().nullable().optional().describe("The token's or the watched contract's address; null for native currency"),
    from: z.string().optional(),
    to: z.string().optional(),
    amount: z.string().nullable().optional().describe("Smallest units (ERC-20, ERC-1155, native: wei, satoshis)"),
    tokenId: z.string().nullable().optional().describe("ERC-721 and ERC-1155"),
    event: z.string().nullable().optional().describe("chain.event: the subscribed signature it matched (null: every event)"),
    args: z.record(z.string(), z.unknown()).nullable().optional().describe("chain.event: decoded arguments, by name or position"),
    topics: z.array(z.string()).optional(),
    data: z.string().optional(),
  }),
);

export const DeliveredChainEvent = z.lazy(() =>
  z.object({
    id: z.string(),
    type: z.enum(CHAIN_EVENT_TYPES),
    createdAt: z.string(),
    data: ChainEventData,
  }),
);

export const ChainEventPage = z.lazy(() =>
  z.object({
    items: z.array(DeliveredChainEvent),
    nextCursor: z.string().nullable().describe("Pass as after for the next page; null when there is nothing more yet"),
  }),
);

/** What a webhook subscribed to a chain event receives. */
export const ChainEventWebhookBody = z.lazy(() =>
  z.object({
    id: z.string().describe("The delivery id, also sent as the Webhook-Id header; data.id is the event's"),
    type: z.enum(CHAIN_EVENT_TYPES),
    createdAt: z.string(),
    data: ChainEventData,
  }),
);
