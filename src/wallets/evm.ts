import { randomBytes } from "node:crypto";
import { computeAddress, hexlify } from "ethers";

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface EvmKeyPair {
  address: string;
  privateKey: string;
}

/** A fresh key straight from the CSPRNG: no mnemonic, no HD derivation, so thousands per second. */
export function createEvmKeyPair(): EvmKeyPair {
  for (;;) {
    const bytes = randomBytes(32);
    const scalar = BigInt(hexlify(bytes));
    if (scalar === 0n || scalar >= SECP256K1_ORDER) continue;
    const privateKey = hexlify(bytes);
    return { address: computeAddress(privateKey), privateKey };
  }
}
