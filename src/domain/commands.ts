import { parseEvmAddress } from "./addresses.js";
import { requireEvm, type ChainRegistry, type NetworkInfo } from "./chains.js";
import { invalidArgument } from "./errors.js";
import { assertKeyDerivesSender, type AddressOfKey } from "./keys.js";
import type { LaunchRequest, SigningFields, Unsigned } from "./requests.js";
import {
  parseErc1155Params,
  parseErc20Params,
  parseErc721Params,
  parseTokenType,
  type Erc1155Params,
  type Erc20Params,
  type Erc721Params,
} from "./token-params.js";

// A write request parsed once, where it enters the core: every later step (the record, the signature, the send, the
// answer) reads these fields and never the request's text again.

export type EvmPair = NetworkInfo & { chainId: number };

/** What a launch deploys. */
export type LaunchParams =
  { type: "ERC20"; token: Erc20Params } | { type: "ERC721"; token: Erc721Params } | { type: "ERC1155"; token: Erc1155Params };

/** Who signs: the service with the caller's key, or the caller, who signed the prepared transaction. */
export type Signing = { privateKey: string } | { signedTransaction: string };

export interface LaunchCommand {
  pair: EvmPair;
  sender: string;
  params: LaunchParams;
  /** Deploys through the CREATE2 factory with this salt (lowercase 0x + 64 hex): the address follows from it, not the nonce. */
  salt?: string;
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

/** The caller's key (checked to derive the sender), or the transaction the caller signed (checked when sent). */
export function parseSigning(request: SigningFields, sender: string, addressOf?: AddressOfKey): Signing {
  if (request.signedTransaction !== undefined) {
    if (request.privateKey !== undefined)
      throw invalidArgument("signedTransaction", "give privateKey or signedTransaction, not both (a signed transaction needs no key)");
    return { signedTransaction: request.signedTransaction };
  }
  return { privateKey: assertKeyDerivesSender(request.privateKey, sender, "privateKey", addressOf) };
}
