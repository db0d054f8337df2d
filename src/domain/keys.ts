import { computeAddress, isHexString } from "ethers";

import { ErrorCode, TokenServiceError } from "./errors.js";

/** The checksummed address of a 0x-prefixed 32-byte private key; throws when the key is not one of the curve's. */
export type AddressOfKey = (privateKey: string) => string;

/**
 * Checks that a private key is well formed and derives `sender`. Errors name the
 * field but never repeat the key. `addressOf` derives the address (default: ethers' pure-JS curve; the core passes a
 * native one).
 */
export function assertKeyDerivesSender(
  privateKey: unknown,
  sender: string,
  field = "privateKey",
  addressOf: AddressOfKey = computeAddress,
): string {
  const { key, address } = parsePrivateKey(privateKey, field, addressOf);
  if (address !== sender) {
    throw new TokenServiceError(ErrorCode.KEY_SENDER_MISMATCH, `${field} does not derive the sender address ${sender}`, {
      field,
      details: { sender },
    });
  }
  return key;
}

/** A well-formed private key (0x-prefixed) and the checksummed address it derives; errors name the field, never the key. */
export function parsePrivateKey(
  privateKey: unknown,
  field = "privateKey",
  addressOf: AddressOfKey = computeAddress,
): { key: string; address: string } {
  if (typeof privateKey !== "string" || privateKey === "") {
    throw new TokenServiceError(ErrorCode.INVALID_PRIVATE_KEY, `${field} is required: the sender's 0x-prefixed 32-byte hex private key`, {
      field,
    });
  }
  const normalized = privateKey.startsWith("0x") ? privateKey : `0x${privateKey}`;
  if (!isHexString(normalized, 32)) {
    throw new TokenServiceError(
      ErrorCode.INVALID_PRIVATE_KEY,
      `${field} must be a 32-byte hex string (64 hex digits, 0x prefix optional)`,
      { field },
    );
  }
  try {
    return { key: normalized, address: addressOf(normalized) };
  } catch {
    throw new TokenServiceError(ErrorCode.INVALID_PRIVATE_KEY, `${field} is not a valid secp256k1 private key`, { field });
  }
}
