import { invalidArgument } from "./errors.js";

/** What a transfer moves: the chain's native currency, or a token of one of the standards. */
export const ASSET_TYPES = ["NATIVE", "ERC20", "ERC721", "ERC1155"] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** A token standard an approval or an allowance read applies to. */
export type TokenStandard = Exclude<AssetType, "NATIVE">;

/**
 * NATIVE, ERC20, ERC721 or ERC1155 in any case; the launch names SERVICE_ERC20 and SERVICE_ERC721 are accepted too, as
 * the launch and mint bodies take them.
 */
export function parseAssetType(value: unknown, field = "type"): AssetType {
  const text = typeof value === "string" ? value.trim().toUpperCase() : "";
  const plain = text.startsWith("SERVICE_ERC") ? text.slice("SERVICE_".length) : text;
  if ((ASSET_TYPES as readonly string[]).includes(plain)) return plain as AssetType;
  throw invalidArgument(field, `${field} must be one of ${ASSET_TYPES.join(", ")} (case-insensitive)`);
}

/** As parseAssetType, without NATIVE: approvals and allowances are a token's. */
export function parseTokenStandard(value: unknown, field = "type"): TokenStandard {
  const type = parseAssetType(value, field);
  if (type === "NATIVE") throw invalidArgument(field, `${field} NATIVE has no approvals: give ERC20, ERC721 or ERC1155`);
  return type;
}
