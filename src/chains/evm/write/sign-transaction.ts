import { createRequire } from "node:module";

import {
  Signature,
  Transaction,
  getAddress,
  getBigInt,
  getBytes,
  getNumber,
  hexlify,
  keccak256,
  toBeArray,
  type TransactionLike,
} from "ethers";
import type * as MicroRlp from "micro-eth-signer/core/rlp.js";

import type { Fees } from "../../../domain/fee-ladder.js";
import { nativeCrypto } from "../../crypto/public-keys.js";
import { secp256k1 } from "../../crypto/secp256k1.js";

export interface SignedTransaction {
  /** The raw signed transaction, 0x hex. */
  raw: string;
  hash: string;
}

// micro-eth-signer's RLP (the encoder Hardhat's own local accounts sign with) is loaded on the first signature, as
// Hardhat loads it: its module graph costs about 20 ms that a service which never signs does not need to spend.
const require = createRequire(import.meta.url);
let rlpModule: typeof MicroRlp | undefined;
const rlp = () => (rlpModule ??= require("micro-eth-signer/core/rlp.js") as typeof MicroRlp).RLP;

/** 0x hex (or bare hex) as bytes, decoded natively: ethers' getBytes and keccak256 of a hex string decode 5 KB byte by byte. */
const bytesOf = (hex: string) => Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex");
const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;

/** keccak256 of bytes: the host's native code where it offered it (Hardhat's EDR), else ethers' (pure JS). */
function keccak(bytes: Uint8Array): Uint8Array {
  const native = nativeCrypto();
  return native !== undefined ? native.keccak256(bytes) : bytesOf(keccak256(bytes));
}

type Field = Uint8Array | Field[];

/**
 * The fields a transaction's RLP list holds, in order, before the signature, each as its own RLP encoding (see
 * `encodedList`); undefined where ethers should decide.
 */
interface Unsigned {
  /** 2 for EIP-1559, 0 for legacy with EIP-155 replay protection. */
  type: 0 | 2;
  encoded: Uint8Array[];
  chainId: bigint;
}

const EIP1559_KEYS = new Set([
  "type",
  "chainId",
  "nonce",
  "gasLimit",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "to",
  "value",
  "data",
  "accessList",
]);
const LEGACY_KEYS = new Set(["type", "chainId", "nonce", "gasLimit", "gasPrice", "to", "value", "data"]);

/** A quantity as RLP takes it (big-endian, no leading zeros, zero as no bytes); undefined past 32 bytes, as ethers refuses. */
function quantity(value: TransactionLike["value"]): Uint8Array | undefined {
  const bytes = toBeArray(value ?? 0);
  return bytes.length > 32 ? undefined : bytes;
}

/**
 * The field list of what the launch and mint paths build — EIP-1559 without an access list, or legacy with a chain id —
 * as ethers' `Transaction` would serialize it (its defaults and checks: addresses by `getAddress`, quantities by
 * `toBeArray`, the nonce a safe integer). Anything else (another type, an access list, a legacy transaction without a
 * chain id, a priority fee above the fee cap, signature or sender fields) is left to ethers, which serializes or refuses it.
 * Exported for the test that checks which transactions take this path.
 */
export function unsignedFields(tx: TransactionLike): Unsigned | undefined {
  const type = tx.type;
  if (type !== 0 && type !== 2) return undefined;
  const allowed = type === 2 ? EIP1559_KEYS : LEGACY_KEYS;
  for (const [key, value] of Object.entries(tx)) if (value !== null && value !== undefined && !allowed.has(key)) return undefined;
  if (type === 2 && tx.accessList !== null && tx.accessList !== undefined && !(Array.isArray(tx.accessList) && tx.accessList.length === 0))
    return undefined;

  const chainId = getBigInt(tx.chainId ?? 0, "chainId");
  if (type === 0 && chainId === 0n) return undefined;
  const to = tx.to === null || tx.to === undefined ? new Uint8Array(0) : bytesOf(getAddress(tx.to));
  // A hex string is decoded natively, and taken only if every digit was (anything else goes to ethers, which refuses it).
  const data = (typeof tx.data === "string" && hexDataBytes(tx.data)) || getBytes(tx.data ?? "0x", "data");
  const nonce = quantity(getNumber(tx.nonce ?? 0, "nonce"));
  const gasLimit = quantity(getBigInt(tx.gasLimit ?? 0, "gasLimit"));
  const value = quantity(getBigInt(tx.value ?? 0, "value"));
  if (type === 2) {
    const maxFeePerGas = getBigInt(tx.maxFeePerGas ?? 0, "maxFeePerGas");
    const maxPriorityFeePerGas = getBigInt(tx.maxPriorityFeePerGas ?? 0, "maxPriorityFeePerGas");
    if (maxPriorityFeePerGas > maxFeePerGas) return undefined;
    const fields = [quantity(chainId), nonce, quantity(maxPriorityFeePerGas), quantity(maxFeePerGas), gasLimit, to, value, data];
    return defined(fields) ? { type, chainId, encoded: encodeEach([...fields, []]) } : undefined;
  }
  const fields = [nonce, quantity(getBigInt(tx.gasPrice ?? 0, "gasPrice")), gasLimit, to, value, data];
  return defined(fields) ? { type, chainId, encoded: encodeEach(fields) } : undefined;
}

