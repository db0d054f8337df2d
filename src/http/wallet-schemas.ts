import { z } from "zod/v4";

import { EXAMPLE_ACCOUNT } from "./examples.js";
import { address, chain, integerString, network, shownAddress, warnings } from "./schemas.js";

// The shapes of wallets, balances and faucet grants (routes/wallets.ts). As in schemas.ts they check shape only.

// What only answers is z.lazy (or made by a function it calls): built on the first /openapi.json, not at start-up
// (operation-schemas.ts).
const amount = () => z.object({ balance: integerString("Smallest units"), uiBalance: z.string().describe("Exact decimal in whole units") });

export const CreateWalletBody = z.strictObject({
  chain,
  network,
  addressType: z.enum(["p2wpkh", "p2tr", "p2pkh"]).optional().describe("Bitcoin only; default p2wpkh (native SegWit)"),
  custody: z
    .enum(["caller", "service"])
    .optional()
    .describe(
      "caller (default): the answer holds the new key, stored nowhere. service: a held wallet (EVM chains), its key kept encrypted in the service's keystore and never shown; writes from it need no key (201)",
    ),
});

export const Wallet = z.lazy(() =>
  z.object({
    address: shownAddress,
    privateKey: z
      .string()
      .describe("Shown once, stored nowhere. 0x-prefixed hex (EVM) or WIF (Bitcoin)")
      .meta({ examples: [EXAMPLE_ACCOUNT.privateKey] }),
    chain: z.string(),
    network: z.string(),
    addressType: z.string().optional(),
  }),
);

export const BalanceQuery = z.object({
  chain,
  network,
  address,
  erc20TokenContractAddresses: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe("ERC20 contracts: comma-separated and/or repeated, at most 50"),
});

/** A native balance; Bitcoin's also splits it into confirmed and unconfirmed (mempool). */
const nativeAmount = () => amount().extend({ confirmed: amount().optional(), unconfirmed: amount().optional() });

export const BalanceEntry = z.lazy(() =>
  nativeAmount().extend({
    contractAddress: z.string().optional(),
    decimals: z.number().int().nonnegative().optional(),
    symbol: z.string().optional(),
  }),
);

export const Balances = z.lazy(() =>
  z.object({
    chain: z.string(),
    network: z.string(),
    address: z.string(),
    simulated: z.boolean(),
    balances: z
      .record(z.string(), BalanceEntry)
      .describe("Keyed by symbol (ETH, BNB, BTC, token symbols); a token whose symbol is taken is keyed by its contract address"),
  }),
);

export const FaucetBody = z.strictObject({
  chain,
  network,
  address,
  amount: integerString("Smallest units; default 10 of the native currency").optional(),
});

export const FaucetResult = z.lazy(() =>
  z.object({
    id: z.string().describe("This grant's record id"),
    chain: z.string(),
    network: z.string(),
    address: z.string(),
    amount: amount(),
    decimals: z.number().int().nonnegative().describe("The native currency's decimals `amount` is in (18 for ETH, 8 for BTC)"),
    balance: nativeAmount().describe("The address's balance after the grant"),
    simulated: z.boolean(),
    transactionHash: z.string().optional(),
    warnings,
  }),
);
