// What the service keeps of the keys it holds (docs/custody.md): one keystore, and the wallets it holds, by pair. The
// store keeps them encrypted (the seed, and each imported key, as Web3 Secret Storage v3) or public (an address, a
// derivation index, the EVM account's extended public key); the passphrase is never stored.

import type { TransactionSigner } from "../../chains/evm/write/send-types.js";

/** Keys in a KMS (TOKEN_SERVICE_SIGNER=aws-kms): made there, used there, never read out. */
export interface KmsKeys {
  /** A new secp256k1 signing key: its id (ARN) and address. */
  createKey(): Promise<{ keyId: string; address: string }>;
  /** The signer of a key held for `address`. */
  signer(keyId: string, address: string): TransactionSigner;
  /** Lets its connections go. */
  close(): void;
}

/** Who asks: an HTTP request's API key (its own held wallets only), or the operator (a task, the programmatic API: all). */
export type HolderScope = { apiKeyId: string | null } | "operator";

export interface KeystoreRecord {
  /** The seed, encrypted. */
  seed: string;
  /** The EVM account's extended public key: held addresses without the passphrase. */
  evmAccountKey: string;
}

export interface HeldWalletRecord {
  chain: string;
  network: string;
  /** Checksummed. */
  address: string;
  /** The API key that made it: only that key sees and uses it (null: made without one, by a task or the API). */
  apiKeyId: string | null;
  source: "derived" | "imported" | "kms";
  /** Derived: its index under the seed's EVM account. */
  derivationIndex: number | null;
  /** Imported: its key, encrypted. */
  encryptedKey: string | null;
  /** KMS: its key's id (ARN) in AWS KMS. */
  kmsKeyId: string | null;
  createdAt: string;
}

export interface HeldWalletPage {
  items: HeldWalletRecord[];
  /** Opaque cursor for the next (older) page, or null at the end. */
  nextCursor: string | null;
}

export interface CustodyStore {
  readKeystore(): Promise<KeystoreRecord | undefined>;
  /**
   * Writes the keystore unless one is there; answers the one that is (another replica may have written it first).
   * `nextIndex`: the first derivation index it gives (a restore continues after the held wallets already recorded).
   */
  initKeystore(record: KeystoreRecord, nextIndex?: number): Promise<KeystoreRecord>;
  /** Every held wallet derived from the seed (a restore checks the phrase against them). */
  derivedWallets(): Promise<HeldWalletRecord[]>;
  /** The next derivation index, taken once across every process that shares the store. */
  takeDerivationIndex(): Promise<number>;
  /** False when the pair already holds that address (nothing is written then). */
  insertHeldWallet(record: HeldWalletRecord): Promise<boolean>;
  findHeldWallet(chain: string, network: string, address: string): Promise<HeldWalletRecord | undefined>;
  /** The pairs that hold `address` (an address may be held on several). */
  heldPairsOf(address: string): Promise<HeldWalletRecord[]>;
  /** Newest first; `apiKeyId` undefined: every key's. */
  listHeldWallets(
    apiKeyId: string | null | undefined,
    options: { chain?: string; network?: string; limit: number; cursor?: string },
  ): Promise<HeldWalletPage>;
  /** A rotation: the seed and every imported key encrypted again, written together. */
  reencrypt(seed: string, importedKeys: Array<{ chain: string; network: string; address: string; encryptedKey: string }>): Promise<void>;
  /** A held wallet's policy (its rules as JSON, amounts as strings), by address; undefined: none. */
  readPolicy(address: string): Promise<{ apiKeyId: string | null; policy: Record<string, unknown> } | undefined>;
  writePolicy(address: string, apiKeyId: string | null, policy: Record<string, unknown>): Promise<void>;
  /** The native value a held wallet's writes sent on a pair on `day` (YYYY-MM-DD, UTC), as counted when each was signed. */
  spentOn(chain: string, network: string, address: string, day: string): Promise<bigint>;
  recordSpending(entry: {
    operationId: string;
    chain: string;
    network: string;
    address: string;
    day: string;
    value: bigint;
  }): Promise<void>;
  /** A write counted, then refused before anything was sent: it spent nothing. */
  forgetSpending(operationId: string): Promise<void>;
  /** Every imported key (a rotation encrypts them again). */
  importedKeys(): Promise<Array<{ chain: string; network: string; address: string; encryptedKey: string }>>;
}
