import { secp256k1 } from "./secp256k1.js";

/** Native implementations a host may hand the core; Hardhat hands EDR's (`hardhat/internal/native-crypto`). */
export interface NativeCrypto {
  keccak256(data: Uint8Array): Uint8Array;
  /** The uncompressed SEC1 public key (65 bytes) of a valid secret key; throws on an invalid one. */
  secp256k1PublicKeyFromSecretKey(secretKey: Uint8Array): Uint8Array;
}

// Hardhat's first account's key and keccak256(""): known answers an implementation must give before it is used.
const CHECK_SECRET_KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const CHECK_KECCAK_OF_NOTHING = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";

let loadNative: (() => NativeCrypto) | undefined;
let native: NativeCrypto | null | undefined;
let nativeModule: string | undefined;

/**
 * Offers native curve and hash code, loaded on the first key that needs it (not at start-up: a service that never
 * creates a wallet does not pay for it). It is used only if it derives the known key's public key as the WebAssembly
 * curve does and hashes as ethers does; otherwise, or if loading throws, keys keep coming from the WebAssembly curve.
 * It serves the service's own key derivation only, called directly: ethers' global implementations (its registered
 * keccak256, SigningKey) belong to the host process and are left as they are.
 */
export function offerNativeCrypto(load: () => NativeCrypto, moduleId?: string): void {
  loadNative = load;
  native = undefined;
  nativeModule = moduleId;
}

/**
 * The module the offered implementation loads from, when the host named one (Hardhat: `hardhat/internal/native-crypto`):
 * another thread of the process (the signing thread) offers it to itself from there.
 */
export function nativeCryptoModule(): string | undefined {
  return loadNative === undefined ? undefined : nativeModule;
}

/** The native implementation in use, or undefined when keys come from tiny-secp256k1 (WebAssembly). */
export function nativeCrypto(): NativeCrypto | undefined {
  if (native === undefined) native = loadNative === undefined ? null : checked(loadNative);
  return native ?? undefined;
}

function checked(load: () => NativeCrypto): NativeCrypto | null {
  try {
    const candidate = load();
    const expected = secp256k1().pointFromScalar(CHECK_SECRET_KEY, false)!;
    const derived = candidate.secp256k1PublicKeyFromSecretKey(CHECK_SECRET_KEY);
    if (!Buffer.from(derived).equals(Buffer.from(expected))) return null;
    if (Buffer.from(candidate.keccak256(new Uint8Array())).toString("hex") !== CHECK_KECCAK_OF_NOTHING) return null;
    return candidate;
  } catch {
    return null;
  }
}

/** The uncompressed (65-byte) public key of a valid secret key. */
export function uncompressedPublicKey(secretKey: Uint8Array): Uint8Array {
  const fast = nativeCrypto();
  return fast !== undefined ? fast.secp256k1PublicKeyFromSecretKey(secretKey) : secp256k1().pointFromScalar(secretKey, false)!;
}

/** `pointFromScalar` of a curve library, answered natively for valid keys when native code is in use (for ecpair). */
export function withNativePublicKeys<Curve extends { isPrivate(d: Uint8Array): boolean; pointFromScalar: PointFromScalar }>(
  curve: Curve,
): Curve {
  const pointFromScalar: PointFromScalar = (secretKey, compressed = true) => {
    const fast = nativeCrypto();
    if (fast === undefined || !curve.isPrivate(secretKey)) return curve.pointFromScalar(secretKey, compressed);
    const point = fast.secp256k1PublicKeyFromSecretKey(secretKey);
    return compressed ? compress(point) : point;
  };
  return { ...curve, pointFromScalar };
}

type PointFromScalar = (secretKey: Uint8Array, compressed?: boolean) => Uint8Array | null;

function compress(point: Uint8Array): Uint8Array {
  const compressed = new Uint8Array(33);
  compressed[0] = 2 + (point[64]! & 1);
  compressed.set(point.subarray(1, 33), 1);
  return compressed;
}
