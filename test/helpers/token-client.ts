import { expect } from "chai";
import {
  BrowserProvider,
  Contract,
  Interface,
  id,
  isError,
  type AbstractProvider,
  type ContractRunner,
  type Eip1193Provider,
} from "ethers";

import type { EvmChain } from "../../src/chains/evm/chain.js";

// An ethers client of the test's own, with ABIs written here from the standards and OpenZeppelin's documentation: what
// a token offers is checked by a client that is not the service, against the node.

const ERRORS = [
  "error EnforcedPause()",
  "error OwnableUnauthorizedAccount(address account)",
  "error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)",
  "error ERC20ExceededCap(uint256 increasedSupply, uint256 cap)",
  "error ERC2612InvalidSigner(address signer, address owner)",
  "error ERC721NonexistentToken(uint256 tokenId)",
];

export const ERC20_ABI = [
  ...ERRORS,
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function burn(uint256 value)",
  "function pause()",
  "function unpause()",
  "function paused() view returns (bool)",
  "function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
  "function nonces(address owner) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function cap() view returns (uint256)",
  "function mint(address to, uint256 amount)",
  "function delegate(address delegatee)",
  "function getVotes(address account) view returns (uint256)",
  "function delegates(address account) view returns (address)",
  "function owner() view returns (address)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
];

export const ERC721_ABI = [
  ...ERRORS,
  "function name() view returns (string)",
  "function balanceOf(address) view returns (uint256)",
  "function ownerOf(uint256) view returns (address)",
  "function tokenURI(uint256) view returns (string)",
  "function transferFrom(address from, address to, uint256 tokenId)",
  "function mint(address to) returns (uint256)",
  "function mint(address to, string uri) returns (uint256)",
  "function mintWithId(address to, uint256 tokenId)",
  "function mintWithId(address to, uint256 tokenId, string uri)",
  "function burn(uint256 tokenId)",
  "function pause()",
  "function unpause()",
  "function totalSupply() view returns (uint256)",
  "function tokenOfOwnerByIndex(address owner, uint256 index) view returns (uint256)",
  "function royaltyInfo(uint256 tokenId, uint256 salePrice) view returns (address, uint256)",
  "function supportsInterface(bytes4) view returns (bool)",
  "function owner() view returns (address)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
];

export const ERC1155_ABI = [
  ...ERRORS,
  "function name() view returns (string)",
  "function uri(uint256 id) view returns (string)",
  "function balanceOf(address account, uint256 id) view returns (uint256)",
  "function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)",
  "function mint(address to, uint256 id, uint256 amount, bytes data)",
  "function mintBatch(address to, uint256[] ids, uint256[] amounts, bytes data)",
  "function burn(address account, uint256 id, uint256 value)",
  "function pause()",
  "function unpause()",
  "function totalSupply(uint256 id) view returns (uint256)",
  "function exists(uint256 id) view returns (bool)",
  "function royaltyInfo(uint256 tokenId, uint256 salePrice) view returns (address, uint256)",
  "function supportsInterface(bytes4) view returns (bool)",
  "function owner() view returns (address)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
];

export const MINTER_ROLE = id("MINTER_ROLE");
export const PAUSER_ROLE = id("PAUSER_ROLE");
export const DEFAULT_ADMIN_ROLE = `0x${"00".repeat(32)}`;
export const ERC2981_INTERFACE_ID = "0x2a55205a";

/**
 * An ethers provider of its own over a simulated chain's node (EDR in this process, which nothing else can reach),
 * past the service's provider and its caches: the same requests a wallet would send over HTTP.
 */
export function independentProvider(chain: EvmChain): AbstractProvider {
  const rpc = chain.rpc!.bind(chain);
  const eip1193: Eip1193Provider = { request: ({ method, params }) => rpc(method, (params as unknown[] | undefined) ?? []) };
  return new BrowserProvider(eip1193, chain.info.chainId, { staticNetwork: true, cacheTimeout: -1 });
}

export function token(address: string, abi: string[], runner: ContractRunner): Contract {
  return new Contract(address, abi, runner);
}

/**
 * Fails unless calling `signature` on the contract reverts without any revert data: the function does not exist there
 * (a contract without it, and without a fallback, reverts empty) — not a function that exists and refuses.
 */
export async function expectAbsent(provider: AbstractProvider, address: string, signature: string, args: unknown[] = [], from?: string) {
  const iface = new Interface([`function ${signature}`]);
  const data = iface.encodeFunctionData(iface.fragments[0]!.format(), args);
  let reverted: unknown;
  try {
    await provider.call({ to: address, data, ...(from ? { from } : {}) });
  } catch (error) {
    reverted = error;
  }
  expect(reverted, `${signature} should be absent from ${address}`).to.not.equal(undefined);
  expect(isError(reverted, "CALL_EXCEPTION"), String(reverted)).to.equal(true);
  const revertData = (reverted as { data?: string | null }).data;
  expect(revertData === null || revertData === undefined || revertData === "0x", `${signature} reverted with data ${revertData}`).to.equal(
    true,
  );
}

/** Awaits a call or transaction that must revert with the named custom error. */
export async function expectRevertWith(action: Promise<unknown>, contract: Contract, errorName: string): Promise<void> {
  let data: string | undefined;
  try {
    await action;
  } catch (error) {
    data = (error as { data?: string }).data;
  }
  expect(data, `expected a revert with ${errorName}`).to.be.a("string");
  expect(contract.interface.parseError(data!)?.name).to.equal(errorName);
}
