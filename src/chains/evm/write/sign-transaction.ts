import { Signature, Transaction, getAddress, hexlify, keccak256, type TransactionLike } from "ethers";

import { nativeCrypto } from "../../crypto/public-keys.js";
import { secp256k1 } from "../../crypto/secp256k1.js";

export interface SignedTransaction {
  /** The raw signed transaction, 0x hex. */
  raw: string;
  hash: string;
}

/** 0x hex (or bare hex) as bytes, decoded natively: ethers' keccak256 of a hex string decodes 5 KB byte by byte first. */
const bytesOf = (hex: string) => Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex");

/** keccak256 of bytes: the host's native code where it offered it (Hardhat's EDR), else ethers' (pure JS). */
function keccak(bytes: Uint8Array): Buffer {
  const native = nativeCrypto();
  return native !== undefined ? Buffer.from(native.keccak256(bytes)) : bytesOf(keccak256(bytes));
}

// ---- RLP (the Ethereum yellow paper, appendix B), over bytes ----------------------------------------------------

function lengthPrefix(length: number, offset: number): Buffer {
  if (length < 56) return Buffer.from([offset + length]);
  const bytes = quantity(BigInt(length));
  return Buffer.concat([Buffer.from([offset + 55 + bytes.length]), bytes]);
}

function rlpBytes(bytes: Buffer): Buffer {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return Buffer.concat([lengthPrefix(bytes.length, 0x80), bytes]);
}

function rlpList(items: Buffer[]): Buffer {
  const payload = Buffer.concat(items.map(rlpBytes));
  return Buffer.concat([lengthPrefix(payload.length, 0xc0), payload]);
}

/** An unsigned integer, big-endian with no leading zero byte (0 is no bytes), as RLP encodes numbers. */
function quantity(value: bigint | number): Buffer {
  const big = BigInt(value);
  if (big < 0n) throw new RangeError("a transaction field is negative");
  if (big === 0n) return Buffer.alloc(0);
  const hex = big.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex");
}

/** r and s of a 64-byte compact signature, as RLP numbers (no leading zero byte). */
function signatureFields(signature: Uint8Array): [Buffer, Buffer] {
  const strip = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length && bytes[start] === 0) start++;
    return Buffer.from(bytes.subarray(start));
  };
  return [strip(signature.subarray(0, 32)), strip(signature.subarray(32, 64))];
}

/** The fields both kinds of transaction the service signs share, as bytes. */
interface Fields {
  chainId: Buffer;
  nonce: Buffer;
  gasLimit: Buffer;
  to: Buffer;
  value: Buffer;
  data: Buffer;
}

/**
 * The transaction's fields as bytes when it is one the service builds (EIP-1559 or EIP-155 legacy, no access list),
 * else undefined: anything else is serialized by ethers.
 */
function fieldsOf(transaction: TransactionLike): Fields | undefined {
  const { type, chainId, nonce, gasLimit, to, value, data, accessList } = transaction;
  if ((type !== 2 && type !== 0) || chainId == null || nonce == null || gasLimit == null) return undefined;
  if (accessList != null && !(Array.isArray(accessList) && accessList.length === 0)) return undefined;
  if ((transaction as { blobVersionedHashes?: unknown }).blobVersionedHashes != null) return undefined;
  if (typeof data !== "string" && data != null) return undefined;
  if (data != null && !/^0x(?:[0-9a-fA-F]{2})*$/.test(data)) return undefined;
  return {
    chainId: quantity(BigInt(chainId)),
    nonce: quantity(nonce),
    gasLimit: quantity(BigInt(gasLimit)),
    // A checksum is checked as ethers checks it; the address's bytes are what is signed.
    to: to == null ? Buffer.alloc(0) : bytesOf(getAddress(to as string)),
    value: quantity(BigInt(value ?? 0n)),
    data: data == null ? Buffer.alloc(0) : bytesOf(data),
  };
}

