import { z } from "zod/v4";

import { MAX_MINT_RECIPIENTS } from "../domain/mint-commands.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_SALT, EXAMPLE_TOKEN_CONTRACT, ONE_TOKEN } from "./examples.js";
import {
  address,
  amountEcho,
  chain,
  integerString,
  network,
  OperationState,
  preparedTransaction,
  shownAddress,
  signedWrite,
  transactionHash,
  warnings,
} from "./schemas.js";

// The shapes of token launches and mints, with the options each standard takes, and of token balance reads
// (routes/tokens.ts). As in schemas.ts they check shape only; the core checks meaning (a minter of that contract).

const contractAddress = z.string().meta({ examples: [EXAMPLE_TOKEN_CONTRACT] });
const option = (description: string) => z.boolean().optional().describe(description);
const access = z
  .enum(["ownable", "roles", "managed"])
  .optional()
  .describe(
    "Who may call the restricted functions (mint, pause): `ownable`, one owner (OpenZeppelin's Ownable); `roles`, role holders (AccessControl: MINTER_ROLE, PAUSER_ROLE, and DEFAULT_ADMIN_ROLE who grants them); `managed`, whoever the AccessManager `token.authority` allows (AccessManaged; compiled on first use). Default roles",
  );
const authority = address
  .optional()
  .describe(
    'The AccessManager contract of a token with `options.access` "managed" (required with it, refused without it): the token asks it before every restricted call. Checked before signing: an address without code, or a contract that does not answer canCall, is refused',
  );
const upgradeable = z
  .union([z.literal(false), z.enum(["uups", "transparent"])])
  .optional()
  .describe(
    "The Wizard's upgradeable: the token is deployed behind an OpenZeppelin proxy, in the launch's one transaction (a launcher contract deploys the implementation and the proxy, which runs `initialize`, and leaves no code). \"uups\": ERC1967Proxy, upgraded by the token (`upgradeToAndCall`, for the owner, UPGRADER_ROLE or whoever the AccessManager allows); \"transparent\": TransparentUpgradeableProxy, upgraded through its ProxyAdmin, owned by the token's admin. `contractAddress` is the proxy's. Compiled on first use",
  );
const votes = z.union([z.boolean(), z.enum(["blocknumber", "timestamp"])]).optional();
const royalty = z
  .strictObject({
    receiver: address.describe("Who receives the royalty"),
    basisPoints: z.number().int().min(0).max(10_000).describe("Out of 10 000: 250 = 2.5 % of the sale price"),
  })
  .optional()
  .describe("ERC-2981 royalty info (OpenZeppelin's ERC2981) for every token of the collection, set at launch");

export const Erc20Options = z
  .strictObject({
    burnable: option("ERC20Burnable: holders can burn (and burnFrom with an allowance)"),
    pausable: option("ERC20Pausable: pause()/unpause() stop and restart every transfer, mint and burn"),
    permit: option("ERC20Permit (EIP-2612): approvals by signature (permit, nonces, DOMAIN_SEPARATOR)"),
    capped: option("ERC20Capped: no mint past `token.totalSupply`, which it requires"),
    mintable: option("mint(to, amount) for the minter (MINTER_ROLE or the owner)"),
    votes: votes.describe(
      'ERC20Votes: delegation and vote checkpoints (delegate, getVotes, getPastVotes). `true` or "blocknumber" count in block numbers; "timestamp" in block timestamps (clock() and CLOCK_MODE "mode=timestamp", ERC-6372). Compiled on first use with "timestamp"',
    ),
    flashmint: option(
      "ERC20FlashMint (ERC-3156): flashLoan of newly minted tokens, repaid in the same transaction, no fee. Compiled on first use",
    ),
    callback: option(
      "ERC1363: transferAndCall, transferFromAndCall and approveAndCall, which call the receiver's or spender's hook. Compiled on first use",
    ),
    access,
    upgradeable,
  })
  .describe(
    "Each option adds one OpenZeppelin extension; without it the token does not have it. Without `options` at all, the launch deploys the historic ServiceERC20 (capped at totalSupply or uncapped, mintable, roles), as before options existed",
  )
  .meta({ examples: [{ burnable: true, permit: true, mintable: true, access: "ownable" }] });

