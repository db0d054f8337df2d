import { parseEvmAddress } from "./addresses.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "./errors.js";
import { MAX_UINT256, parseUint256 } from "./units.js";

export type TokenType = "ERC20" | "ERC721";

/** Accepts the document's SERVICE_ERC20 / SERVICE_ERC721 and plain ERC20 / ERC721, in any case. */
export function parseTokenType(value: unknown, field = "type"): TokenType {
  const text = typeof value === "string" ? value.trim().toUpperCase() : "";
  if (text === "ERC20" || text === "SERVICE_ERC20") return "ERC20";
  if (text === "ERC721" || text === "SERVICE_ERC721") return "ERC721";
  throw invalidArgument(field, `${field} must be one of SERVICE_ERC20, SERVICE_ERC721, ERC20, ERC721 (case-insensitive)`);
}

export interface Erc20Params {
  name: string;
  symbol: string;
  decimals: number;
  initialSupply: bigint;
  /** Cap on the total supply; MAX_UINT256 when uncapped. */
  cap: bigint;
  minter: string;
  account: string;
}

export interface Erc721Params {
  name: string;
  symbol: string;
  uri: string;
}

const ERC20_FIELDS = ["name", "symbol", "decimals", "initialSupply", "totalSupply", "minter", "account"];
const ERC721_FIELDS = ["name", "symbol", "uri"];

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
  let cap = MAX_UINT256;
  if (token.totalSupply !== undefined && token.totalSupply !== null && token.totalSupply !== "") {
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
  };
}

export function parseErc721Params(value: unknown): Erc721Params {
  const token = requireObject(value, "token");
  rejectUnknownFields(token, ERC721_FIELDS, "ERC721");
  const uri = token.uri;
  if (uri !== undefined && typeof uri !== "string") throw invalidArgument("token.uri", "token.uri must be a string");
  if (typeof uri === "string" && uri.length > 2048) throw invalidArgument("token.uri", "token.uri must be at most 2048 characters");
  return { name: requireText(token, "name", 100), symbol: requireText(token, "symbol", 32), uri: uri ?? "" };
}
