import { Interface } from "ethers";

/** The slices of the standards the service reads, so it also works on tokens it did not launch. */
export const erc20Interface = new Interface([
  "function balanceOf(address) view returns (uint256)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function totalSupply() view returns (uint256)",
  "function cap() view returns (uint256)",
  "function mint(address to, uint256 amount)",
  "function airdrop(address[] to, uint256[] amounts)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function owner() view returns (address)",
]);

export const erc721Interface = new Interface([
  "function balanceOf(address) view returns (uint256)",
  "function symbol() view returns (string)",
  "function tokenOfOwnerByIndex(address owner, uint256 index) view returns (uint256)",
  "function supportsInterface(bytes4) view returns (bool)",
  "function ownerOf(uint256) view returns (address)",
  "function mint(address to) returns (uint256)",
  "function mint(address to, string uri) returns (uint256)",
  "function mintWithId(address to, uint256 tokenId)",
  "function mintWithId(address to, uint256 tokenId, string uri)",
  "function airdrop(address[] to)",
  "function airdrop(address[] to, string[] uris)",
  "function airdropWithIds(address[] to, uint256[] tokenIds)",
  "function airdropWithIds(address[] to, uint256[] tokenIds, string[] uris)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function owner() view returns (address)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
]);

export const erc1155Interface = new Interface([
  "function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])",
  "function supportsInterface(bytes4) view returns (bool)",
  "function uri(uint256 id) view returns (string)",
  "function mint(address to, uint256 id, uint256 amount, bytes data)",
  "function mintBatch(address to, uint256[] ids, uint256[] amounts, bytes data)",
  "function airdrop(address[] to, uint256[] ids, uint256[] amounts, bytes data)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function owner() view returns (address)",
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
]);

export const ERC721_INTERFACE_ID = "0x80ac58cd";
export const ERC1155_INTERFACE_ID = "0xd9b67a26";
export const ERC721_ENUMERABLE_INTERFACE_ID = "0x780e9d63";
export const MINTER_ROLE = "0x9f2df0fed2c77648de5860a4cc508cd0818c85b8b8a1ab4ceeef8d981c8956a6";