export const Erc721Options = z
  .strictObject({
    burnable: option("ERC721Burnable: owners and approved operators can burn"),
    pausable: option("ERC721Pausable: pause()/unpause() stop and restart every transfer, mint and burn"),
    enumerable: option("ERC721Enumerable: totalSupply, tokenByIndex, tokenOfOwnerByIndex (balance reads then list token ids)"),
    uriStorage: option("ERC721URIStorage: a URI per token, given at mint (appended to the base `uri` when there is one)"),
    votes: votes.describe(
      'ERC721Votes: one vote per token, delegated (delegate, getVotes, getPastVotes). `true` or "blocknumber" count in block numbers; "timestamp" in block timestamps (ERC-6372). Compiled on first use',
    ),
    royalty,
    access,
    upgradeable,
  })
  .describe(
    "Each option adds one OpenZeppelin extension; without it the token does not have it. Without `options` at all, the launch deploys the historic ServiceERC721 (enumerable, own URIs, roles)",
  )
  .meta({ examples: [{ enumerable: true, royalty: { receiver: EXAMPLE_ACCOUNT.address, basisPoints: 250 } }] });

export const Erc1155Options = z
  .strictObject({
    burnable: option("ERC1155Burnable: holders and approved operators can burn"),
    pausable: option("ERC1155Pausable: pause()/unpause() stop and restart every transfer, mint and burn"),
    supply: option("ERC1155Supply: totalSupply(id), totalSupply() and exists(id)"),
    updatableUri: option("setURI(newuri) for the owner or URI_SETTER_ROLE: replaces every id's URI. Compiled on first use"),
    royalty,
    access,
    upgradeable,
  })
  .describe("Each option adds one OpenZeppelin extension; without it the collection does not have it")
  .meta({ examples: [{ supply: true, burnable: true }] });

export const Erc20Token = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .meta({ examples: ["Gold"] }),
  symbol: z
    .string()
    .min(1)
    .max(32)
    .meta({ examples: ["GLD"] }),
  decimals: z.number().int().min(0).max(36).optional().describe("Default 18"),
  initialSupply: integerString("Minted to `minter` at launch; default 0", "1000000000000000000000").optional(),
  totalSupply: integerString("Supply cap; omit for no cap", "1000000000000000000000000").optional(),
  minter: address.optional().describe("Receives the initial supply; default sender"),
  account: address
    .optional()
    .describe("Administers the token and may mint more; default sender. Refused with access managed (the AccessManager decides)"),
  options: Erc20Options.optional(),
  authority,
});

export const Erc721Token = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .meta({ examples: ["Art"] }),
  symbol: z
    .string()
    .min(1)
    .max(32)
    .meta({ examples: ["ART"] }),
  uri: z
    .string()
    .max(2048)
    .optional()
    .describe(
      "Base URI: tokenURI = uri + tokenId. Absolute, starting with ipfs://, ar://, https://, http:// or data:, without spaces or control characters",
    )
    .meta({ examples: ["https://example.com/art/"] }),
  options: Erc721Options.optional(),
  authority,
});

export const Erc1155Token = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .describe("The collection's name (ERC-1155 has none; the contract answers it as name())")
    .meta({ examples: ["Items"] }),
  uri: z
    .string()
    .max(2048)
    .optional()
    .describe(
      "Every id's metadata URI: clients replace `{id}` with the id as 64 lowercase hex digits (ERC-1155). Absolute, starting with ipfs://, ar://, https://, http:// or data:, without spaces or control characters",
    )
    .meta({ examples: ["https://example.com/items/{id}.json"] }),
  options: Erc1155Options.optional(),
  authority,
});

export const TokenType = z
  .string()
  .describe("SERVICE_ERC20, SERVICE_ERC721, SERVICE_ERC1155, ERC20, ERC721 or ERC1155, case-insensitive")
  .meta({ examples: ["SERVICE_ERC20"] });

