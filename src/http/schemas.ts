import { z } from "zod/v4";

import { BUILT_IN_CHAINS } from "../domain/chains.js";
import { OPERATION_STATUSES } from "../domain/lifecycle.js";
import { chainFieldDescription, networkFieldDescription } from "./chain-fields.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_TRANSACTION_HASH, ONE_TOKEN } from "./examples.js";

/**
 * The request and response shapes of the HTTP API. The same schemas validate
 * requests and generate /openapi.json. They check shape only; meaning (is this
 * a valid address on that network, does the key derive the sender) is the core's job.
 *
 * This module holds what every kind of request shares (the pair, addresses, how a write is signed, a prepared
 * transaction, an operation's state, errors); each kind's own shapes are in its *-schemas.ts beside it.
 */

export const integerString = (description: string, example = ONE_TOKEN) =>
  z
    .string()
    .regex(/^\d+$/, "must be a decimal string of a non-negative integer (smallest units)")
    .describe(description)
    .meta({ examples: [example] });

// Strings, not enums: a service also serves the chains its configuration declares, and its core says which it knows
// (UNSUPPORTED_CHAIN lists them). The document a service serves lists its own chains (src/http/openapi.ts).
export const CHAIN_DESCRIPTION = chainFieldDescription(BUILT_IN_CHAINS, true);
export const NETWORK_DESCRIPTION = networkFieldDescription(BUILT_IN_CHAINS);
export const chain = z
  .string()
  .describe(CHAIN_DESCRIPTION)
  .meta({ examples: ["ethereum"] });
export const network = z
  .string()
  .describe(NETWORK_DESCRIPTION)
  .meta({ examples: ["sepolia"] });
export const address = z
  .string()
  .describe("An address on the chain and network")
  .meta({ examples: [EXAMPLE_ACCOUNT.address] });
/** An address in an answer. */
export const shownAddress = z.string().meta({ examples: [EXAMPLE_ACCOUNT.address] });
export const transactionHash = z.string().meta({ examples: [EXAMPLE_TRANSACTION_HASH] });
export const privateKey = z
  .string()
  .describe(
    "The sender's key; used to sign, never stored or logged. The example is the key of Hardhat's first default account, which is public: use it on simulated chains only",
  )
  .meta({ examples: [EXAMPLE_ACCOUNT.privateKey] });
export const signedTransaction = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, "must be 0x-prefixed hex")
  .describe(
    "The `unsignedTransaction` a prepare (this body without privateKey) answered, signed by `sender` unchanged: 0x hex, as an ethers Signer's signTransaction returns it",
  );

/**
 * A write's body: its own fields, and who signs. `fields` is what the body may hold, checked at once; `body` the
 * documented union, which says what each combination means (the key signs, a signed transaction is submitted, or
 * neither: a prepare).
 */
export function signedWrite<F extends z.ZodRawShape>(own: F) {
  return {
    fields: z.strictObject({ ...own, privateKey: privateKey.optional(), signedTransaction: signedTransaction.optional() }),
    // The documented union: requests are checked with `fields` (routes/write-route.ts), so it is z.lazy, built on the
    // first /openapi.json rather than at start-up (operation-schemas.ts).
    body: z.lazy(() =>
      z.union([
        z.strictObject({ ...own, privateKey }).meta({ title: "Signed by the service with privateKey" }),
        z.strictObject({ ...own, signedTransaction }).meta({ title: "Submit: the prepared transaction, signed by the caller" }),
        z.strictObject(own).meta({ title: "Prepare: answers the unsigned transaction to sign, its nonce reserved" }),
      ]),
    ),
  };
}

/**
 * An operation's lifecycle: signed → pending → mined | failed | dropped | cancelled (a reorg moves mined or cancelled
 * back to pending).
 */
export const OperationState = z.enum(OPERATION_STATUSES);