/**
 * The bytes of 0x-prefixed hex data with an even number of hex digits (what ethers' `isHexString(value, true)` accepts),
 * else undefined. Node's decoder stops at the first pair that is not hex, so a whole decode is the check: a regular
 * expression over a deployment's 10,000 digits would cost more than the decoding.
 */
function hexDataBytes(hex: string): Uint8Array | undefined {
  if (!hex.startsWith("0x") || hex.length % 2 !== 0) return undefined;
  const bytes = Buffer.from(hex.slice(2), "hex");
  return bytes.length * 2 === hex.length - 2 ? bytes : undefined;
}

const defined = (fields: Array<Uint8Array | undefined>): fields is Uint8Array[] => fields.every((field) => field !== undefined);

/** Each field's RLP encoding, by micro-eth-signer. */
const encodeEach = (fields: Field[]) => fields.map((field) => rlp().encode(field));

/**
 * `type || rlp(list)` for a typed transaction, `rlp(list)` for a legacy one, from the RLP encodings of the list's items:
 * a list's encoding is its header and its items' encodings one after the other. A transaction is encoded twice when it
 * is signed (what is signed, then the raw form) and again for each step of a fee ladder, and only a few small fields
 * differ each time: the 5 KB of a deployment's data are encoded once, then copied.
 */
function encodedList(type: 0 | 2, items: Uint8Array[]): Uint8Array {
  const length = items.reduce((sum, item) => sum + item.length, 0);
  const header = listHeader(length);
  const typed = type === 0 ? 0 : 1;
  const out = new Uint8Array(typed + header.length + length);
  if (typed) out[0] = type;
  out.set(header, typed);
  let at = typed + header.length;
  for (const item of items) {
    out.set(item, at);
    at += item.length;
  }
  return out;
}

/**
 * RLP's header of a list whose items take `length` bytes (the Yellow Paper, appendix B): 0xc0 + length up to 55 bytes,
 * else 0xf7 + the size of the length, then the length big-endian. The unit test checks it against micro-eth-signer's.
 */
export function listHeader(length: number): Uint8Array {
  if (length < 56) return Uint8Array.of(0xc0 + length);
  const size = toBeArray(length);
  return Uint8Array.of(0xf7 + size.length, ...size);
}

/** libsecp256k1 (tiny-secp256k1's WebAssembly): the same deterministic RFC 6979, low-s signature as ethers' SigningKey. */
function signDigest(digest: Uint8Array, privateKey: string) {
  const { signature, recoveryId } = secp256k1().signRecoverable(digest, bytesOf(privateKey));
  return { r: signature.subarray(0, 32), s: signature.subarray(32, 64), yParity: recoveryId === 1 ? (1 as const) : (0 as const) };
}

/**
 * Signs a transaction as ethers' `Wallet.signTransaction` does, byte for byte (tested, random transactions of both types
 * against ethers). The fields are assembled as bytes — the 5 KB of a deployment decoded from hex once, natively — and
 * RLP-encoded by micro-eth-signer, and hashed by the host's native keccak where it offered one (Hardhat's EDR); ethers' `Transaction` spends about 1.5 ms on the same serializations, converting the
 * data between hex and JS arrays at every step. The digest is signed by libsecp256k1 (tiny-secp256k1's WebAssembly),
 * about four times faster than ethers' pure-JS `SigningKey`. Transactions of other shapes go through ethers'
 * `Transaction`. The caller has already checked the key is the sender's.
 */
export function signTransaction(
  transaction: TransactionLike,
  privateKey: string,
  unsigned: Unsigned | undefined = unsignedFields(transaction),
): SignedTransaction {
  if (unsigned === undefined) return signWithEthersTransaction(transaction, privateKey);
  const { raw, hash } = signFields(unsigned, privateKey);
  return { raw: hexOf(raw), hash };
}

/** What a send signs: its transaction, and, where its key signs ahead, its fee ladder's steps and its cancel. */
export interface SendToSign {
  transaction: TransactionLike;
  /** The ladder's replacement fees, lowest first (none: nothing signed ahead). */
  ladder: readonly Fees[];
  cancel?: TransactionLike;
  privateKey: string;
}

export interface SignedSend {
  signed: SignedTransaction;
  resigned: Resigned[];
  cancel?: SignedTransaction;
}

