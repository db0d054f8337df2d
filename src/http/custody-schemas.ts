import { z } from "zod/v4";

import { EXAMPLE_ACCOUNT } from "./examples.js";
import { chain, network, privateKey, shownAddress } from "./schemas.js";

// The shapes of held wallets (docs/custody.md): the service keeps their keys; no answer holds one.

export const HeldWallet = z.object({
  address: shownAddress,
  chain: z.string(),
  network: z.string(),
  custody: z.literal("service"),
  source: z
    .enum(["derived", "imported"])
    .describe("derived: from the keystore's seed (BIP-44); imported: a key given to POST /wallets/import"),
  createdAt: z.string(),
});

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

export const HeldWalletList = z.object({
  items: z.array(HeldWallet),
  nextCursor: z.string().nullable(),
});
