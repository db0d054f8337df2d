import { invalidArgument } from "./errors.js";

// Token URIs: what wallets and marketplaces fetch a token's metadata from. A token-level URI (an ERC721's base, an
// ERC1155's every-id URI) is absolute with a scheme they fetch; a per-mint URI may also be relative to the base, which
// OpenZeppelin's ERC721URIStorage concatenates (docs/tokens.md, "Token URIs").

/** The schemes a token URI may have; `http://` serves metadata from a local or private host (https is the usual one). */
export const URI_SCHEMES = ["ipfs://", "ar://", "https://", "http://", "data:"] as const;

export const MAX_URI_LENGTH = 2048;

const SCHEME_LIST = URI_SCHEMES.join(", ");
/** Whitespace and control characters: no URI has them unescaped (RFC 3986), and a wallet fetching one fails. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const UNESCAPED = /[\s\u0000-\u001f\u007f-\u009f]/u;
/** An RFC 3986 scheme and its colon, before any slash, query or fragment: `ipfs:`, `javascript:`. */
const ANY_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

function knownScheme(uri: string): string | undefined {
  const lower = uri.toLowerCase();
  return URI_SCHEMES.find((scheme) => lower.startsWith(scheme) && uri.length > scheme.length);
}

function textOf(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalidArgument(field, `${field} must be a string`);
  if (value.length > MAX_URI_LENGTH) throw invalidArgument(field, `${field} must be at most ${MAX_URI_LENGTH} characters`);
  return value;
}

function refuseUnescaped(uri: string, field: string): string {
  if (UNESCAPED.test(uri)) {
    throw invalidArgument(
      field,
      `${field} must not contain spaces or control characters: percent-encode them (a space is %20) (got "${uri.slice(0, 80)}")`,
      { rule: "uri-characters" },
    );
  }
  return uri;
}

/**
 * A token-level URI (an ERC721's base URI, an ERC1155's URI of every id): absent or "" for none, otherwise absolute
 * with one of URI_SCHEMES. "my picture" would launch a token whose every tokenURI no wallet can fetch.
 */
export function parseTokenUri(value: unknown, field: string): string {
  if (value === undefined || value === "") return "";
  const uri = textOf(value, field);
  if (knownScheme(uri) === undefined) {
    throw invalidArgument(
      field,
      `${field} must be an absolute URI starting with one of ${SCHEME_LIST} (got "${uri.slice(0, 80)}"), e.g. ipfs://<cid>/`,
      { rule: "uri-scheme", schemes: [...URI_SCHEMES] },
    );
  }
  return refuseUnescaped(uri, field);
}

/**
 * A per-mint ERC721 URI: absent or "" for none; otherwise absolute with one of URI_SCHEMES, or a relative reference
 * (`7.json`, `art/7.json`: no scheme) that the token appends to its base URI. Either way no whitespace or control
 * characters; a scheme outside the list (`javascript:`, `file:`) is refused.
 */
export function parseMintUri(value: unknown, field: string): string | undefined {
  if (value === undefined || value === "") return undefined;
  const uri = textOf(value, field);
  if (knownScheme(uri) === undefined && ANY_SCHEME.test(uri)) {
    throw invalidArgument(
      field,
      `${field} must be an absolute URI starting with one of ${SCHEME_LIST}, or a reference relative to the token's base URI such as 7.json (got "${uri.slice(0, 80)}")`,
      { rule: "uri-scheme", schemes: [...URI_SCHEMES] },
    );
  }
  return refuseUnescaped(uri, field);
}
