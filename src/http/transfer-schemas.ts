import { z } from "zod/v4";

import { ASSET_TYPES } from "../domain/asset-types.js";
import { EXAMPLE_NFT_CONTRACT, EXAMPLE_TOKEN_CONTRACT } from "./examples.js";
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

// The shapes of transfers, approvals and the token reads that follow them (routes/transfers.ts). As in schemas.ts they
// check shape only; the core checks meaning (an address of that network, a token the sender holds).

const AssetType = z
  .string()
  .describe("NATIVE, ERC20, ERC721 or ERC1155, case-insensitive")
  .meta({ examples: ["ERC20"] });
export const TokenStandard = z
  .string()
  .describe("ERC20, ERC721 or ERC1155, case-insensitive")
  .meta({ examples: ["ERC20"] });
export const tokenContract = address.describe("The token contract").meta({ examples: [EXAMPLE_TOKEN_CONTRACT] });
const shownType = z.enum(ASSET_TYPES);
export const shownStandard = z.enum(["ERC20", "ERC721", "ERC1155"]);

const transferFields = {
  chain,
  network,
  type: AssetType,
  contractAddress: tokenContract.optional().describe("The token; not for NATIVE"),
  to: address.describe("The recipient; not the zero address"),
  amount: integerString("NATIVE, ERC20 and ERC1155: how much, in smallest units (wei for NATIVE); greater than 0").optional(),
  tokenId: integerString("ERC721 and ERC1155: which token", "1").optional(),
  sender: address.describe("Sends it, and pays the fee"),
};

export const TransferWrite = signedWrite(transferFields);

/** What every write answers of its operation. */
export const settled = {
  id: z.string().describe("This operation's record id"),
  transactionHash,
  status: OperationState.describe(
    "pending when answered at once; with wait=mined the state reached: mined, failed, dropped (or pending after the wait timeout)",
  ),
  chain: z.string(),
  network: z.string(),
};

export const Transfer = z.lazy(() =>
  z.object({
    ...settled,
    type: shownType,
    sender: shownAddress,
    contractAddress: z.string().optional().describe("Absent for NATIVE"),
    to: z.string(),
    tokenId: z.string().optional(),
    amount: z.string().optional().describe("Smallest units"),
    ...amountEcho,
    nonce: z.number().int().nonnegative().describe("The sender's nonce this transfer used"),
    simulated: z.boolean(),
    blockNumber: z.number().int().nonnegative().nullable().optional(),
    warnings,
  }),
);

/** A Bitcoin send from a held wallet (docs/custody.md): satoshis, at a fee rate. */
export const BitcoinTransferBody = z.strictObject({
  chain: z.literal("bitcoin"),
  network,
  type: z.literal("NATIVE").optional().describe("Bitcoin sends its native currency only"),
  to: address.describe("The recipient, an address of the network"),
  amount: integerString("Satoshis; greater than 0, and above the recipient's dust limit", "100000"),
  sender: address.describe("A held wallet of your API key on the network: the service signs"),
  feeRate: z.number().min(1).max(10_000).optional().describe("sat/vB; default: the backend's estimate for the next two blocks"),
});

export const BitcoinTransfer = z.lazy(() =>
  z.object({
    ...settled,
    type: z.literal("NATIVE"),
    sender: z.string(),
    to: z.string(),
    amount: z.string().describe("Satoshis"),
    fee: z.string().describe("Satoshis paid to miners"),
    feeRate: z.number().describe("sat/vB paid"),
    blockNumber: z.number().int().nonnegative().nullable().optional(),
  }),
);

const approveFields = {
  chain,
  network,
  type: TokenStandard,
  contractAddress: tokenContract,
  spender: address.describe("Who may then move the sender's tokens; not the zero address"),
  amount: integerString("ERC20: the allowance, in smallest units (0 revokes it)").optional(),
  tokenId: integerString("ERC721: approve spender for this one token", "1").optional(),
  all: z.boolean().optional().describe("ERC721 and ERC1155: spender may move every token of the sender (true), or no more (false)"),
  sender: address.describe("The holder; pays the fee"),
};

export const ApproveWrite = signedWrite(approveFields);

export const Approval = z.lazy(() =>
  z.object({
    ...settled,
    type: shownStandard,
    contractAddress: z.string(),
    sender: shownAddress,
    spender: z.string(),
    amount: z.string().optional(),
    ...amountEcho,
    tokenId: z.string().optional(),
    all: z.boolean().optional(),
    nonce: z.number().int().nonnegative().describe("The sender's nonce this approval used"),
    simulated: z.boolean(),
    blockNumber: z.number().int().nonnegative().nullable().optional(),
    warnings,
  }),
);

