import { z } from "zod/v4";

import { EXAMPLE_ACCOUNT } from "./examples.js";
import { chain, network, privateKey, shownAddress } from "./schemas.js";

// The shapes of held wallets (docs/custody.md): the service keeps their keys; no answer holds one.

export const HeldWallet = z.lazy(() =>
  z.object({
    address: shownAddress,
    chain: z.string(),
    network: z.string(),
    custody: z.literal("service"),
    source: z
      .enum(["derived", "imported", "kms"])
      .describe(
        "derived: from the keystore's seed (BIP-44); imported: a key given to POST /wallets/import; kms: a key made and kept in AWS KMS",
      ),
    createdAt: z.string(),
  }),
);

export const ImportWalletBody = z.strictObject({
  chain,
  network,
  privateKey: privateKey
    .describe("The key to hold: encrypted under the keystore's passphrase, never shown again, never logged")
    .meta({ examples: [EXAMPLE_ACCOUNT.privateKey] }),
});

export const HeldWalletQuery = z.object({
  chain: z.string().optional().describe("Only this chain's held wallets"),
  network: z.string().optional().describe("Only this network's (with chain)"),
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Default 20"),
  cursor: z.string().optional().describe("nextCursor of the previous page"),
});

export const HeldWalletList = z.lazy(() =>
  z.object({
    items: z.array(HeldWallet),
    nextCursor: z.string().nullable(),
  }),
);

const amountRule = (description: string) =>
  z
    .string()
    .regex(/^\d+$/, "must be a decimal string of a non-negative integer (smallest units)")
    .describe(description)
    .meta({ examples: ["1000000000000000000"] });

/** A held wallet's policy: every rule optional; a PUT replaces the whole policy ({} removes every rule). */
export const WalletPolicyBody = z.strictObject({
  maxValuePerTransaction: amountRule("The most native currency one transaction may send (smallest units)").optional(),
  maxValuePerDay: amountRule("The most native currency its transactions may send per UTC day, on each pair (smallest units)").optional(),
  allowedRecipients: z
    .array(z.string())
    .max(100)
    .optional()
    .describe("Who may receive: a transfer's or mint's recipients, an approval's spender, a role's account, a new owner"),
  allowedContracts: z.array(z.string()).max(100).optional().describe("The contracts it may call (a launch calls none)"),
  maxFeePerGas: amountRule(
    "The most it may pay per gas, in wei (maxFeePerGas, or a legacy gasPrice); its replacements included",
  ).optional(),
  networks: z
    .array(z.string())
    .max(100)
    .optional()
    .describe("The pairs it may write on, as chain/network")
    .meta({ examples: [["ethereum/sepolia"]] }),
});

export const WalletPolicy = z.lazy(() =>
  z.object({
    maxValuePerTransaction: z.string().optional(),
    maxValuePerDay: z.string().optional(),
    allowedRecipients: z.array(z.string()).optional(),
    allowedContracts: z.array(z.string()).optional(),
    maxFeePerGas: z.string().optional(),
    networks: z.array(z.string()).optional(),
  }),
);
