import { randomBytes } from "node:crypto";
import { getAddress, hexlify, keccak256 } from "ethers";

import { nativeCrypto, publicKeyOfSecretKey } from "../crypto/public-keys.js";

export interface EvmKeyPair {
  address: string;
  privateKey: string;
}

/** EIP-55: a letter of the address is upper-case where the same nibble of the hash of its lower-case form is 8 or more. */
function checksummed(lowerHex: string, hash: (data: Uint8Array) => Uint8Array): string {
  const digest = hash(Buffer.from(lowerHex, "ascii"));
  let address = "0x";
  for (let index = 0; index < 40; index++) {
    const char = lowerHex[index]!;
    const nibble = index % 2 === 0 ? digest[index >> 1]! >> 4 : digest[index >> 1]! & 0x0f;
    address += nibble >= 8 ? char.toUpperCase() : char;
  }
  return address;
}

/** The checksummed address of an uncompressed (65-byte) public key: natively hashed when native code is in use. */
function addressOf(publicKey: Uint8Array): string {
  const fast = nativeCrypto();
  if (fast === undefined) return getAddress(`0x${keccak256(publicKey.subarray(1)).slice(-40)}`);
  // EDR's keccak called directly: ethers' registered keccak256 is the host's, not ours to replace.
  const lowerHex = Buffer.from(fast.keccak256(publicKey.subarray(1)).subarray(12)).toString("hex");
  return checksummed(lowerHex, fast.keccak256);
}

/**
 * A fresh key straight from the CSPRNG: no mnemonic, no HD derivation. The public key and the address's hashes come
 * from native code when the host offers it (EDR's libsecp256k1 and keccak under Hardhat, about three times as fast
 * again), else from tiny-secp256k1 (WebAssembly, about three times faster than ethers' pure-JS curve arithmetic) and
 * ethers' keccak256.
 */
export function createEvmKeyPair(): EvmKeyPair {
  for (;;) {
    const key = randomBytes(32);
    const publicKey = publicKeyOfSecretKey(key);
    // Out of the curve's range (0 or >= n): astronomically rare, draw again.
    if (publicKey === undefined) continue;
    return { address: addressOf(publicKey), privateKey: hexlify(key) };
  }
}

/**
 * The checksummed address of a 0x-prefixed 32-byte private key, derived as wallet creation derives it (native code
 * where the host offers it, else WebAssembly): ethers' `computeAddress` runs the curve in JavaScript, a millisecond and
 * more per launch or mint whose key is checked against its sender. Throws on a key outside the curve's range.
 */
export function addressOfPrivateKey(privateKey: string): string {
  const key = Buffer.from(privateKey.slice(2), "hex");
  const publicKey = key.length === 32 ? publicKeyOfSecretKey(key) : undefined;
  if (publicKey === undefined) throw new RangeError("not a secp256k1 private key");
  return addressOf(publicKey);
}
