import { Transaction, getAddress, isHexString, type BigNumberish, type TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError, invalidArgument } from "../../../domain/errors.js";

/** A prepared transaction's fields, as JSON keeps them: quantities as decimal strings, bytes and addresses as 0x hex. */
export interface PreparedTransaction {
  chainId: number;
  type: 0 | 2;
  nonce: number;
  gasLimit: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  gasPrice?: string;
  to: string | null;
  data: string;
  value: string;
}

const FIELD = "signedTransaction";

/** A caller-signed transaction, parsed: refused unless it is well formed, signed, and signed by `sender`. */
export function parseSignedTransaction(raw: unknown, sender: string): Transaction {
  if (typeof raw !== "string" || !isHexString(raw) || raw.length < 4) {
    throw invalidArgument(
      FIELD,
      "signedTransaction must be the 0x-prefixed hex of a signed transaction (what a signer's signTransaction returns)",
    );
  }
  let transaction: Transaction;
  try {
    transaction = Transaction.from(raw.toLowerCase());
  } catch (error) {
    throw invalidArgument(
      FIELD,
      `signedTransaction is not a transaction: ${(error as { shortMessage?: string }).shortMessage ?? "undecodable"}`,
    );
  }
  if (transaction.signature === null || transaction.from === null) throw invalidArgument(FIELD, "signedTransaction is not signed");
  if (getAddress(transaction.from) !== sender) {
    throw new TokenServiceError(
      ErrorCode.KEY_SENDER_MISMATCH,
      `signedTransaction is signed by ${transaction.from}, not by the sender ${sender}`,
      {
        field: FIELD,
        details: { sender, signer: transaction.from },
      },
    );
  }
  return transaction;
}

/** The prepared transaction's fields, in the order a difference is reported. */
const COMPARED = [
  "chainId",
  "type",
  "nonce",
  "to",
  "value",
  "gasLimit",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "gasPrice",
  "data",
] as const;
type Compared = (typeof COMPARED)[number];

function valueOf(transaction: Transaction | PreparedTransaction, field: Compared): string | null {
  const value = transaction[field];
  if (value === null || value === undefined) return null;
  if (field === "to" || field === "data") return String(value).toLowerCase();
  return BigInt(value).toString();
}

/**
 * Refuses a signed transaction that is not exactly `prepared`: every field the service prepared (chain id, type, nonce,
 * recipient, value, gas limit, fees, data) must be signed unchanged, and nothing may be added (an access list, blobs,
 * an authorization list).
 */
export function assertSameAsPrepared(transaction: Transaction, prepared: PreparedTransaction): void {
  for (const field of COMPARED) {
    const signed = valueOf(transaction, field);
    const expected = valueOf(prepared, field);
    if (signed === expected) continue;
    const shown = (value: string | null) => (field === "data" ? `${value?.length ?? 0} hex characters` : (value ?? "absent"));
    throw new TokenServiceError(
      ErrorCode.TRANSACTION_MISMATCH,
      field === "data" && signed !== null && expected !== null
        ? "signedTransaction's data differs from the prepared transaction's: sign the prepared transaction unchanged"
        : `signedTransaction's ${field} is ${shown(signed)} but the prepared transaction's is ${shown(expected)}: sign the prepared transaction unchanged`,
      { field: FIELD, details: { property: field, ...(field === "data" ? {} : { prepared: expected, signed }) } },
    );
  }
  const extra =
    (transaction.accessList?.length ?? 0) > 0
      ? "accessList"
      : (transaction.blobVersionedHashes?.length ?? 0) > 0
        ? "blobVersionedHashes"
        : (transaction.authorizationList?.length ?? 0) > 0
          ? "authorizationList"
          : undefined;
  if (extra !== undefined) {
    throw new TokenServiceError(
      ErrorCode.TRANSACTION_MISMATCH,
      `signedTransaction adds a ${extra} the prepared transaction does not have`,
      {
        field: FIELD,
        details: { property: extra },
      },
    );
  }
}

/** A transaction as prepared for the caller, in the JSON form the store keeps and the HTTP answer shows. */
export function toPreparedTransaction(transaction: TransactionLike): PreparedTransaction {
  const quantity = (value: BigNumberish | null | undefined) =>
    value === null || value === undefined ? undefined : BigInt(value).toString();
  const type = Number(transaction.type) === 0 ? 0 : 2;
  return {
    chainId: Number(transaction.chainId),
    type,
    nonce: Number(transaction.nonce),
    gasLimit: quantity(transaction.gasLimit)!,
    ...(type === 2
      ? { maxFeePerGas: quantity(transaction.maxFeePerGas)!, maxPriorityFeePerGas: quantity(transaction.maxPriorityFeePerGas)! }
      : { gasPrice: quantity(transaction.gasPrice)! }),
    to: transaction.to ? getAddress(String(transaction.to)) : null,
    data: String(transaction.data).toLowerCase(),
    value: quantity(transaction.value) ?? "0",
  };
}
