import { Interface } from "ethers";

// The token standards as the service moves, approves and reads tokens it did not necessarily launch: OpenZeppelin's
// interfaces (IERC20, IERC721, IERC1155 and their metadata extensions), the views the service probes for, and the
// custom errors OpenZeppelin 5 contracts revert with, so that a refusal can name the one the token would raise.

export const erc20Standard = new Interface([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address account) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function approve(address spender, uint256 value) returns (bool)",
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC20InvalidReceiver(address receiver)",
  "error ERC20InvalidSpender(address spender)",
]);

export const erc721Standard = new Interface([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address owner) view returns (uint256)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function tokenOfOwnerByIndex(address owner, uint256 index) view returns (uint256)",
  "function getApproved(uint256 tokenId) view returns (address)",
  "function isApprovedForAll(address owner, address operator) view returns (bool)",
  "function approve(address to, uint256 tokenId)",
  "function setApprovalForAll(address operator, bool approved)",
  "function safeTransferFrom(address from, address to, uint256 tokenId)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
  "error ERC721NonexistentToken(uint256 tokenId)",
  "error ERC721InvalidApprover(address approver)",
  "error ERC721InvalidReceiver(address receiver)",
]);

export const erc1155Standard = new Interface([
  "function balanceOf(address account, uint256 id) view returns (uint256)",
  "function isApprovedForAll(address account, address operator) view returns (bool)",
  "function setApprovalForAll(address operator, bool approved)",
  "function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)",
  "function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])",
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
  "error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)",
  "error ERC1155InvalidReceiver(address receiver)",
]);

/**
 * OpenZeppelin's extensions the service calls on a token: ERC20Burnable's and ERC721Burnable's `burn(uint256)` (the same
 * selector: an amount, or a token id), ERC1155Burnable's, Pausable's (as the service's variants expose it, PAUSER_ROLE
 * or the owner), AccessControl's and Ownable's.
 */
export const tokenExtensions = new Interface([
  "function burn(uint256 value)",
  "function burn(address account, uint256 id, uint256 value)",
  "function pause()",
  "function unpause()",
  "function paused() view returns (bool)",
  "function grantRole(bytes32 role, address account)",
  "function revokeRole(bytes32 role, address account)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function transferOwnership(address newOwner)",
  "function owner() view returns (address)",
]);

/** Views some tokens have: each answers only where the contract has it. */
export const probes = new Interface([
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function cap() view returns (uint256)",
  "function paused() view returns (bool)",
  "function owner() view returns (address)",
  "function authority() view returns (address)",
]);

/** OpenZeppelin's AccessManager, as far as the service asks it (IAuthority's canCall, which AccessManaged calls). */
export const accessManager = new Interface([
  "function canCall(address caller, address target, bytes4 selector) view returns (bool immediate, uint32 delay)",
]);

/** ERC-165 interface ids. */
export const INTERFACE_IDS = {
  erc165: "0x01ffc9a7",
  /** ERC-165 says a contract answers false for it; one answering true answers true to everything. */
  invalid: "0xffffffff",
  erc721: "0x80ac58cd",
  erc721Metadata: "0x5b5e139f",
  erc721Enumerable: "0x780e9d63",
  erc1155: "0xd9b67a26",
  erc1155MetadataUri: "0x0e89341c",
  accessControl: "0x7965db0b",
  erc2981: "0x2a55205a",
} as const;
