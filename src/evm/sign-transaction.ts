import { SigningKey, Transaction, keccak256, type TransactionLike } from "ethers";

export interface SignedTransaction {
  /** The raw signed transaction, 0x hex. */
  raw: string;
  hash: string;
}

/**
 * Signs a transaction with ethers' own serialization and deterministic (RFC 6979) signature, without what a `Wallet`
 * adds for a one-off signature: deriving the public key and address, copying the transaction again. The caller has
 * already checked that the key belongs to the sender. Equal to `new Wallet(key).signTransaction(tx)` (tested).
 */
export function signTransaction(transaction: TransactionLike, privateKey: string): SignedTransaction {
  const tx = Transaction.from(transaction);
  tx.signature = new SigningKey(privateKey).sign(tx.unsignedHash);
  const raw = tx.serialized;
  return { raw, hash: keccak256(raw) };
}