const salt = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be 32 bytes as 0x-prefixed hex (66 characters)")
  .describe(
    "Deploys through the CREATE2 factory 0x4e59b44847b379578588920cA78FbF26c0B4956C: the address then depends only on the salt and the contract with its constructor arguments (type, token fields, options, and the sender where it is the default minter or owner), and is the same on every chain. A second launch at an address that holds a contract is refused (409 ALREADY_DEPLOYED)",
  )
  .meta({ examples: [EXAMPLE_SALT] });

const launchFields = {
  chain,
  network,
  type: TokenType,
  token: z.union([Erc20Token, Erc721Token, Erc1155Token]),
  sender: address.describe("Pays for the deployment; for ERC721 and ERC1155 it becomes the minter (and the owner or admin)"),
  salt: salt.optional(),
};

export const LaunchWrite = signedWrite(launchFields);

export const LaunchQuery = z.object({
  chain: chain.optional().describe("Must equal the body's chain when given"),
  network: network.optional().describe("Must equal the body's network when given"),
  wait: z.enum(["mined"]).optional().describe("Answer once mined (202 with status pending after the wait timeout)"),
});

export const Launch = z.lazy(() =>
  z.object({
    id: z.string().describe("This launch's record id"),
    transactionHash,
    contractAddress,
    status: OperationState.describe(
      "pending when answered at once; with wait=mined the state reached: mined, failed, dropped (or pending after the wait timeout)",
    ),
    chain: z.string(),
    network: z.string(),
    type: z.enum(["ERC20", "ERC721", "ERC1155"]),
    sender: shownAddress,
    nonce: z.number().int().nonnegative().describe("The sender's nonce this launch used"),
    simulated: z.boolean(),
    blockNumber: z.number().int().nonnegative().nullable().optional(),
    initialSupply: z.string().optional().describe("ERC20: the supply minted at launch, in smallest units, as understood"),
    uiInitialSupply: z
      .string()
      .optional()
      .describe("ERC20: `initialSupply` in whole tokens at `decimals`")
      .meta({ examples: ["1000"] }),
    totalSupply: z.string().optional().describe("ERC20 with a cap: the cap, in smallest units"),
    uiTotalSupply: z.string().optional().describe("ERC20 with a cap: the cap in whole tokens at `decimals`"),
    decimals: z.number().int().nonnegative().optional().describe("ERC20: the token's decimals"),
    warnings,
  }),
);

const positiveAmount = (description: string, example = ONE_TOKEN) =>
  z
    .string()
    .regex(/^0*[1-9]\d*$/, "must be a decimal string of a positive integer (smallest units)")
    .describe(description)
    .meta({ examples: [example] });

const tokenIdString = (description: string) => integerString(description, "1");

const mintUri = z
  .string()
  .max(2048)
  .describe(
    "Absolute (ipfs://, ar://, https://, http:// or data:) or relative to the token's base URI (7.json), without spaces or control characters",
  );

export const MintRecipient = z
  .strictObject({
    to: address.describe("Who receives it"),
    amount: positiveAmount("ERC20 and ERC1155 (required there): how many, in smallest units, greater than 0").optional(),
    tokenId: tokenIdString(
      "ERC721: a chosen id, given for every recipient or for none (then each gets the next free id); ERC1155 (required): which id",
    ).optional(),
    uri: mintUri.optional().describe("ERC721 launched with uriStorage: this token's own URI"),
  })
  .describe("One recipient of a batch mint");

const mintBatchLimit = (what: string) =>
  [MAX_MINT_RECIPIENTS, `at most ${MAX_MINT_RECIPIENTS} ${what} in one transaction: split the batch`] as const;

