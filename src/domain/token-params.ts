import { ZeroAddress } from "ethers";

import { parseEvmAddress } from "./addresses.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "./errors.js";
import {
  parseErc1155Options,
  parseErc20Options,
  parseErc721Options,
  type Erc1155Options,
  type Erc20Options,
  type Erc721Options,
  type Access,
  type TokenKind,
} from "./token-options.js";
import { MAX_UINT256, parseUint256 } from "./units.js";
import { parseTokenUri } from "./uris.js";

export type TokenType = TokenKind;

/** Accepts the document's SERVICE_ERC20 / SERVICE_ERC721 / SERVICE_ERC1155 and plain ERC20 / ERC721 / ERC1155, in any case. */
export function parseTokenType(value: unknown, field = "type"): TokenType {
  const text = typeof value === "string" ? value.trim().toUpperCase() : "";
  if (text === "ERC20" || text === "SERVICE_ERC20") return "ERC20";
  if (text === "ERC721" || text === "SERVICE_ERC721") return "ERC721";
  if (text === "ERC1155" || text === "SERVICE_ERC1155") return "ERC1155";
  throw invalidArgument(
    field,
    `${field} must be one of SERVICE_ERC20, SERVICE_ERC721, SERVICE_ERC1155, ERC20, ERC721, ERC1155 (case-insensitive)`,
  );
}

/** ERC20Votes keeps checkpoints in 208 bits: a supply beyond this cannot be minted to a token with votes. */
export const MAX_VOTES_SUPPLY = (1n << 208n) - 1n;

export interface Erc20Params {
  name: string;
  symbol: string;
  decimals: number;
  initialSupply: bigint;
  /** Cap on the total supply; MAX_UINT256 when uncapped. */
  cap: bigint;
  minter: string;
  account: string;
  /** Absent: the launch gave no `options` and deploys the historic ServiceERC20 (capped at `cap`, mintable, roles). */
  options?: Erc20Options;
  /** The AccessManager of a token with access "managed" (its constructor's initialAuthority); absent otherwise. */
  authority?: string;
}

export interface Erc721Params {
  name: string;
  symbol: string;
  uri: string;
  /** Absent: the launch gave no `options` and deploys the historic ServiceERC721 (enumerable, own URIs, roles). */
  options?: Erc721Options;
  authority?: string;
}

export interface Erc1155Params {
  name: string;
  /** The URI of every id's metadata; clients replace `{id}` with the id (ERC-1155's metadata rule). */
  uri: string;
  options: Erc1155Options;
  authority?: string;
}

const ERC20_FIELDS = ["name", "symbol", "decimals", "initialSupply", "totalSupply", "minter", "account", "options", "authority"];
const ERC721_FIELDS = ["name", "symbol", "uri", "options", "authority"];
const ERC1155_FIELDS = ["name", "uri", "options", "authority"];

function requireObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(field, `${field} must be an object`);
  }
  return value as Record<string, unknown>;
}

function rejectUnknownFields(token: Record<string, unknown>, allowed: string[], type: TokenType): void {
  const unknown = Object.keys(token).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw invalidArgument(
      `token.${unknown[0]}`,
      `unknown field${unknown.length > 1 ? "s" : ""} for ${type}: ${unknown.map((key) => `token.${key}`).join(", ")}; allowed: ${allowed.join(", ")}`,
      { unknownFields: unknown.map((key) => `token.${key}`) },
    );
  }
}

function requireText(token: Record<string, unknown>, key: string, maxLength: number): string {
  const value = token[key];
  if (typeof value !== "string" || value.trim() === "") {
    throw invalidArgument(`token.${key}`, `token.${key} is required: a non-empty string`);
  }
  if (value.length > maxLength) {
    throw invalidArgument(`token.${key}`, `token.${key} must be at most ${maxLength} characters`);
  }
  return value;
}

function optionalAddress(token: Record<string, unknown>, key: string, fallback: string): string {
  const value = token[key];
  return value === undefined || value === null || value === "" ? fallback : parseEvmAddress(value, `token.${key}`);
}

/**
 * `token.authority`: the AccessManager a token with access "managed" asks before every restricted call
 * (docs/decisions/0064-access-managed.md). Required with "managed" (without one nobody could ever mint or pause), and
 * refused with any other access, which would ignore it. Whether it is an AccessManager is the chain's to say: the
 * launch's preflight asks it (chains/evm/write/launch.ts).
 */
