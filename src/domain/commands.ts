import { parseEvmAddress } from "./addresses.js";
import { requireEvm, type ChainRegistry, type NetworkInfo } from "./chains.js";
import { invalidArgument } from "./errors.js";
import { assertKeyDerivesSender, type AddressOfKey } from "./keys.js";
import type { LaunchRequest, MintRequest, SigningFields, Unsigned } from "./requests.js";
import {
  parseErc1155Params,
  parseErc20Params,
  parseErc721Params,
  parseTokenType,
  type Erc1155Params,
  type Erc20Params,
  type Erc721Params,
} from "./token-params.js";
import { parseUint256 } from "./units.js";

// A write request parsed once, where it enters the core: every later step (the record, the signature, the send, the
// answer) reads these fields and never the request's text again.

export type EvmPair = NetworkInfo & { chainId: number };

/** What a launch deploys. */
export type LaunchParams =
  { type: "ERC20"; token: Erc20Params } | { type: "ERC721"; token: Erc721Params } | { type: "ERC1155"; token: Erc1155Params };

/** What a mint calls. */
export type MintParams =
  | { type: "ERC20"; contractAddress: string; to: string; amount: bigint }
  | { type: "ERC721"; contractAddress: string; to: string; tokenId?: bigint; uri?: string };

/** Who signs: the service with the caller's key, or the caller, who signed the prepared transaction. */
export type Signing = { privateKey: string } | { signedTransaction: string };

export interface LaunchCommand {
  pair: EvmPair;
  sender: string;
  params: LaunchParams;
  /** Deploys through the CREATE2 factory with this salt (lowercase 0x + 64 hex): the address follows from it, not the nonce. */
  salt?: string;
}

export interface MintCommand {
  pair: EvmPair;
  sender: string;
  params: MintParams;
}

export function parseLaunchCommand(request: Unsigned<LaunchRequest>, chains: ChainRegistry): LaunchCommand {
  const pair = requireEvm(chains.resolve(request.chain, request.network), "token launch");
  const type = parseTokenType(request.type);
  const sender = parseEvmAddress(request.sender, "sender");
  const params: LaunchParams =
    type === "ERC20"
      ? { type, token: parseErc20Params(request.token, sender) }
      : type === "ERC721"
        ? { type, token: parseErc721Params(request.token) }
        : { type, token: parseErc1155Params(request.token) };
  const salt = parseSalt(request.salt);
  return { pair, sender, params, ...(salt !== undefined ? { salt } : {}) };
}

/**
 * A CREATE2 salt: exactly 32 bytes as 0x-prefixed hex, as every CREATE2 tool writes one. A name is not hashed for the
 * caller: which hash of which encoding would be a convention of this service alone (ethers' `id("my-token")` makes one).
 */
export function parseSalt(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw invalidArgument("salt", 'salt must be 32 bytes as 0x-prefixed hex (66 characters), e.g. ethers\' id("my-token")');
  }
  return value.toLowerCase();
}

export function parseMintCommand(request: Unsigned<MintRequest>, chains: ChainRegistry): MintCommand {
  const pair = requireEvm(chains.resolve(request.chain, request.network), "mint");
  const type = parseTokenType(request.type);
  const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
  const to = parseEvmAddress(request.to, "to");
  const sender = parseEvmAddress(request.sender, "sender");
  if (type === "ERC1155") throw invalidArgument("type", "ERC1155 mints are not served yet: call the collection's mint or mintBatch");
  if (type === "ERC20") {
    if (request.tokenId !== undefined || request.uri !== undefined) {
      throw invalidArgument(request.tokenId !== undefined ? "tokenId" : "uri", "tokenId and uri apply to ERC721 mints only");
    }
    if (request.amount === undefined)
      throw invalidArgument("amount", "amount is required for an ERC20 mint (smallest units, decimal string)");
    return { pair, sender, params: { type, contractAddress, to, amount: parseUint256(request.amount, "amount") } };
  }
  if (request.amount !== undefined) throw invalidArgument("amount", "amount applies to ERC20 mints only; an ERC721 mint creates one token");
  if (request.uri !== undefined && typeof request.uri !== "string") throw invalidArgument("uri", "uri must be a string");
  return {
    pair,
    sender,
    params: {
      type,
      contractAddress,
      to,
      ...(request.tokenId !== undefined ? { tokenId: parseUint256(request.tokenId, "tokenId") } : {}),
      ...(request.uri ? { uri: request.uri } : {}),
    },
  };
}

/** The caller's key (checked to derive the sender), or the transaction the caller signed (checked when sent). */
export function parseSigning(request: SigningFields, sender: string, addressOf?: AddressOfKey): Signing {
  if (request.signedTransaction !== undefined) {
    if (request.privateKey !== undefined)
      throw invalidArgument("signedTransaction", "give privateKey or signedTransaction, not both (a signed transaction needs no key)");
    return { signedTransaction: request.signedTransaction };
  }
  return { privateKey: assertKeyDerivesSender(request.privateKey, sender, "privateKey", addressOf) };
}
