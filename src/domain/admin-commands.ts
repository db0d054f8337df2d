import { ZeroHash, id } from "ethers";

import { parseEvmAddress } from "./addresses.js";
import type { BurnRequest, PauseRequest } from "./admin-requests.js";
import { parseTokenStandard } from "./asset-types.js";
import { requireEvm, type ChainRegistry } from "./chains.js";
import type { EvmPair } from "./commands.js";
import { invalidArgument } from "./errors.js";
import type { Unsigned } from "./requests.js";
import { positiveAmount, requiredTokenId } from "./write-fields.js";

// Burns and pauses (role grants and revokes, ownership transfers: kinds/), parsed once where they enter the core (as
// commands.ts does launches): every later step reads these fields, never the request's text again.

/** What a burn destroys: the sender's own tokens. */
export type BurnParams =
  | { type: "ERC20"; contractAddress: string; amount: bigint }
  | { type: "ERC721"; contractAddress: string; tokenId: bigint }
  | { type: "ERC1155"; contractAddress: string; tokenId: bigint; amount: bigint };

export interface PauseParams {
  contractAddress: string;
  paused: boolean;
}

/** A role of a token, as the role kinds' check reads it (kinds/roles.ts). */
export interface RoleParams {
  contractAddress: string;
  /** The role as the request named it: a name the token defines, or a role id. */
  role: string;
  /** The bytes32 id, lowercase 0x hex: keccak-256 of the name (OpenZeppelin's convention), 0x00…00 for DEFAULT_ADMIN_ROLE. */
  roleId: string;
  /** Set when `role` is a name: the token must define it as a view of that name (`MINTER_ROLE()`). */
  named: boolean;
}

/** One of these writes: the pair, who signs, and its parameters. */
export interface AdminCommand<P> {
  pair: EvmPair;
  sender: string;
  params: P;
}

export type BurnCommand = AdminCommand<BurnParams>;
export type PauseCommand = AdminCommand<PauseParams>;

/** OpenZeppelin AccessControl's admin of every role by default; its id is zero, not a hash. */
export const DEFAULT_ADMIN_ROLE = "DEFAULT_ADMIN_ROLE";

function refuse(field: string, message: string): never {
  throw invalidArgument(field, message);
}

/** The pair, the sender and the token every one of these writes names (the token calls of kinds/ too). */
export function common(
  request: { chain: string; network: string; sender: unknown; contractAddress: unknown },
  chains: ChainRegistry,
  what: string,
) {
  const pair = requireEvm(chains.resolve(request.chain, request.network), what);
  const sender = parseEvmAddress(request.sender, "sender");
  const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
  return { pair, sender, contractAddress };
}

export function parseBurnCommand(request: Unsigned<BurnRequest>, chains: ChainRegistry): BurnCommand {
  const { pair, sender, contractAddress } = common(request, chains, "burn");
  const type = parseTokenStandard(request.type);
  if (type === "ERC20") {
    if (request.tokenId !== undefined) refuse("tokenId", "tokenId applies to ERC721 and ERC1155 burns only");
    return { pair, sender, params: { type, contractAddress, amount: positiveAmount(request.amount, `to burn ${type} tokens`) } };
  }
  const tokenId = requiredTokenId(request.tokenId, `to burn an ${type} token`);
  if (type === "ERC721") {
    if (request.amount !== undefined) refuse("amount", "amount does not apply to an ERC721 burn: it destroys the one token tokenId");
    return { pair, sender, params: { type, contractAddress, tokenId } };
  }
  return { pair, sender, params: { type, contractAddress, tokenId, amount: positiveAmount(request.amount, `to burn ${type} tokens`) } };
}

export function parsePauseCommand(request: Unsigned<PauseRequest>, chains: ChainRegistry): PauseCommand {
  const { pair, sender, contractAddress } = common(request, chains, "pause");
  if (typeof request.paused !== "boolean") refuse("paused", "paused is required: true pauses the token, false unpauses it");
  return { pair, sender, params: { contractAddress, paused: request.paused } };
}

/** A role's name (an identifier, as Solidity names a constant) or its id (32 bytes of hex). */
export function parseRole(value: unknown): { role: string; roleId: string; named: boolean } {
  if (typeof value === "string" && /^0x[0-9a-fA-F]{64}$/.test(value)) return { role: value, roleId: value.toLowerCase(), named: false };
  if (typeof value !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(value)) {
    refuse("role", "role must be a role's name (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE, …) or its id as 32 bytes of 0x hex");
  }
  return { role: value, roleId: value === DEFAULT_ADMIN_ROLE ? ZeroHash : id(value), named: true };
}
