import type { AmountEcho, Warned } from "./amount-echo.js";
import type { AssetType, TokenStandard } from "./asset-types.js";
import type { PairRequest, SigningFields } from "./requests.js";

// Moving native currency and tokens, approving spenders, and the reads that follow: what the doors accept and what
// the core answers. Amounts are smallest units, as decimal strings.

export interface TransferRequest extends PairRequest, SigningFields {
  /** NATIVE, ERC20, ERC721 or ERC1155. */
  type: string;
  /** The token; absent for NATIVE. */
  contractAddress?: string;
  to: string;
  /** NATIVE, ERC20 and ERC1155: how much, in smallest units (greater than 0). */
  amount?: string | number;
  /** ERC721 and ERC1155: which token. */
  tokenId?: string | number;
  sender: string;
}

export interface ApproveRequest extends PairRequest, SigningFields {
  /** ERC20, ERC721 or ERC1155. */
  type: string;
  contractAddress: string;
  spender: string;
  /** ERC20: the allowance, in smallest units (0 revokes it). */
  amount?: string | number;
  /** ERC721: approve `spender` for this one token. */
  tokenId?: string | number;
  /** ERC721 and ERC1155: make `spender` an operator of all the sender's tokens (true) or no more (false). */
  all?: boolean;
  sender: string;
}

/** A transfer as the node accepted it, before its record says more. */
export interface TransferResult extends AmountEcho, Warned {
  transactionHash: string;
  status: "pending";
  chain: string;
  network: string;
  type: AssetType;
  contractAddress?: string;
  sender: string;
  to: string;
  amount?: string;
  tokenId?: string;
  nonce: number;
  simulated: boolean;
}

/** An approval as the node accepted it, before its record says more. */
export interface ApproveResult extends AmountEcho, Warned {
  transactionHash: string;
  status: "pending";
  chain: string;
  network: string;
  type: TokenStandard;
  contractAddress: string;
  sender: string;
  spender: string;
  amount?: string;
  tokenId?: string;
  all?: boolean;
  nonce: number;
  simulated: boolean;
}

export interface AllowanceRequest extends PairRequest {
  type: string;
  contractAddress: string;
  owner: string;
  spender: string;
  /** ERC721: also whether `spender` is approved for this token. */
  tokenId?: string | number;
}

export interface AllowanceResult {
  chain: string;
  network: string;
  type: TokenStandard;
  contractAddress: string;
  owner: string;
  spender: string;
  /** ERC20: what `spender` may still transfer from `owner`, in smallest units. */
  allowance?: string;
  /** ERC721 with a token id: that token's approved address is `spender`. */
  tokenId?: string;
  approved?: boolean;
  /** ERC721 and ERC1155: `spender` is an operator of all `owner`'s tokens. */
  isApprovedForAll?: boolean;
  simulated: boolean;
}

export interface TokenInfoRequest extends PairRequest {
  contractAddress: string;
}

/** What a token contract answers about itself, and what it was found to support. */
export interface TokenInfoResult {
  chain: string;
  network: string;
  contractAddress: string;
  type: TokenStandard;
  name?: string;
  symbol?: string;
  /** ERC20 only. */
  decimals?: number;
  /** ERC20, and ERC721 contracts that are enumerable. */
  totalSupply?: string;
  /** ERC20 with a supply cap. */
  cap?: string;
  /** Present when the contract has `paused()`. */
  paused?: boolean;
  /** Present when the contract has `owner()` (Ownable). */
  owner?: string;
  /** Present when the contract has `authority()` (AccessManaged): its AccessManager. */
  authority?: string;
  /**
   * Present when the contract is an ERC-1967 proxy (an upgradeable launch): how it upgrades, its implementation (the
   * implementation slot), and for a transparent proxy its ProxyAdmin (the admin slot).
   */
  upgradeable?: { kind: "uups" | "transparent"; implementation: string; admin?: string };
  /**
   * What it was found to support, sorted: by ERC-165 (`enumerable`, `metadata`, `accessControl`, `royalties`) and by
   * probing its views (`capped`, `pausable`, `ownable`, `managed`).
   */
  features: string[];
  simulated: boolean;
}

export interface OwnedTokensRequest extends PairRequest {
  contractAddress: string;
  owner: string;
  /** The page's `nextCursor` of the page before; absent for the first page. */
  cursor?: string;
  /** Ids per page; default 100, at most 1000. */
  limit?: number;
  /** Non-enumerable contracts: the block the Transfer log scan starts at (default 0, the genesis). */
  fromBlock?: number;
}

export interface OwnedTokensResult {
  chain: string;
  network: string;
  contractAddress: string;
  owner: string;
  type: "ERC721" | "ERC1155";
  /** How many ids the owner holds on the contract: an ERC721's balanceOf; for an ERC1155, the ids held in any amount. */
  balance: string;
  /** In ascending order, after the cursor's id. */
  tokenIds: string[];
  /** ERC1155 only: the amount held of each id in `tokenIds`, in the same order. */
  amounts?: string[];
  /** Pass as `cursor` for the next page; null on the last. It names the last id listed, so it never expires. */
  nextCursor: string | null;
  /** How the ids were found: ERC721Enumerable's index, or the transfer logs to the owner, each id checked at the block read. */
  source: "enumerable" | "transfer-logs";
  simulated: boolean;
}
