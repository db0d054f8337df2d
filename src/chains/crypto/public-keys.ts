import { secp256k1 } from "./secp256k1.js";

/** Native implementations a host may hand the core; Hardhat hands EDR's (`hardhat/internal/native-crypto`). */
export interface NativeCrypto {
  keccak256(data: Uint8Array): Uint8Array;
  /** The uncompressed SEC1 public key (65 bytes) of a valid secret key; throws on an invalid one. */
  secp256k1PublicKeyFromSecretKey(secretKey: Uint8Array): Uint8Array;
}

// Hardhat's first account's key, its uncompressed public key and keccak256(""): known answers an implementation must give
// before it is used (the public key written out, so that checking native code does not load the WebAssembly curve).
const CHECK_SECRET_KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const CHECK_PUBLIC_KEY =
  "048318535b54105d4a7aae60c08fc45f9687181b4fdfc625bd1a753fa7397fed753547f11ca8696646f2f3acb08e31016afac23e630c5d11f59f61fef57b0d2aa5";
const CHECK_KECCAK_OF_NOTHING = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
// Out of the curve's range: 0 and the group order n. An implementation must refuse both (throw), as it is asked to.
const CHECK_INVALID_KEYS = [Buffer.alloc(32), Buffer.from("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", "hex")];

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
    const derived = candidate.secp256k1PublicKeyFromSecretKey(CHECK_SECRET_KEY);
    if (Buffer.from(derived).toString("hex") !== CHECK_PUBLIC_KEY) return null;
    if (Buffer.from(candidate.keccak256(new Uint8Array())).toString("hex") !== CHECK_KECCAK_OF_NOTHING) return null;
    if (!CHECK_INVALID_KEYS.every((key) => refuses(candidate, key))) return null;
    return candidate;
  } catch {
    return null;
  }
}

function refuses(candidate: NativeCrypto, secretKey: Uint8Array): boolean {
  try {
    candidate.secp256k1PublicKeyFromSecretKey(secretKey);
    return false;
  } catch {
    return true;
  }
}

/**
 * The uncompressed (65-byte) public key of a secret key, or undefined if the key is out of the curve's range (0, or n
 * and above). Natively when native code is in use (it refuses such a key itself), so that a service on a host that
 * offers it never loads the WebAssembly curve for its EVM keys; else from tiny-secp256k1.
 */
export function publicKeyOfSecretKey(secretKey: Uint8Array): Uint8Array | undefined {
  const fast = nativeCrypto();
  if (fast === undefined) return secp256k1().isPrivate(secretKey) ? secp256k1().pointFromScalar(secretKey, false)! : undefined;
  try {
    return fast.secp256k1PublicKeyFromSecretKey(secretKey);
  } catch {
    return undefined;
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
