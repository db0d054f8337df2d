import { invalidArgument } from "./errors.js";
import { MAX_UINT256 } from "./units.js";

// A page of an owner's token ids ends at an id; the next page starts after it. The cursor names that id and nothing
// else (no time, no index into the owner's list, which a transfer reorders), so it never expires: a page read later
// lists the ids above it the owner holds then.

const PREFIX = "after:";

export function encodeOwnedTokensCursor(lastTokenId: bigint): string {
  return Buffer.from(`${PREFIX}${lastTokenId}`, "utf8").toString("base64url");
}

/** The id a cursor names; refused when it is not one this service returned. */
export function decodeOwnedTokensCursor(cursor: string, field = "cursor"): bigint {
  const text = /^[A-Za-z0-9_-]{1,120}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : "";
  if (!/^(0|[1-9]\d{0,77})$/.test(digits) || BigInt(digits) > MAX_UINT256) {
    throw invalidArgument(field, `${field} is not one this service returned (pass a page's nextCursor unchanged)`);
  }
  return BigInt(digits);
}
