import type { AmountEcho, Warned } from "./amount-echo.js";
import type { TokenStandard } from "./asset-types.js";
import type { PairRequest, SigningFields } from "./requests.js";

// The writes that change a token itself rather than move it: its supply (burn), whether it moves at all (pause), who may
// do what (roles, ownership). What the doors accept and what the core answers once the node accepted the transaction.

export interface BurnRequest extends PairRequest, SigningFields {
  /** ERC20, ERC721 or ERC1155. */
  type: string;
  contractAddress: string;
  /** ERC20 and ERC1155: how much, in smallest units (greater than 0). */
  amount?: string | number;
  /** ERC721 and ERC1155: which token. */
  tokenId?: string | number;
  /** Burns its own tokens (an ERC721 token it may move as approved operator too), and pays the fee. */
  sender: string;
}

export interface PauseRequest extends PairRequest, SigningFields {
  contractAddress: string;
  /** true: pause() stops every transfer, mint and burn; false: unpause(). */
  paused: boolean;
  /** The pauser (PAUSER_ROLE) or the owner. */
  sender: string;
}

/** A role grant or revoke (AccessControl's grantRole, revokeRole; domain/kinds/roles.ts): the facade's methods take it. */
export interface RoleRequest extends PairRequest, SigningFields {
  contractAddress: string;
  /** A role the token names (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE, …), or a role id as 32 bytes of 0x hex. */
  role: string;
  /** Who is given the role, or loses it. */
  account: string;
  /** A holder of the role's admin role (DEFAULT_ADMIN_ROLE for the service's tokens). */
  sender: string;
}

/** Ownable's transferOwnership (domain/kinds/transfer-ownership.ts): the request the facade's method takes. */
export interface OwnershipRequest extends PairRequest, SigningFields {
  contractAddress: string;
  newOwner: string;
  /** The owner. */
  sender: string;
}

/** What every one of these answers once the node accepted it, before its record says more. */
/** What every write to a contract answers once the node accepted it (the admin writes, the upgrade write). */
export interface AcceptedWrite {
  transactionHash: string;
  status: "pending";
  chain: string;
  network: string;
  contractAddress: string;
  sender: string;
  nonce: number;
  simulated: boolean;
}

export interface BurnResult extends AcceptedWrite, AmountEcho, Warned {
  type: TokenStandard;
  amount?: string;
  tokenId?: string;
}

export interface PauseResult extends AcceptedWrite {
  paused: boolean;
}

export interface RoleResult extends AcceptedWrite {
  /** As the request named it. */
  role: string;
  /** The bytes32 id the contract knows it by (keccak-256 of the name; DEFAULT_ADMIN_ROLE is 0x00…00). */
  roleId: string;
  account: string;
}

export interface OwnershipResult extends AcceptedWrite {
  newOwner: string;
}
