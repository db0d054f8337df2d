import { z } from "zod/v4";

import { OPERATION_KINDS, OPERATION_STATUSES, TRANSACTION_ROLES } from "../domain/lifecycle.js";
import { chain, integerString, network, OperationState, signedTransaction, transactionHash, UnsignedTransaction } from "./schemas.js";

// The shapes of operation records as they are read, listed and replaced (a speed-up or cancel), and of a transaction's
// status (routes/listings.ts, routes/replacements.ts). As in schemas.ts they check shape only.
// What answers only (records, statuses, prepared replacements) is z.lazy: built on the first /openapi.json, not at
// start-up, where only requests are checked (issue 28 item 6: each zod schema holds its own methods).

export const TransactionState = z.enum(["pending", "mined", "failed", "dropped"]);
export const TransactionQuery = z.object({ chain, network });

export const TransactionStatus = z.lazy(() =>
  z.object({
    transactionHash,
    status: TransactionState.describe(
      "A replaced hash: pending while its operation is unfinished (it may still win), dropped once another of its transactions took the nonce",
    ),
    blockNumber: z.number().int().nonnegative().nullable(),
    confirmations: z.number().int().nonnegative(),
    contractAddress: z.string().nullable(),
    simulated: z.boolean(),
    replaced: z
      .literal(true)
      .optional()
      .describe("Present on a hash an operation was sent as and then replaced (a speed-up, a cancel, or one the service sent)"),
    replacedBy: z.string().optional().describe("The operation's transaction now: the one that replaced it, or the one that was mined"),
  }),
);

const listFilterValues = (what: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(`${what}: comma-separated and/or repeated; a record matching any of them is listed`);

export const OperationListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Default 20"),
  cursor: z
    .string()
    .optional()
    .describe("nextCursor of the previous page (the filters may change between pages: the cursor is a position)"),
  kind: listFilterValues(`Only these kinds (${OPERATION_KINDS.join(", ")})`),
  status: listFilterValues(`Only these statuses (${OPERATION_STATUSES.join(", ")})`),
  sender: z.string().optional().describe("Only writes from this address"),
  chain: z.string().optional().describe("Only on this chain"),
  network: z.string().optional().describe("Only on this network (with chain)"),
});

/** `GET /tokens`: the same filters, the kind fixed to launches. */
export const TokenListQuery = OperationListQuery.omit({ kind: true });

export const Operation = z.lazy(() =>
  z.object({
    id: z.string(),
    kind: z.enum(OPERATION_KINDS),
    chain: z.string(),
    network: z.string(),
    type: z.string().nullable(),
    params: z.record(z.string(), z.unknown()),
    sender: z.string().nullable(),
    transactionHash: z.string().nullable(),
    contractAddress: z
      .string()
      .nullable()
      .describe(
        "A launch's token (the contract a write calls): deployed once a launch is mined; a cancelled or failed launch deploys nothing there",
      ),
    nonce: z.number().int().nonnegative().nullable(),
    status: OperationState,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    blockNumber: z.number().int().nonnegative().nullable(),
    blockHash: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).nullable().describe("What mining revealed, e.g. an ERC721 mint's tokenId"),
    transitions: z
      .array(z.object({ status: OperationState, at: z.string(), reason: z.string() }))
      .describe("Every state change with its time and reason, oldest first"),
    stuck: z
      .object({
        at: z.string(),
        transactionHash: z.string().describe("The transaction it waits on"),
        reason: z.string(),
      })
      .nullable()
      .describe(
        "Set once (webhook operation.stuck) when it is pending past its replace-after blocks with no higher fee the service can send on its own; cleared by a later speed-up or cancel",
      ),
    transactions: z
      .array(
        z.object({
          transactionHash: z.string(),
          role: z
            .enum(TRANSACTION_ROLES)
            .describe(
              "original, replacement (same call, higher fees) or cancel (a zero-value transfer to the sender; on Bitcoin, the same coins back to the sender)",
            ),
          rung: z.number().int().nonnegative().describe("Its step on the fee ladder: 0 the original"),
          maxFeePerGas: z.string().nullable(),
          maxPriorityFeePerGas: z.string().nullable(),
          gasPrice: z.string().nullable().describe("A legacy transaction's price, instead of the EIP-1559 fees"),
          fee: z.string().optional().describe("Bitcoin only (its fees per gas are null): the satoshis it pays"),
          feeRate: z.number().optional().describe("Bitcoin only: the rate it pays, sat/vB"),
          broadcastAt: z.string().describe("When it was written as sent, just before its broadcast"),
        }),
      )
      .describe(
        "Every transaction it was sent as, lowest fees first (empty for a faucet grant, and for a record made before the service kept them); whichever is mined settles it, and transactionHash follows the latest sent (then the one mined)",
      ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

/** A speed-up or cancel of a caller-signed operation (or one whose signed-ahead steps are used up), prepared to sign. */
export const PreparedReplacement = z.lazy(() =>
  z.object({
    operationId: z.string(),
    chain: z.string(),
    network: z.string(),
    sender: z.string(),
    replacement: z.enum(["speed-up", "cancel"]),
    replaces: z.string().describe("The transaction it replaces: the one the operation follows now"),
    unsignedTransaction: UnsignedTransaction.describe(
      "Sign this (the operation's nonce; fees at least 12.5 % above the transaction it replaces, raised to what the node asks now) and send it back as signedTransaction",
    ),
    ceiling: integerString("The operation's fee ceiling, wei per gas: a replacement may pay up to it"),
  }),
);

export const ReplacementBody = z.strictObject({
  signedTransaction: signedTransaction
    .optional()
    .describe(
      "The prepared replacement, signed by the operation's sender; without it, the service sends the next step signed ahead or prepares one",
    ),
  feeRate: z
    .number()
    .min(1)
    .max(10_000)
    .optional()
    .describe(
      "Bitcoin operations only: the replacement's rate, sat/vB, above the current one; default: the backend's next-block estimate, at least 1 sat/vB above the current rate",
    ),
});

export const OperationList = z.lazy(() =>
  z.object({
    items: z.array(Operation),
    nextCursor: z.string().nullable(),
  }),
);

export const OperationQuery = z.object({
  waitSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(60)
    .optional()
    .describe(
      "Answer once the operation is final (mined, failed, dropped, cancelled), or after this many seconds (at most the service's wait timeout) with its state then",
    ),
});
