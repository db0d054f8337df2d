import { z } from "zod/v4";

import { EXAMPLE_TOKEN_CONTRACT } from "./examples.js";
import { chain, network } from "./schemas.js";

// The shape of a launched token's verification input (docs/tokens.md#verifying-a-token): what Etherscan, Blockscout and
// Sourcify take to verify a contract from its standard JSON input.

export const TokenVerificationQuery = z.object({ chain, network });

const optimizer = z.object({ enabled: z.boolean(), runs: z.number().int() });

export const TokenVerificationAnswer = z.object({
  chain: z.string(),
  network: z.string(),
  address: z
    .string()
    .describe("The contract, checksummed")
    .meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
  contractName: z
    .string()
    .describe("`ServiceERC20`, `ServiceERC721`, or the variant the launch's options chose")
    .meta({
      examples: ["ServiceERC20BurnableOwnable"],
    }),
  fullyQualifiedName: z
    .string()
    .describe("`<source unit>:<contract>`, as Etherscan's `contractname` and Sourcify's `contractIdentifier` take it")
    .meta({ examples: ["token-variants/erc20/ServiceERC20BurnableOwnable.sol:ServiceERC20BurnableOwnable"] }),
  compilerVersion: z
    .string()
    .describe("solc's long version, as explorers write it")
    .meta({ examples: ["v0.8.28+commit.7893614a"] }),
  evmVersion: z.string().meta({ examples: ["shanghai"] }),
  optimizer: optimizer.meta({ examples: [{ enabled: true, runs: 200 }] }),
  constructorArguments: z
    .string()
    .describe(
      "The ABI-encoded constructor arguments the deployment carried after the bytecode, 0x-prefixed (Etherscan takes them without the 0x)",
    ),
  standardJsonInput: z
    .object({
      language: z.literal("Solidity"),
      sources: z.record(z.string(), z.object({ content: z.string() })),
      settings: z.record(z.string(), z.unknown()),
    })
    .describe("solc's standard JSON input: every source the contract needs, with the settings it was compiled with"),
  launch: z
    .object({
      operationId: z.string(),
      status: z.string().describe("The launch record's status: verify once it is `mined` (or `confirmed`)"),
      transactionHash: z.string().nullable(),
    })
    .describe("The launch this answers for"),
});
