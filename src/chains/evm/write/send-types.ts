import type { Transaction, TransactionLike } from "ethers";

import type { Fees } from "../../../domain/fee-ladder.js";
import type { ReservationFillerHooks } from "./reservation-fillers.js";

// What a send is asked to do and what it answers: the shapes the operation pipeline and the send path share.

export interface SignedTransactionInfo {
  transactionHash: string;
  nonce: number;
  /** Public once broadcast; stored so that a lost transaction can be sent again. */
  rawTransaction: string;
  /** The fees it was signed with. */
  fees: Fees;
  /**
   * Its replacements and its cancel, signed ahead with the same key and nonce (a key-in-body send on a chain where a
   * transaction can wait): stored with the record before the broadcast, sent only if it is not included.
   */
  ahead?: SignedStep[];
}

/**
 * A transaction signed ahead for a send: one step of its fee ladder, kept as its signature (it differs from the send's
 * own transaction only in its fees: `resignedTransaction` rebuilds it), or its cancel, kept whole (it is small).
 */
export type SignedStep = { rung: number; fees: Fees; transactionHash: string } & (
  { role: "replacement"; signature: string } | { role: "cancel"; rawTransaction: string }
);

/** A pair's fee rules, as a send applies them. */
export interface FeeRules {
  /** Throws (FEE_CAP_EXCEEDED) when fees a send would sign are over the pair's ceiling; runs before anything is signed. */
  check(fees: Fees): void;
  /** The pair's configured ceiling; undefined: the default multiple of the first max fee. */
  cap: bigint | undefined;
  /** Sign the fee ladder and the cancel ahead, with the key at hand. */
  signAhead: boolean;
}

/** The recorder port: how the operation pipeline takes part in a send, each call inside the sender lock. */
export interface BroadcastHooks {
  /** Runs after signing and before broadcasting, inside the sender lock: the place to write a durable record. */
  beforeBroadcast?(info: SignedTransactionInfo): Promise<void>;
  /**
   * The nonces this send may not take, inside the sender lock: the store's unfinished records may hold nonces the node
   * has not seen yet (signed before a crash, not yet re-broadcast), and prepared transactions hold theirs until signed.
   */
  heldNonces?(): Promise<number[]>;
  /** A caller-signed transaction (already checked against the request): refuses it unless it is the prepared one, inside the sender lock. */
  acceptSigned?(transaction: Transaction): Promise<void>;
  /** Where a key-in-body send keeps the fillers it signs for the reservations below it (reservation-fillers.ts). */
  reservationFillers?: ReservationFillerHooks;
}

/** What the transaction does; who signs it is the caller's `privateKey`, a `signedTransaction`, or nobody yet (prepare). */
export interface TransactionIntent {
  sender: string;
  to?: string;
  data: string;
  /** Native currency sent with it, in smallest units (a NATIVE transfer's amount); default 0. */
  value?: bigint;
  /**
   * Sends of one shape need the same gas but for their calldata, and revert only if every send of the shape reverts
   * (deployments of one contract with checked arguments: see gas-shapes.ts); the node is asked once per shape and chain
   * (again after a while). Sends without a shape are estimated by the node every time.
   */
  gasShape?: string;
  /** The pair's fee ceiling and whether to sign the ladder ahead; none: no ceiling, nothing ahead. */
  feeRules?: FeeRules;
}

/**
 * A key the service holds (a held wallet: the local keystore's, or a KMS key), signing for one sender. Held keys sign
 * only what is sent: nothing ahead, a replacement when it is needed.
 */
export interface TransactionSigner {
  /** The sender it signs for (checksummed). */
  readonly address: string;
  /** Where the key is, for messages and the start-up banner: "local-keystore", "aws-kms". */
  readonly kind: string;
  /** The most its policy lets it pay per gas (wei): a send or replacement above it is refused before signing. */
  readonly maxFeePerGas?: bigint;
  /** Signs an EIP-1559 transaction, or a legacy one with a chain id: its raw form and hash. */
  signTransaction(transaction: TransactionLike): Promise<{ raw: string; hash: string }>;
}

export interface SendRequest extends TransactionIntent {
  /** Already checked to derive `sender`. */
  privateKey?: string;
  /** A held wallet's signer, for `sender` (no key in the request). */
  signer?: TransactionSigner;
  /** Signed by the caller; parsed and checked here. */
  signedTransaction?: string;
}
