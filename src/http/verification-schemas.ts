import { z } from "zod/v4";

import { EXAMPLE_TOKEN_CONTRACT } from "./examples.js";
import { chain, network } from "./schemas.js";

// The shape of a launched token's verification input (docs/tokens.md#verifying-a-token): what Etherscan, Blockscout and
// Sourcify take to verify a contract from its standard JSON input.

export const TokenVerificationQuery = z.object({ chain, network });

const optimizer = z.object({ enabled: z.boolean(), runs: z.number().int() });

/** A compiled contract's fields, for the token and its implementation (built with the answer, on first use). */
const contractFields = () => ({
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
});

export const TokenVerificationAnswer = z.lazy(() => {
  const contract = contractFields();
  return z.object({
    chain: z.string(),
    network: z.string(),
    address: z
      .string()
      .describe("The contract, checksummed")
      .meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
    ...contract,
    implementation: z
      .object({
        address: z
          .string()
          .describe("The implementation, checksummed (the launcher's first CREATE, or after an upgrade the CREATE2 factory's)"),
        ...contract,
        upgrade: z
          .object({ operationId: z.string() })
          .optional()
          .describe("After an upgrade of yours (POST /tokens/upgrade): its record, whose implementation this is"),
      })
      .optional()
      .describe(
        "An upgradeable token's (`options.upgradeable`): the top then answers for its proxy (`ERC1967Proxy` or `TransparentUpgradeableProxy`, compiled in the launcher's input, with the arguments the launcher gave it), and this for the implementation behind it, in the same shape. Verify both, the implementation first",
      ),
    launch: z
      .object({
        operationId: z.string(),
        status: z.string().describe("The launch record's status: verify once it is `mined` (or `confirmed`)"),
        transactionHash: z.string().nullable(),
      })
      .describe("The launch this answers for"),
  });
});

// A submission of the token's verification to an explorer, and its record (docs/decisions/0061-explorer-verification.md).

export const VerifyTokenBody = z.object({
  chain,
  network,
  explorer: z
    .enum(["etherscan", "blockscout", "sourcify"])
    .describe(
      "`etherscan` (API v2, TOKEN_SERVICE_ETHERSCAN_API_KEY), `blockscout` (the pair's TOKEN_SERVICE_BLOCKSCOUT_<CHAIN>_<NETWORK> instance) or `sourcify`",
    ),
});

export const VerificationRecordAnswer = z.lazy(() =>
  z.object({
    id: z.string().meta({ examples: ["0b6f1c2e-8a4d-4f7e-9c51-3d2a7e6b5f10"] }),
    status: z
      .enum(["pending", "verified", "failed"])
      .describe(
        "`pending` until the explorer's answer is final; `verified` (already verified counts); `failed`, with the explorer's words, or after TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS still pending",
      ),
    explorer: z.enum(["etherscan", "blockscout", "sourcify"]),
    chain: z.string(),
    network: z.string(),
    address: z
      .string()
      .describe("The contract, checksummed")
      .meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
    explorerMessage: z
      .string()
      .nullable()
      .describe("What the explorer said last, in its own words (`Pass - Verified`, `Pending in queue`, `Fail - Unable to verify…`)"),
    explorerReference: z.string().nullable().describe("Etherscan's or Blockscout's guid, Sourcify's verificationId, once it accepted"),
    url: z.string().nullable().describe("The contract's page on the explorer, where known"),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
