import { createPublicKey } from "node:crypto";

import { secp256k1 } from "@noble/curves/secp256k1.js";
import { computeAddress, getAddress, hexlify, recoverAddress, toBeHex } from "ethers";

// What a KMS answers, turned into what Ethereum takes: a public key as DER SubjectPublicKeyInfo into an address, and a
// DER ECDSA signature of a digest into (r, s, yParity). No KMS call here: the signer (aws-kms-signer.ts) asks, this reads.

/**
 * The uncompressed point (0x04 ‖ x ‖ y, 65 bytes) of a secp256k1 public key given as DER SubjectPublicKeyInfo (X.509
 * SPKI, what KMS's GetPublicKey answers). Node's own ASN.1 reader parses it, so the curve is read from the key's
 * algorithm identifier rather than guessed from its length; a key on another curve is refused.
 */
export function secp256k1PointFromSpki(der: Uint8Array): Uint8Array {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(der), format: "der", type: "spki" });
  } catch (error) {
    throw new Error("not a DER SubjectPublicKeyInfo public key", { cause: error });
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== "ec" || curve !== "secp256k1")
    throw new Error(`not a secp256k1 public key (${key.asymmetricKeyType ?? "unknown"}${curve !== undefined ? ` ${curve}` : ""})`);
  const { x, y } = key.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.of(0x04), Buffer.from(x!, "base64url"), Buffer.from(y!, "base64url")]);
  if (point.length !== 65) throw new Error("not a secp256k1 public key (its coordinates are not 32 bytes each)");
  return point;
}

/** The checksummed Ethereum address of a secp256k1 public key given as DER SubjectPublicKeyInfo. */
export function addressFromSpki(der: Uint8Array): string {
  return computeAddress(hexlify(secp256k1PointFromSpki(der)));
}

export interface EthereumSignature {
  /** 32 bytes, 0x hex. */
  r: string;
  /** 32 bytes, 0x hex, at most n/2 (low-s, EIP-2). */
  s: string;
  yParity: 0 | 1;
}

/**
 * An ECDSA signature of `digest` given as DER (what KMS's Sign answers) as Ethereum takes it, or undefined when it is
 * not a signature by `address`'s key.
 *
 * KMS signs with a random nonce and does not normalise s, so about half its signatures have s above n/2: Ethereum
 * refuses those since Homestead (EIP-2), so s becomes n − s, which is the same signature of the other point of the
 * pair. KMS gives no recovery id either: of the two candidates (yParity 0 or 1) the one that recovers `address` is it.
 */
export function ethereumSignature(derSignature: Uint8Array, digest: string, address: string): EthereumSignature | undefined {
  let signature;
  try {
    // @noble/curves reads the DER strictly (no trailing bytes, minimal integers, 0 < r, s < n).
    signature = secp256k1.Signature.fromDER(derSignature);
  } catch {
    return undefined;
  }
  if (signature.hasHighS()) signature = signature.normalizeS();
  const r = toBeHex(signature.r, 32);
  const s = toBeHex(signature.s, 32);
  const expected = getAddress(address);
  for (const yParity of [0, 1] as const) {
    let recovered: string;
    try {
      recovered = recoverAddress(digest, { r, s, yParity });
    } catch {
      // No point has r as its x for this parity: not the one.
      continue;
    }
    if (recovered === expected) return { r, s, yParity };
  }
  return undefined;
}
