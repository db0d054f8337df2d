import { getAddress, isHexString } from "ethers";

import { ErrorCode, TokenServiceError } from "./errors.js";

/**
 * Addresses lately parsed, and their checksummed form: an EIP-55 checksum costs a keccak hash, and the same holders and
 * token contracts come back read after read (most of a many-token read's time, before). Only valid inputs are kept.
 */
const checksummed = new Map<string, string>();
const REMEMBERED_ADDRESSES = 10_000;

/** Validates an EVM address (any case; a mixed-case one must carry a valid checksum) and returns it checksummed. */
export function parseEvmAddress(value: unknown, field: string): string {
  if (typeof value === "string") {
    const known = checksummed.get(value);
    if (known !== undefined) return known;
  }
  const address = checksumEvmAddress(value, field);
  if (checksummed.size >= REMEMBERED_ADDRESSES) checksummed.delete(checksummed.keys().next().value!);
  checksummed.set(value as string, address);
  return address;
}

function checksumEvmAddress(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TokenServiceError(ErrorCode.INVALID_ADDRESS, `${field} is required: a 0x-prefixed 20-byte hex address`, { field });
  }
  if (!isHexString(value, 20)) {
    throw new TokenServiceError(ErrorCode.INVALID_ADDRESS, `${field} must be a 0x-prefixed 20-byte hex address`, { field });
  }
  try {
    return getAddress(value);
  } catch {
    throw new TokenServiceError(ErrorCode.INVALID_ADDRESS, `${field} has an invalid EIP-55 checksum`, { field });
  }
}