/** Serializes and signs what `fieldsOf` took, byte for byte as ethers would; undefined for what it did not. */
function signNatively(transaction: TransactionLike, privateKey: string): SignedTransaction | undefined {
  const fields = fieldsOf(transaction);
  if (fields === undefined) return undefined;
  const { chainId, nonce, gasLimit, to, value, data } = fields;
  const key = bytesOf(privateKey);
  if (transaction.type === 2) {
    if (transaction.maxFeePerGas == null || transaction.maxPriorityFeePerGas == null) return undefined;
    const body = [
      chainId,
      nonce,
      quantity(BigInt(transaction.maxPriorityFeePerGas)),
      quantity(BigInt(transaction.maxFeePerGas)),
      gasLimit,
      to,
      value,
      data,
    ];
    // The empty access list is an empty RLP list, 0xc0, encoded as a list inside the list.
    const unsigned = Buffer.concat([Buffer.from([2]), withEmptyAccessList(body)]);
    const { signature, recoveryId } = secp256k1().signRecoverable(keccak(unsigned), key);
    const signed = Buffer.concat([Buffer.from([2]), withEmptyAccessList(body, [quantity(recoveryId), ...signatureFields(signature)])]);
    return { raw: `0x${signed.toString("hex")}`, hash: `0x${keccak(signed).toString("hex")}` };
  }
  if (transaction.gasPrice == null) return undefined;
  const body = [nonce, quantity(BigInt(transaction.gasPrice)), gasLimit, to, value, data];
  // EIP-155: the chain id and two empty fields are signed; v carries the chain id and the recovery id.
  const unsigned = rlpList([...body, chainId, Buffer.alloc(0), Buffer.alloc(0)]);
  const { signature, recoveryId } = secp256k1().signRecoverable(keccak(unsigned), key);
  const v = BigInt(transaction.chainId!) * 2n + 35n + BigInt(recoveryId);
  const signed = rlpList([...body, quantity(v), ...signatureFields(signature)]);
  return { raw: `0x${signed.toString("hex")}`, hash: `0x${keccak(signed).toString("hex")}` };
}

/** An EIP-1559 payload: the body, the empty access list (an RLP list in the list), then the signature's fields if any. */
function withEmptyAccessList(body: Buffer[], signature: Buffer[] = []): Buffer {
  const payload = Buffer.concat([...body.map(rlpBytes), Buffer.from([0xc0]), ...signature.map(rlpBytes)]);
  return Buffer.concat([lengthPrefix(payload.length, 0xc0), payload]);
}

/**
 * Signs a transaction as ethers' `Wallet.signTransaction` does, byte for byte (tested). The transactions the service
 * builds (EIP-1559 and legacy, no access list) are serialized here over bytes and hashed natively where the host offered
 * native code: ethers' `Transaction` turns a deployment's 5 KB between hex and bytes in JavaScript several times per
 * signature, which cost more than the node's work on a send. Anything else goes through ethers' `Transaction`. The
 * digest is signed by libsecp256k1 (tiny-secp256k1's WebAssembly): the same deterministic RFC 6979, low-s signature as
 * ethers' pure-JS `SigningKey`, about four times faster. The caller has already checked the key is the sender's.
 */
export function signTransaction(transaction: TransactionLike, privateKey: string): SignedTransaction {
  const fast = signNatively(transaction, privateKey);
  if (fast !== undefined) return fast;
  const tx = Transaction.from(transaction);
  // What tx.unsignedHash is, without ethers' JS hex decoding of the serialization before hashing it.
  const digest = keccak(bytesOf(tx.unsignedSerialized));
  const { signature, recoveryId } = secp256k1().signRecoverable(digest, bytesOf(privateKey));
  tx.signature = Signature.from({
    r: hexlify(signature.subarray(0, 32)),
    s: hexlify(signature.subarray(32, 64)),
    yParity: recoveryId === 1 ? 1 : 0,
  });
  const raw = tx.serialized;
  return { raw, hash: `0x${keccak(bytesOf(raw)).toString("hex")}` };
}
