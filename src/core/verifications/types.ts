import type { ExplorerName } from "../../chains/evm/verification/explorer-client.js";

// A submission of a launched token's source to an explorer (docs/tokens.md#verifying-a-token), kept in the store so that
// any replica (or a restart) carries it to its end: submitted once, then asked about by the reference the explorer gave,
// until verified or failed (docs/decisions/0061-explorer-verification.md).

export type { ExplorerName } from "../../chains/evm/verification/explorer-client.js";

export type VerificationStatus = "pending" | "verified" | "failed";

export interface VerificationRecord {
  id: string;
  /** Its owner: only that API key reads it (null: made without a key, by a task or a keyless `serve`). */
  apiKeyId: string | null;
  status: VerificationStatus;
  explorer: ExplorerName;
  chain: string;
  network: string;
  /** The contract, checksummed. */
  address: string;
  /** The launch whose transaction gives the verification input. */
  operationId: string;
  /** What the explorer said last, in its words; null before it was asked. */
  explorerMessage: string | null;
  /** Etherscan's and Blockscout's guid, Sourcify's verificationId: set once the explorer accepted the submission. */
  explorerReference: string | null;
  /** The contract's page on the explorer, where known. */
  url: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewVerification = Pick<VerificationRecord, "id" | "apiKeyId" | "explorer" | "chain" | "network" | "address" | "operationId">;

/** What a worker writes after asking the explorer, while its lease holds; the lease ends with it. */
export type VerificationStep =
  /** The explorer took the submission: its reference is kept before anything else, so that it is never submitted again. */
  | { kind: "accepted"; reference: string; message: string; nextInMs: number }
  /** Still undecided: asked again in `nextInMs`. */
  | { kind: "again"; message: string; nextInMs: number }
  | { kind: "final"; status: "verified" | "failed"; message: string; url: string | null };

export interface VerificationStore {
  /**
   * Writes the record, due at once; or, when the key already has a pending one for the contract on the explorer, answers
   * that one (`created: false`), so that a repeated request does not submit twice.
   */
  createVerification(verification: NewVerification): Promise<{ record: VerificationRecord; created: boolean }>;
  /** The record, when `apiKeyId` owns it (undefined: any owner, for the worker). */
  getVerification(id: string, apiKeyId?: string | null): Promise<VerificationRecord | undefined>;
  /** Leases up to `limit` pending records that are due and no other owner's lease holds. */
  leaseDueVerifications(owner: string, leaseMs: number, limit: number): Promise<VerificationRecord[]>;
  /** Records a step while `owner`'s lease holds, and ends the lease; false when the lease was lost (nothing written). */
  stepVerification(id: string, owner: string, step: VerificationStep): Promise<boolean>;
  releaseVerificationLeases(owner: string): Promise<void>;
}