export const UnsignedTransaction = z
  .object({
    chainId: z.number().int().nonnegative(),
    type: z.union([z.literal(2), z.literal(0)]).describe("2 (EIP-1559) where the chain reports base fees, else 0 (legacy, EIP-155)"),
    nonce: z.number().int().nonnegative().describe("Reserved for the sender until expiresAt"),
    gasLimit: integerString("The node's estimate plus 20 %, at most 16777216 (EIP-7825's cap) for a transaction estimated within it"),
    maxFeePerGas: integerString("Type 2 only, wei").optional(),
    maxPriorityFeePerGas: integerString("Type 2 only, wei").optional(),
    gasPrice: integerString("Type 0 only, wei").optional(),
    to: z
      .string()
      .nullable()
      .describe(
        "null for a launch (a contract creation); the recipient for a NATIVE transfer; the token contract for every other write (a mint, a token transfer, an approval, a burn, a pause, a role or ownership change)",
      ),
    data: z.string(),
    value: integerString("Native currency it sends, in wei: 0 but for a NATIVE transfer"),
  })
  .describe("Sign exactly this (e.g. ethers `signer.signTransaction(unsignedTransaction)`); any change is refused");

/**
 * A prepare's answer: the transaction to sign, and until when its nonce is reserved; `type` as the write names it (none
 * for a write to any token that has the function: a pause, a role, an ownership transfer).
 */
export const preparedTransaction = (type?: z.ZodType) =>
  z.object({
    unsignedTransaction: UnsignedTransaction,
    expiresAt: z
      .string()
      .describe("Until then the nonce is reserved; a later submit is accepted only while the nonce is still free (nothing took it since)"),
    chain: z.string(),
    network: z.string(),
    ...(type !== undefined ? { type } : {}),
    sender: z.string(),
  });

export const WaitQuery = z.object({ wait: z.enum(["mined"]).optional() });

// Amounts say what they are (docs/decisions/0060-amounts-echoed.md): beside an amount in smallest units, its display
// form and the decimals; and a warning when it looks like a unit mix-up, which never refuses the request.

export const AmountWarning = z
  .object({
    code: z
      .enum(["AMOUNT_BELOW_ONE_TOKEN", "AMOUNT_BELOW_ONE_GWEI"])
      .describe(
        "AMOUNT_BELOW_ONE_TOKEN: an ERC20 amount above 0 and below one whole token (most often whole tokens sent where smallest units are taken); AMOUNT_BELOW_ONE_GWEI: a native EVM amount above 0 and below 1 gwei (wei meant as ETH)",
      ),
    field: z.string().describe("The request field the amount came from: token.initialSupply, amount, recipients[2].amount"),
    message: z.string(),
  })
  .describe("The amount was taken as given; the warning says what it came to");

export const warnings = z
  .array(AmountWarning)
  .optional()
  .describe("Present only when an amount of the request looks like a unit mix-up; the request was done as asked all the same");

/** `amount` (smallest units) echoed in whole units at `decimals`: ERC20 and native amounts; absent for counts (ERC1155). */
export const amountEcho = {
  uiAmount: z
    .string()
    .optional()
    .describe("ERC20 and native: `amount` in whole units at `decimals`, exact, no trailing zeros")
    .meta({ examples: ["1.5"] }),
  decimals: z.number().int().nonnegative().optional().describe("ERC20 and native: the decimals `amount` is in"),
};

const errorFields = {
  message: z.string(),
  field: z.string().optional().describe("The request field the error concerns"),
  details: z.record(z.string(), z.unknown()).optional(),
};

const errorCodeDescription = "Stable machine-readable code (see docs/reference/errors.md)";

export const ErrorResponse = z.object({
  error: z.object({ code: z.string().describe(errorCodeDescription), ...errorFields }),
});

/** The error shape whose `code` is one of these (the codes of one HTTP status). */
export function errorResponseWithCodes(codes: readonly [string, ...string[]]) {
  return z.object({ error: z.object({ code: z.enum(codes).describe(errorCodeDescription), ...errorFields }) });
}

// ---- chain faults (TOKEN_SERVICE_CHAIN_FAULTS=on) -------------------------------------------------------------------