export const PreparedTransfer = z.lazy(() => preparedTransaction(shownType));
export const PreparedApproval = z.lazy(() => preparedTransaction(shownStandard));

export const AllowanceQuery = z.object({
  chain,
  network,
  type: TokenStandard,
  contractAddress: tokenContract,
  owner: address.describe("The holder"),
  spender: address,
  tokenId: integerString("ERC721: also whether spender is approved for this token", "1").optional(),
});

export const Allowance = z.lazy(() =>
  z.object({
    chain: z.string(),
    network: z.string(),
    type: shownStandard,
    contractAddress: z.string(),
    owner: z.string(),
    spender: z.string(),
    allowance: z.string().optional().describe("ERC20: what spender may still move from owner, in smallest units"),
    tokenId: z.string().optional(),
    approved: z.boolean().optional().describe("ERC721 with tokenId: spender is that token's approved address"),
    isApprovedForAll: z.boolean().optional().describe("ERC721 and ERC1155: spender may move every token of owner"),
    simulated: z.boolean(),
  }),
);

export const PairQuery = z.object({ chain, network });

export const TokenInfo = z.lazy(() =>
  z.object({
    chain: z.string(),
    network: z.string(),
    contractAddress: z.string(),
    type: shownStandard.describe("By ERC-165 (ERC721, ERC1155), else ERC20 when totalSupply() and balanceOf() answer"),
    name: z.string().optional(),
    symbol: z.string().optional(),
    decimals: z.number().int().nonnegative().optional().describe("ERC20 only"),
    totalSupply: z.string().optional().describe("ERC20, and ERC721 contracts that have totalSupply() (enumerable ones)"),
    cap: z.string().optional().describe("When the contract has cap()"),
    paused: z.boolean().optional().describe("When the contract has paused()"),
    owner: z.string().optional().describe("When the contract has owner() (Ownable)"),
    authority: z
      .string()
      .optional()
      .describe('When the contract has authority() (AccessManaged: a token launched with access "managed"): its AccessManager'),
    upgradeable: z
      .object({
        kind: z
          .enum(["uups", "transparent"])
          .describe("uups: the implementation upgrades itself (upgradeToAndCall); transparent: the ProxyAdmin `admin` upgrades it"),
        implementation: z.string().describe("The ERC-1967 implementation slot: the contract whose code the proxy runs"),
        admin: z.string().optional().describe("transparent only: the ERC-1967 admin slot, the proxy's ProxyAdmin contract"),
      })
      .optional()
      .describe("When the contract is an ERC-1967 proxy (a token launched with `options.upgradeable`), read from its slots"),
    features: z
      .array(z.string())
      .describe(
        "Sorted. By ERC-165: enumerable, metadata, accessControl, royalties (ERC-2981), uriStorage (ERC-4906, ERC721); by probing views: capped (cap()), pausable (paused()), ownable (owner()), managed (authority()); by the functions in the contract's code (through EIP-1967 and EIP-1167 proxies): burnable (burn), mintable (the mint functions this service calls), batchMint (airdrop, which `recipients` on a mint needs), permit (EIP-2612, ERC20), votes (delegate, ERC20), supply (totalSupply(id), ERC1155)",
      ),
    simulated: z.boolean(),
  }),
);

export const OwnedTokensQuery = z.object({
  chain,
  network,
  cursor: z.string().optional().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("Ids per page; default 100"),
  fromBlock: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "Non-enumerable contracts: the block their Transfer log search starts at (default 0); a live provider may refuse a long range",
    ),
});

export const OwnedTokens = z.lazy(() =>
  z.object({
    chain: z.string(),
    network: z.string(),
    contractAddress: z.string().meta({ examples: [EXAMPLE_NFT_CONTRACT] }),
    owner: z.string(),
    type: z.enum(["ERC721", "ERC1155"]).describe("The contract's standard, by ERC-165"),
    balance: z
      .string()
      .describe("How many ids owner holds on the contract: an ERC721's balanceOf; for an ERC1155, how many ids it holds any amount of"),
    tokenIds: z.array(z.string()).describe("Ascending, after the cursor's id"),
    amounts: z
      .array(z.string())
      .optional()
      .describe("ERC1155 only: the amount owner holds of each id in tokenIds, in the same order (smallest units)"),
    nextCursor: z
      .string()
      .nullable()
      .describe("Pass as cursor for the next page; null on the last. It names the last id listed, so it never expires"),
    source: z
      .enum(["enumerable", "transfer-logs"])
      .describe(
        "ERC721Enumerable's index, or the contract's transfer logs to owner (ERC721 Transfer; ERC1155 TransferSingle and TransferBatch), each id checked at the block read with ownerOf or balanceOfBatch",
      ),
    simulated: z.boolean(),
  }),
);
