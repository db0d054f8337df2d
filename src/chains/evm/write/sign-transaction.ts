import { SigningKey, Transaction, getAddress, getBytes, keccak256, type TransactionLike } from "ethers";

import { secp256k1 } from "../../crypto/secp256k1.js";

export interface SignedTransaction {
  /** The raw signed transaction, 0x hex. */
  raw: string;
  hash: string;
}

/** A transaction as the launch and mint paths build it: EIP-1559 (type 2) or legacy with EIP-155 (type 0), no access list. */
type Signable = Required<Pick<TransactionLike, "chainId" | "nonce" | "gasLimit" | "data" | "value">> &
  Pick<TransactionLike, "to" | "type" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice" | "accessList">;

// RLP over Node's Buffers: the 5 KB of a deployment is converted from hex once (natively), not once per step as
// ethers' general-purpose serializer does.
function rlpLength(length: number, offset: number): Buffer {
  if (length < 56) return Buffer.from([offset + length]);
  const hex = length.toString(16);
  const bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
  return Buffer.concat([Buffer.from([offset + 55 + bytes.length]), bytes]);
}

function rlpBytes(bytes: Buffer): Buffer {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return Buffer.concat([rlpLength(bytes.length, 0x80), bytes]);
}

function rlpList(items: Buffer[]): Buffer {
  const payload = Buffer.concat(items);
  return Buffer.concat([rlpLength(payload.length, 0xc0), payload]);
}

function quantity(value: bigint | number | string | null | undefined): Buffer {
  const number = BigInt(value ?? 0);
  if (number === 0n) return Buffer.alloc(0);
  const hex = number.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
}

const hexBytes = (hex: string) => Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex");
const address = (to: unknown) => (to === null || to === undefined ? Buffer.alloc(0) : hexBytes(getAddress(String(to))));

/**
 * libsecp256k1 (tiny-secp256k1's WebAssembly) signs a digest about three times faster than ethers' pure-JS curve: the same
 * deterministic RFC 6979 nonce and low-s form, so the same signature (tested against ethers).
 */
function signDigest(digest: string, privateKey: Buffer): { r: Buffer; s: Buffer; yParity: number } {
  const { signature, recoveryId } = secp256k1().signRecoverable(getBytes(digest), privateKey);
  const bytes = Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength);
  return { r: bytes.subarray(0, 32), s: bytes.subarray(32, 64), yParity: recoveryId };
}

function fastSign(tx: Signable, privateKey: string): SignedTransaction | undefined {
  const type = tx.type ?? 2;
  if (
    (type !== 2 && type !== 0) ||
    (tx.accessList !== undefined && tx.accessList !== null && [...Object.values(tx.accessList)].length > 0)
  ) {
    return undefined;
  }
  const data = hexBytes(String(tx.data));
  const key = hexBytes(privateKey);
  if (type === 2) {
    const fields = [
      quantity(tx.chainId),
      quantity(tx.nonce),
      quantity(tx.maxPriorityFeePerGas),
      quantity(tx.maxFeePerGas),
      quantity(tx.gasLimit),
      address(tx.to),
      quantity(tx.value),
      data,
    ].map(rlpBytes);
    const accessList = rlpList([]);
    const unsigned = Buffer.concat([Buffer.from([2]), rlpList([...fields, accessList])]);
    const signature = signDigest(keccak256(unsigned), key);
    const signed = [quantity(signature.yParity), signature.r, signature.s].map((part) => rlpBytes(stripZeros(part)));
    return encoded(Buffer.concat([Buffer.from([2]), rlpList([...fields, accessList, ...signed])]));
  }
  const chainId = BigInt(tx.chainId ?? 0);
  const fields = [quantity(tx.nonce), quantity(tx.gasPrice), quantity(tx.gasLimit), address(tx.to), quantity(tx.value), data].map(rlpBytes);
  const unsigned = rlpList([...fields, rlpBytes(quantity(chainId)), rlpBytes(Buffer.alloc(0)), rlpBytes(Buffer.alloc(0))]);
  const signature = signDigest(keccak256(unsigned), key);
  const v = chainId * 2n + 35n + BigInt(signature.yParity);
  return encoded(rlpList([...fields, ...[quantity(v), signature.r, signature.s].map((part) => rlpBytes(stripZeros(part)))]));
}

const encoded = (signed: Buffer): SignedTransaction => ({ raw: `0x${signed.toString("hex")}`, hash: keccak256(signed) });

function stripZeros(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

/**
 * Signs a transaction with a deterministic (RFC 6979) signature, as ethers' `Wallet.signTransaction` does, byte for
 * byte (tested), for what a launch or mint sends (EIP-1559 or legacy, no access list) without ethers' repeated hex
 * conversions of the data; anything else goes through ethers. The caller has already checked the key is the sender's.
 */
export function signTransaction(transaction: TransactionLike, privateKey: string): SignedTransaction {
  const fast = fastSign(transaction as Signable, privateKey);
  if (fast !== undefined) return fast;
  const tx = Transaction.from(transaction);
  tx.signature = new SigningKey(privateKey).sign(tx.unsignedHash);
  const raw = tx.serialized;
  return { raw, hash: keccak256(raw) };
}
