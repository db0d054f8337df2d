import { randomBytes } from "node:crypto";
import { getAddress, hexlify, keccak256 } from "ethers";

import { secp256k1 } from "../crypto/secp256k1.js";
import { uncompressedPublicKey } from "../crypto/public-keys.js";

export interface EvmKeyPair {
  address: string;
  privateKey: string;
}

/**
 * A fresh key straight from the CSPRNG: no mnemonic, no HD derivation. The public key comes from native code
 * when the host offers it (EDR's libsecp256k1 under Hardhat, about three times as fast again), else from
 * tiny-secp256k1 (WebAssembly), about three times faster than ethers' pure-JS curve arithmetic.
 */
export function createEvmKeyPair(): EvmKeyPair {
  const ecc = secp256k1();
  for (;;) {
    const key = randomBytes(32);
    // Out of the curve's range (0 or >= n): astronomically rare, draw again.
    if (!ecc.isPrivate(key)) continue;
    const publicKey = uncompressedPublicKey(key);
    const address = getAddress(`0x${keccak256(publicKey.subarray(1)).slice(-40)}`);
    return { address, privateKey: hexlify(key) };
  }
}
