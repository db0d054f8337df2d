import { z } from "zod/v4";

import { written } from "./admin-schemas.js";
import { EXAMPLE_TOKEN_CONTRACT } from "./examples.js";
import { address, chain, network, OperationState, shownAddress, signedWrite, transactionHash } from "./schemas.js";
import { Erc1155Options, Erc20Options, Erc721Options } from "./token-schemas.js";

// The shapes of an upgrade (routes/upgrade.ts, docs/decisions/0066-upgrade-write.md). The options are checked by the
// core once the token's kind is known (from its launch), by the parser a launch's options go through.

const options = z
  .union([Erc20Options, Erc721Options, Erc1155Options])
  .describe(
    "The new implementation's options, as a launch's `token.options` for the token's type: `upgradeable` and `access` as the token has them, the other options as the token should have them from now on. Options whose state an initializer sets (`capped`, `royalty`, `permit`, `votes`) cannot be added: an upgrade runs no initializer",
  )
  .meta({ examples: [{ burnable: true, pausable: true, access: "ownable", upgradeable: "uups" }] });

const fields = {
  chain,
  network,
  contractAddress: address
    .describe("The token: a proxy a launch of yours with `token.options.upgradeable` deployed on the pair")
    .meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
  options,
  sender: address.describe(
    "Who upgrades, and pays both fees: a UUPS token's owner, UPGRADER_ROLE holder or AccessManager-allowed caller; a transparent proxy's ProxyAdmin owner",
  ),
};

/** The body as documented; checked with the options left to the core (see `UpgradeFields`). */
export const UpgradeWrite = signedWrite(fields);
/** What the door checks: the options an object, their meaning the core's (it knows the token's kind). */
export const UpgradeFields = z.strictObject({
  ...fields,
  options: z.record(z.string(), z.unknown()),
  privateKey: z.string().optional(),
  signedTransaction: z.string().optional(),
});

const implementation = z.object({
  address: shownAddress.describe("The new implementation, deployed by the CREATE2 factory at salt zero: one address per variant and chain"),
  operationId: z
    .string()
    .nullable()
    .describe("The record of its deployment; null when its code was already there (another upgrade deployed it)"),
});

export const Upgrade = z.lazy(() =>
  z.object({
    ...written,
    type: z.string(),
    upgradeable: z.enum(["uups", "transparent"]),
    variant: z.string().describe("The new implementation's contract name"),
    options: z.record(z.string(), z.unknown()).describe("As the request gave them"),
    implementation,
    previousImplementation: shownAddress.describe("What the proxy pointed at before"),
  }),
);

export const UpgradeAwaitingImplementation = z.lazy(() =>
  z.object({
    chain: z.string(),
    network: z.string(),
    contractAddress: z.string(),
    sender: shownAddress,
    implementation: implementation.extend({
      operationId: z.string(),
      status: OperationState,
      transactionHash: transactionHash.nullable(),
    }),
    previousImplementation: shownAddress,
  }),
);