function parseAuthority(token: Record<string, unknown>, access: Access): { authority?: string } {
  const value = token.authority;
  const given = value !== undefined && value !== null && value !== "";
  if (access !== "managed") {
    if (!given) return {};
    throw invalidArgument(
      "token.authority",
      `token.authority is the AccessManager of a token launched with token.options.access "managed"; this token's access is "${access}": leave token.authority out, or set access to "managed"`,
    );
  }
  if (!given)
    throw invalidArgument(
      "token.authority",
      'token.authority is required with token.options.access "managed": the address of the AccessManager contract that decides who may mint, pause and call every restricted function',
    );
  const authority = parseEvmAddress(value, "token.authority");
  if (authority === ZeroAddress)
    throw invalidArgument("token.authority", "token.authority must not be the zero address: it must be an AccessManager contract");
  return { authority };
}

export function parseErc20Params(value: unknown, sender: string): Erc20Params {
  const token = requireObject(value, "token");
  rejectUnknownFields(token, ERC20_FIELDS, "ERC20");
  const name = requireText(token, "name", 100);
  const symbol = requireText(token, "symbol", 32);
  let decimals = 18;
  if (token.decimals !== undefined) {
    const parsed = typeof token.decimals === "string" ? Number(token.decimals) : token.decimals;
    if (typeof parsed !== "number" || !Number.isInteger(parsed) || parsed < 0 || parsed > 36) {
      throw invalidArgument("token.decimals", "token.decimals must be an integer from 0 to 36");
    }
    decimals = parsed;
  }
  const initialSupply = token.initialSupply === undefined ? 0n : parseUint256(token.initialSupply, "token.initialSupply");
  const options = token.options === undefined ? undefined : parseErc20Options(token.options);
  const capGiven = token.totalSupply !== undefined && token.totalSupply !== null && token.totalSupply !== "";
  if (options !== undefined && options.capped !== capGiven) {
    throw options.capped
      ? invalidArgument("token.totalSupply", "token.totalSupply (the supply cap) is required with token.options.capped")
      : invalidArgument(
          "token.options.capped",
          "token.totalSupply is a supply cap: set token.options.capped to true, or leave token.totalSupply out for no cap",
        );
  }
  if (options?.votes && initialSupply > MAX_VOTES_SUPPLY) {
    throw invalidArgument(
      "token.initialSupply",
      `token.initialSupply must not exceed 2^208 - 1 with token.options.votes (ERC20Votes' limit)`,
    );
  }
  // A managed token has no admin of its own: an `account` given would be silently ignored, and the caller misled.
  if (options?.access === "managed" && token.account !== undefined && token.account !== null && token.account !== "") {
    throw invalidArgument(
      "token.account",
      'token.account administers a token with access "roles" or "ownable"; a token with access "managed" has no admin of its own (its AccessManager, token.authority, decides): leave token.account out',
    );
  }
  let cap = MAX_UINT256;
  if (capGiven) {
    cap = parseUint256(token.totalSupply, "token.totalSupply");
    if (cap === 0n)
      throw invalidArgument("token.totalSupply", "token.totalSupply (the supply cap) must be greater than 0; omit it for no cap");
    if (initialSupply > cap) {
      throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, "token.initialSupply must not exceed token.totalSupply (the supply cap)", {
        field: "token.initialSupply",
        details: { initialSupply: initialSupply.toString(), totalSupply: cap.toString() },
      });
    }
  }
  return {
    name,
    symbol,
    decimals,
    initialSupply,
    cap,
    minter: optionalAddress(token, "minter", sender),
    account: optionalAddress(token, "account", sender),
    ...(options !== undefined ? { options } : {}),
    ...parseAuthority(token, options?.access ?? "roles"),
  };
}

/** The token-level URI: none, or absolute with a scheme wallets fetch (uris.ts). */
const optionalUri = (token: Record<string, unknown>): string => parseTokenUri(token.uri, "token.uri");

export function parseErc721Params(value: unknown): Erc721Params {
  const token = requireObject(value, "token");
  rejectUnknownFields(token, ERC721_FIELDS, "ERC721");
  const uri = optionalUri(token);
  const name = requireText(token, "name", 100);
  const symbol = requireText(token, "symbol", 32);
  const options = token.options === undefined ? undefined : parseErc721Options(token.options);
  return { name, symbol, uri, ...(options !== undefined ? { options } : {}), ...parseAuthority(token, options?.access ?? "roles") };
}

export function parseErc1155Params(value: unknown): Erc1155Params {
  const token = requireObject(value, "token");
  rejectUnknownFields(token, ERC1155_FIELDS, "ERC1155");
  const uri = optionalUri(token);
  const options = parseErc1155Options(token.options);
  return { name: requireText(token, "name", 100), uri, options, ...parseAuthority(token, options.access) };
}