/** Signs a send's transactions (on the service's thread, or on the signing thread: signing-thread.ts). */
export function signSend({ transaction, ladder, cancel, privateKey }: SendToSign): SignedSend {
  // The fields are decoded once for the transaction and all of its ladder's steps.
  const unsigned = unsignedFields(transaction);
  return {
    signed: signTransaction(transaction, privateKey, unsigned),
    resigned: ladder.length > 0 ? signWithFees(transaction, ladder, privateKey, unsigned) : [],
    ...(cancel !== undefined ? { cancel: signTransaction(cancel, privateKey) } : {}),
  };
}

/** A transaction signed again with other fees, kept as what sets it apart: its hash and its signature. */
export interface Resigned {
  hash: string;
  /** r ‖ s ‖ v, 65 bytes as 0x hex (ethers' `Signature.serialized`): with the fees, turns the first into it (resignedTransaction). */
  signature: string;
}

/**
 * The same transaction signed with each of `fees` in turn (a fee ladder signed ahead): the fields are decoded once and
 * only the fees change, and the raw forms are not kept. Each can be rebuilt from the transaction's own raw form with
 * `resignedTransaction`.
 */
export function signWithFees(
  transaction: TransactionLike,
  fees: readonly Fees[],
  privateKey: string,
  unsigned: Unsigned | undefined = unsignedFields(transaction),
): Resigned[] {
  return fees.map((each) => {
    // Anything the byte path does not take (another shape, another type, a tip above the fee cap) goes through ethers.
    if (unsigned === undefined || unsigned.type !== each.type || (each.type === 2 && each.maxPriorityFeePerGas > each.maxFeePerGas)) {
      const { raw, hash } = signWithEthersTransaction({ ...transaction, ...feeFields(each) }, privateKey);
      return { hash, signature: Transaction.from(raw).signature!.serialized };
    }
    const { hash, r, s, yParity } = signFields(withFees(unsigned, each), privateKey);
    return { hash, signature: Signature.from({ r: hexOf(r), s: hexOf(s), yParity }).serialized };
  });
}

/**
 * A transaction signed ahead with other fees (signWithFees), rebuilt from the first one's raw form: the same fields with
 * `fees` and `signature`, serialized by ethers. Its hash is checked by the caller against the one stored.
 */
export function resignedTransaction(firstRaw: string, fees: Fees, signature: string): SignedTransaction {
  const tx = Transaction.from(firstRaw);
  tx.signature = null;
  if (fees.type === 2) {
    tx.maxFeePerGas = fees.maxFeePerGas;
    tx.maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
  } else tx.gasPrice = fees.gasPrice;
  tx.signature = Signature.from(signature);
  return { raw: tx.serialized, hash: tx.hash! };
}

/** The transaction's fields as ethers' TransactionLike names them. */
function feeFields(fees: Fees): Pick<TransactionLike, "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice"> {
  return fees.type === 2
    ? { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { gasPrice: fees.gasPrice };
}

/** The unsigned fields with other fees in their places (EIP-1559: tip then fee cap after the nonce; legacy: the price). */
function withFees(unsigned: Unsigned, fees: Fees): Unsigned {
  const encoded = [...unsigned.encoded];
  const set = (index: number, value: bigint) => void (encoded[index] = rlp().encode(toBeArray(value)));
  if (fees.type === 2) {
    set(2, fees.maxPriorityFeePerGas);
    set(3, fees.maxFeePerGas);
  } else set(1, fees.gasPrice);
  return { ...unsigned, encoded };
}

/** Signs the fields: the raw form as bytes, its hash, and the signature's parts. */
function signFields({ type, chainId, encoded: fields }: Unsigned, privateKey: string) {
  const preimage =
    type === 2
      ? encodedList(2, fields)
      : encodedList(0, [...fields, ...encodeEach([toBeArray(chainId), new Uint8Array(0), new Uint8Array(0)])]);
  const { r, s, yParity } = signDigest(keccak(preimage), privateKey);
  // EIP-155: v = chainId * 2 + 35 + yParity; EIP-1559 carries yParity itself.
  const v = type === 2 ? toBeArray(yParity) : toBeArray(chainId * 2n + 35n + BigInt(yParity));
  // r and s as quantities (no leading zeros), as ethers' serializer takes them.
  const raw = encodedList(type, [...fields, ...encodeEach([v, toBeArray(hexOf(r)), toBeArray(hexOf(s))])]);
  return { raw, hash: hexOf(keccak(raw)), r, s, yParity };
}

/** Any transaction ethers' `Transaction` serializes (or refuses), signed by libsecp256k1. */
function signWithEthersTransaction(transaction: TransactionLike, privateKey: string): SignedTransaction {
  const tx = Transaction.from(transaction);
  // What tx.unsignedHash is, without ethers' JS hex decoding of the serialization before hashing it.
  const { r, s, yParity } = signDigest(keccak(bytesOf(tx.unsignedSerialized)), privateKey);
  tx.signature = Signature.from({ r: hexlify(r), s: hexlify(s), yParity });
  const raw = tx.serialized;
  return { raw, hash: hexOf(keccak(bytesOf(raw))) };
}
