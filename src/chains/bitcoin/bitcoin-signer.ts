import { createRequire } from "node:module";
import { inspect } from "node:util";

import type * as NobleSecp256k1 from "@noble/curves/secp256k1.js";
import type { SignerAsync } from "bitcoinjs-lib";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { bitcoinLibraries } from "./libraries.js";
import { bitcoinjsNetwork } from "./networks.js";
import type { BitcoinAddressType } from "./wallet-keys.js";

/**
 * What signs a Bitcoin send: the key's public half and a signature of a 32-byte digest. Shaped like ecpair's key pairs
 * (bitcoinjs-lib's Signer), so an ECPair fits as it is, and a keystore or a KMS can provide one without handing over
 * the key. A signature may come back as a promise (a remote signer).
 */
export interface BitcoinSigner {
  /** The 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
  /** ECDSA signature of a sighash: 64 bytes, r ‖ s. A high s is accepted and normalised before use. */
  sign(hash: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** BIP 340 Schnorr signature of a sighash: only a P2TR key-path spend needs it. */
  signSchnorr?(hash: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** The signer of this key tweaked by a scalar: a P2TR key-path spend signs with the BIP 341 TapTweak of its key. */
  tweak?(tweak: Uint8Array): BitcoinSigner;
}

/** Keeps the key out of every print of the signer: console.log, util.inspect, JSON.stringify. */
function opaque<T extends object>(signer: T): T {
  const label = () => "[BitcoinSigner]";
  Object.defineProperty(signer, inspect.custom, { value: label, enumerable: false });
  Object.defineProperty(signer, "toJSON", { value: label, enumerable: false });
  return signer;
}

type KeyPair = ReturnType<ReturnType<typeof bitcoinLibraries>["ECPair"]["fromWIF"]>;

function wrap(pair: KeyPair): BitcoinSigner {
  const publicKey = Uint8Array.from(pair.publicKey);
  return opaque({
    publicKey,
    sign: (hash: Uint8Array) => pair.sign(hash),
    signSchnorr: (hash: Uint8Array) => pair.signSchnorr(hash),
    tweak: (tweak: Uint8Array) => wrap(pair.tweak(tweak)),
  });
}

/**
 * A signer for a key the service holds in this process: WIF (its network must be `network`'s), or a 32-byte private
 * key as 64 hex digits or bytes. The key stays in the closure; errors never quote it.
 */
export function localBitcoinSigner(key: string | Uint8Array, network: string): BitcoinSigner {
  const { ECPair } = bitcoinLibraries();
  const params = bitcoinjsNetwork(network);
  const refuse = (why: string) => new TokenServiceError(ErrorCode.INVALID_PRIVATE_KEY, why, { field: "privateKey" });
  if (typeof key !== "string") {
    if (key.length !== 32) throw refuse("a Bitcoin private key must be 32 bytes");
    try {
      return wrap(ECPair.fromPrivateKey(key, { network: params, compressed: true }));
    } catch {
      throw refuse("not a valid secp256k1 private key");
    }
  }
  const hex = key.replace(/^0x/, "");
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return localBitcoinSigner(Buffer.from(hex, "hex"), network);
  try {
    const pair = ECPair.fromWIF(key, params);
    if (!pair.compressed) throw refuse("an uncompressed WIF key: the service signs with compressed keys only");
    return wrap(pair);
  } catch (error) {
    if (error instanceof TokenServiceError) throw error;
    const wrongNetwork = error instanceof Error && /network/i.test(error.message);
    throw refuse(wrongNetwork ? `a WIF key of another network than bitcoin ${network}` : "not a WIF key nor a 32-byte hex private key");
  }
}

/** The x-only (32-byte) form of a compressed public key, as Taproot uses it. */
export function xOnly(publicKey: Uint8Array): Uint8Array {
  return publicKey.length === 32 ? publicKey : publicKey.subarray(1, 33);
}

/** The sender's address and output script for its key and address type. */
export function senderOutput(
  publicKey: Uint8Array,
  addressType: BitcoinAddressType,
  network: string,
): { address: string; script: Uint8Array } {
  const { payments } = bitcoinLibraries().lib;
  const params = bitcoinjsNetwork(network);
  const payment =
    addressType === "p2wpkh"
      ? payments.p2wpkh({ pubkey: publicKey, network: params })
      : addressType === "p2pkh"
        ? payments.p2pkh({ pubkey: publicKey, network: params })
        : payments.p2tr({ internalPubkey: xOnly(publicKey), network: params });
  return { address: payment.address!, script: payment.output! };
}

// Loaded on first signature, like bitcoinjs-lib (libraries.ts): a service that never sends Bitcoin does not pay for it.
const require = createRequire(import.meta.url);
let noble: typeof NobleSecp256k1 | undefined;

/** A signature r ‖ s with s at most n/2: Bitcoin Core relays no other (BIP 146 LOW_S); a KMS does not normalise. */
function lowS(compact: Uint8Array): Uint8Array {
  noble ??= require("@noble/curves/secp256k1.js") as typeof NobleSecp256k1;
  const signature = noble.secp256k1.Signature.fromCompact(compact);
  return signature.hasHighS() ? signature.normalizeS().toCompactRawBytes() : compact;
}

/** The signer as bitcoinjs-lib's Psbt signs with it: asynchronous, ECDSA signatures normalised to a low s. */
export function psbtSigner(signer: BitcoinSigner): SignerAsync {
  const psbtSigner: SignerAsync = {
    publicKey: signer.publicKey,
    sign: async (hash: Uint8Array) => lowS(await signer.sign(hash)),
  };
  if (signer.signSchnorr !== undefined) {
    const signSchnorr = signer.signSchnorr.bind(signer);
    psbtSigner.signSchnorr = async (hash: Uint8Array) => signSchnorr(hash);
  }
  return psbtSigner;
}

/**
 * The signer of a P2TR key-path spend: the key tweaked by BIP 341's TapTweak of its x-only public key (no script
 * tree), as bitcoinjs-lib signs key-path inputs with it. A signer without `tweak` and `signSchnorr` cannot (a KMS key
 * signs ECDSA only).
 */
export function taprootKeyPathSigner(signer: BitcoinSigner): BitcoinSigner {
  if (signer.tweak === undefined || signer.signSchnorr === undefined) {
    throw new TokenServiceError(
      ErrorCode.UNSUPPORTED_OPERATION,
      "this wallet's signer cannot spend from a p2tr address: it signs no BIP 340 Schnorr signatures with a tweaked key",
      { field: "addressType" },
    );
  }
  const { crypto } = bitcoinLibraries().lib;
  return signer.tweak(crypto.taggedHash("TapTweak", xOnly(signer.publicKey)));
}