const mintFields = {
  chain,
  network,
  type: TokenType,
  contractAddress: address.meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
  to: address.optional().describe("Who receives it; required but with `recipients`"),
  tokenId: tokenIdString("ERC721: a chosen id; default the next free one. ERC1155 (required for one id): which id").optional(),
  uri: mintUri.optional().describe("ERC721 launched with uriStorage (or without options): this token's own URI"),
  amount: positiveAmount("ERC20 and ERC1155 (required there): how many, in smallest units, greater than 0").optional(),
  tokenIds: z
    .array(tokenIdString("An id of the collection"))
    .min(1, "must name at least one id")
    .max(...mintBatchLimit("ids"))
    .optional()
    .describe("ERC1155: several ids to `to` in one call of the collection's mintBatch, `amounts` in the same order"),
  amounts: z
    .array(positiveAmount("How many of the id at the same position of tokenIds", "10"))
    .min(1, "must name at least one amount")
    .max(...mintBatchLimit("amounts"))
    .optional()
    .describe("ERC1155 with tokenIds: how many of each"),
  recipients: z
    .array(MintRecipient)
    .min(1, "must name at least one recipient")
    .max(...mintBatchLimit("recipients"))
    .optional()
    .describe(
      `Several recipients minted in one transaction (the token's airdrop function), all or nothing; at most ${MAX_MINT_RECIPIENTS}. Then no top-level to, amount, tokenId or uri. Tokens launched without options (the historic contracts) have no batch mint: 422 BATCH_MINT_UNSUPPORTED`,
    ),
  sender: address.describe(
    "A minter of the contract: a MINTER_ROLE holder, the owner of a token launched with access ownable, or a caller its AccessManager allows (access managed)",
  ),
};

export const MintWrite = signedWrite(mintFields);

const mintedRecipient = z.lazy(() =>
  z.object({
    to: shownAddress,
    amount: z.string().optional(),
    uiAmount: z.string().optional().describe("ERC20: `amount` in whole tokens at the answer's `decimals`"),
    tokenId: z.string().optional(),
    uri: z.string().optional(),
  }),
);

export const Mint = z.lazy(() =>
  z.object({
    id: z.string(),
    transactionHash: z.string(),
    status: OperationState,
    chain: z.string(),
    network: z.string(),
    type: z.enum(["ERC20", "ERC721", "ERC1155"]),
    contractAddress: z.string(),
    to: z.string().optional().describe("Who received it; absent for a batch (each recipient names its own)"),
    tokenId: z.string().optional().describe("ERC721: the id given, or, with wait=mined, the id minted; ERC1155: the id"),
    amount: z.string().optional(),
    ...amountEcho,
    tokenIds: z
      .array(z.string())
      .optional()
      .describe("ERC1155 mintBatch: the ids. An ERC721 batch, with wait=mined: the ids minted, in the order of recipients"),
    amounts: z.array(z.string()).optional().describe("ERC1155 mintBatch: how many of each id"),
    recipients: z.array(mintedRecipient).optional().describe("A batch's recipients, as given"),
    simulated: z.boolean(),
    blockNumber: z.number().int().nonnegative().nullable().optional(),
    warnings,
  }),
);

const tokenStandard = z.enum(["ERC20", "ERC721", "ERC1155"]);
export const PreparedLaunch = z.lazy(() =>
  preparedTransaction(tokenStandard).extend({
    contractAddress: z.string().describe("Where the token will be, given the nonce (or, with a salt, given the salt)"),
  }),
);
export const PreparedMint = z.lazy(() => preparedTransaction(tokenStandard));

export const TokenBalanceQuery = z.object({
  tokenAddress: address.meta({ examples: [EXAMPLE_TOKEN_CONTRACT] }),
  type: z
    .string()
    .describe("erc20, erc721 or erc1155")
    .meta({ examples: ["erc20"] }),
  tokenId: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe("erc1155 only, and required there: the ids to read, comma-separated and/or repeated, at most 50"),
  chain,
  network,
});

export const TokenBalance = z.lazy(() =>
  z.object({
    address: z.string(),
    tokenAddress: z.string(),
    type: z.enum(["erc20", "erc721", "erc1155"]),
    balance: z.string().describe("erc1155: the sum over the ids read"),
    tokenIds: z.array(z.string()).optional(),
    tokenBalances: z
      .array(z.object({ tokenId: z.string(), balance: z.string() }))
      .optional()
      .describe("erc1155: each id read, in the order asked"),
    uiBalance: z.string().optional(),
    decimals: z.number().int().nonnegative().optional(),
    symbol: z.string().optional(),
    chain: z.string(),
    network: z.string(),
    simulated: z.boolean(),
  }),
);
