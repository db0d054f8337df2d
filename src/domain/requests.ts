import type { TransactionLike } from "ethers";

import type { AssetType } from "./asset-types.js";
import type { NetworkInfo } from "./chains.js";
import type { TokenType } from "./token-params.js";
import type { AmountEcho, SupplyEcho, Warned } from "./amount-echo.js";
import type { AmountPair } from "./units.js";

// What the doors accept and what the core answers: plain data, parsed and checked by the core.

export interface PairRequest {
  chain: string;
  network: string;
}

export interface BalancesRequest extends PairRequest {
  address: string;
  erc20TokenContractAddresses?: string[];
}

export interface BalanceEntry extends AmountPair {
  contractAddress?: string;
  decimals?: number;
  symbol?: string;
  confirmed?: AmountPair;
  unconfirmed?: AmountPair;
}

export interface BalancesResult {
  chain: string;
  network: string;
  address: string;
  simulated: boolean;
  balances: Record<string, BalanceEntry>;
}

export interface TokenBalanceRequest extends PairRequest {
  address: string;
  tokenAddress: string;
  type: string;
  /** ERC1155 only, and required there: the ids to read (a list, or one string of comma-separated ids). */
  tokenId?: string | number | Array<string | number>;
}

/** One id's balance of an ERC1155 collection. */
export interface TokenIdBalance {
  tokenId: string;
  balance: string;
}

export interface TokenBalanceResult {
  chain: string;
  network: string;
  address: string;
  tokenAddress: string;
  type: "erc20" | "erc721" | "erc1155";
  /** ERC1155: the sum over the ids read (each id's in `tokenBalances`). */
  balance: string;
  simulated: boolean;
  tokenIds?: string[];
  /** ERC1155: each id read, in the order asked. */
  tokenBalances?: TokenIdBalance[];
  tokenIdsTruncated?: boolean;
  uiBalance?: string;
  decimals?: number;
  symbol?: string;
}

/** Who signs a launch or mint: the service with `privateKey`, or the caller, who sends the prepared transaction signed. */
export interface SigningFields {
  /** The sender's key; used to sign, never stored or logged. */
  privateKey?: string;
  /** The transaction `prepareLaunch`/`prepareMint` answered for this same request, signed by the sender. */
  signedTransaction?: string;
}

export interface LaunchRequest extends PairRequest, SigningFields {
  type: string;
  token: unknown;
  sender: string;
  /** 32 bytes as 0x hex: deploys through the CREATE2 factory, at an address that depends on the salt and the contract only. */
  salt?: string;
}

/** One recipient of a batch mint: `to`, and what it receives (ERC20 `amount`; ERC721 `tokenId`, `uri`; ERC1155 `tokenId` and `amount`). */
export interface MintRecipientRequest {
  to: string;
  amount?: string | number;
  tokenId?: string | number;
  uri?: string;
}

export interface MintRequest extends PairRequest, SigningFields {
  type: string;
  contractAddress: string;
  /** The holder; absent with `recipients`. */
  to?: string;
  /** ERC721: a chosen id (default the next free one); ERC1155: which id. */
  tokenId?: string | number;
  /** ERC721: this token's own URI. */
  uri?: string;
  /** ERC20 and ERC1155: how many, in smallest units (greater than 0). */
  amount?: string | number;
  /** ERC1155: several ids to `to` in one call (the collection's mintBatch), with `amounts` in the same order. */
  tokenIds?: Array<string | number>;
  amounts?: Array<string | number>;
  /** Several recipients in one transaction (the token's airdrop), all or nothing; at most MAX_MINT_RECIPIENTS. */
  recipients?: MintRecipientRequest[];
  sender: string;
}

/** A launch or mint's request as prepared for the caller to sign: no key, no signature. */
export type Unsigned<T> = Omit<T, keyof SigningFields>;

export interface PrepareHooks {
  heldNonces?(): Promise<number[]>;
  /** Reserves the prepared transaction's nonce; answers when the reservation expires, or undefined when the nonce is taken. */
  reserve(transaction: TransactionLike): Promise<string | undefined>;
}

export interface PreparedTransactionResult {
  chain: string;
  network: string;
  /** A launch's or mint's token type; a transfer's, approval's or burn's asset type; none for a write to any token (a pause). */
  type?: TokenType | AssetType;
  sender: string;
  transaction: TransactionLike;
  expiresAt: string;
  /** A launch's: where the token will be, given the prepared nonce. */
  contractAddress?: string;
}

export interface FaucetRequest extends PairRequest {
  address: string;
  /** Smallest units; default 10 of the native currency. */
  amount?: string | number;
}

export interface FaucetHooks {
  grantId?: string;
  beforeGrant?(grant: { chain: string; network: string; address: string; amount: string }): Promise<void>;
}

export interface FaucetResult extends Warned {
  chain: string;
  network: string;
  address: string;
  amount: AmountPair;
  /** The native currency's decimals `amount` is in. */
  decimals: number;
  /** After the grant; Bitcoin's splits into confirmed and unconfirmed. */
  balance: AmountPair & Pick<BalanceEntry, "confirmed" | "unconfirmed">;
  simulated: boolean;
  transactionHash?: string;
}

export interface TransactionRequest extends PairRequest {
  transactionHash: string;
}

export interface NetworkSummary extends NetworkInfo {
  simulated: boolean;
  backend: string;
  endpoint: string;
}

/** How many ERC20 contracts one balance read may name. */
export const MAX_ERC20_CONTRACTS_PER_READ = 50;

/** How many ERC1155 ids one token balance read may name. */
export const MAX_ERC1155_IDS_PER_READ = 50;

/** A launch as the node accepted it, before its record says more; an ERC20's echoes its supply (amount-echo.ts). */
export interface LaunchResult extends Partial<SupplyEcho>, Warned {
  transactionHash: string;
  contractAddress: string;
  status: "pending";
  chain: string;
  network: string;
  type: TokenType;
  sender: string;
  nonce: number;
  simulated: boolean;
}

/** A batch mint's recipient as answered: numbers as decimal strings. */
export interface MintRecipientResult {
  to: string;
  amount?: string;
  /** ERC20: `amount` in whole tokens at the answer's `decimals`. */
  uiAmount?: string;
  tokenId?: string;
  uri?: string;
}

/** A mint as the node accepted it, before its record says more. */
export interface MintResult extends AmountEcho, Warned {
  transactionHash: string;
  status: "pending";
  chain: string;
  network: string;
  type: TokenType;
  contractAddress: string;
  /** Absent for a batch: its recipients name theirs. */
  to?: string;
  tokenId?: string;
  amount?: string;
  /** An ERC1155 mintBatch's ids and amounts; an ERC721 batch's minted ids once mined, in the order of `recipients`. */
  tokenIds?: string[];
  amounts?: string[];
  recipients?: MintRecipientResult[];
  simulated: boolean;
}
