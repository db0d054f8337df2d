import type { Mnemonic } from "ethers";

import {
  WrongPassphrase,
  decryptKey,
  derivedBitcoinAddress,
  derivedBitcoinKey,
  derivedEvmAddress,
  derivedEvmKey,
  encryptKey,
  encryptSeed,
  openSeed,
  sealSeed,
} from "../../chains/signers/keystore-crypto.js";
import { localSigner } from "../../chains/signers/local-signer.js";
import { localBitcoinSigner, type BitcoinSigner } from "../../chains/bitcoin/bitcoin-signer.js";
import { addressOfPrivateKey } from "../../chains/evm/wallet-keys.js";
import type { TransactionSigner } from "../../chains/evm/write/send-types.js";
import type { ChainRegistry } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { parsePrivateKey } from "../../domain/keys.js";
import { LruMap } from "../../domain/lru-map.js";
import type { CustodyStore, HeldWalletPage, HeldWalletRecord, HolderScope, KmsKeys } from "./types.js";
import { WalletPolicies, type AdmittedWrite } from "./policies.js";
import { InProcessSenderLock, type SenderLock } from "../../chains/evm/sender-lock.js";

// Held wallets (docs/custody.md): keys the service keeps and signs with, so that a write names its sender and carries
// no key. The local keystore keeps them under one passphrase (TOKEN_SERVICE_KEYSTORE_PASSPHRASE), read at start; without
// it, or with a wrong one, the keystore is locked: wallets can still be made (their addresses derive from the seed's
// public key) but nothing is signed for them (KEYSTORE_LOCKED), and everything else works.

export type KeystoreState =
  /** No keystore in the store yet: the first held wallet makes it (with a passphrase). */
  "empty" | "locked" | "unlocked";

export interface CustodyStatus {
  /** Where new held wallets' keys are made: the local keystore, or AWS KMS (imported keys stay in the keystore). */
  signer: "local-keystore" | "aws-kms";
  /** The local keystore's state (with aws-kms: for imported keys). */
  state: KeystoreState;
  /** Why it is locked, or what `empty` needs. */
  reason?: string;
}

/** Options of a Custody beyond its store and chains. */
export interface CustodyOptions {
  /** TOKEN_SERVICE_KEYSTORE_PASSPHRASE; undefined or empty: the local keystore is locked. */
  passphrase?: string | undefined;
  /** Serializes a wallet's writes under a daily limit, across every process sharing the store. */
  lock?: SenderLock;
  /** TOKEN_SERVICE_SIGNER=aws-kms: new held wallets' keys are made in KMS (loaded on first use). */
  kms?: () => Promise<KmsKeys>;
}

export interface HeldWallet {
  address: string;
  chain: string;
  network: string;
  custody: "service";
  source: "derived" | "imported" | "kms";
  createdAt: string;
}

/** Imported keys and derived keys decrypted once, by pair and address: a held wallet signs without scrypt again. */
const KEYS_KEPT = 10_000;

const PASSPHRASE_VARIABLE = "TOKEN_SERVICE_KEYSTORE_PASSPHRASE";

function keystoreLocked(reason: string): TokenServiceError {
  return new TokenServiceError(ErrorCode.KEYSTORE_LOCKED, `the keystore is locked: ${reason}`);
}

/** A held wallet's record for the scope's key, its key kept as `kept` says (an index, an encrypted key, a KMS key id). */
function heldRecord(
  scope: HolderScope,
  pair: { chain: string; network: string },
  address: string,
  kept: Pick<HeldWalletRecord, "source"> & Partial<Pick<HeldWalletRecord, "derivationIndex" | "encryptedKey" | "kmsKeyId">>,
): HeldWalletRecord {
  return {
    ...pair,
    address,
    apiKeyId: scope === "operator" ? null : scope.apiKeyId,
    derivationIndex: null,
    encryptedKey: null,
    kmsKeyId: null,
    ...kept,
    createdAt: new Date().toISOString(),
  };
}

export function presentHeldWallet(record: HeldWalletRecord): HeldWallet {
  return {
    address: record.address,
    chain: record.chain,
    network: record.network,
    custody: "service",
    source: record.source,
    createdAt: record.createdAt,
  };
}

export class Custody {
  private mnemonic: Mnemonic | undefined;
  private lockedBecause: string | undefined;
  private evmAccountKey: string | undefined;
  private readonly keys = new LruMap<string, string>(KEYS_KEPT);
  private started: Promise<void> | undefined;

  /** Every held wallet's policy: what the service signs for it. */
  readonly policies: WalletPolicies;

  private readonly passphrase: string | undefined;
  private readonly kms: (() => Promise<KmsKeys>) | undefined;

  constructor(
    private readonly store: CustodyStore,
    private readonly chains: ChainRegistry,
    options: CustodyOptions = {},
  ) {
    this.passphrase = options.passphrase;
    this.kms = options.kms;
    this.policies = new WalletPolicies(store, chains, options.lock ?? new InProcessSenderLock());
  }

  /** Lets the KMS client's connections go, if one was made. */
  async close(): Promise<void> {
    if (this.kmsKeys !== undefined) (await this.kmsKeys.catch(() => undefined))?.close();
  }

  /** The KMS keys, loaded once. */
  private kmsKeys: Promise<KmsKeys> | undefined;
  private keysInKms(): Promise<KmsKeys> {
    return (this.kmsKeys ??= this.kms!());
  }

  /** Reads the keystore and opens it with the passphrase (once; scrypt takes about a second). */
  start(): Promise<void> {
    // A store that could not be read (a database outage) is read again by the next caller.
    this.started ??= this.open().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  async status(): Promise<CustodyStatus> {
    await this.start();
    const signer = this.kms === undefined ? "local-keystore" : "aws-kms";
    if (this.mnemonic !== undefined) return { signer, state: "unlocked" };
    if (this.evmAccountKey === undefined && this.lockedBecause === undefined) {
      return this.passphrase
        ? { signer, state: "empty", reason: `made with the first ${signer === "aws-kms" ? "imported key" : "held wallet"}` }
        : { signer, state: "empty", reason: `set ${PASSPHRASE_VARIABLE} to make one` };
    }
    return { signer, state: "locked", reason: this.lockedBecause! };
  }

  /** A new held wallet for the pair, derived from the seed: its address only (no key leaves the keystore). */
  async create(scope: HolderScope, chain: string, network: string): Promise<HeldWallet> {
    const info = this.chains.resolve(chain, network);
    if (info.kind === "bitcoin") return this.createBitcoin(scope, info.network);
    const pair = this.evmPair(chain, network);
    if (this.kms !== undefined) return this.createInKms(scope, pair);
    const accountKey = await this.accountKey();
    return this.holdDerived(scope, pair, (index) => derivedEvmAddress(accountKey, index));
  }

  /** A held wallet at the seed's next index (taken once across replicas), at the address `addressAt` derives for it. */
  private async holdDerived(
    scope: HolderScope,
    pair: { chain: string; network: string },
    addressAt: (index: number) => string,
  ): Promise<HeldWallet> {
    for (;;) {
      const index = await this.store.takeDerivationIndex();
      const record = heldRecord(scope, pair, addressAt(index), { source: "derived", derivationIndex: index });
      // An address already held for the pair (imported before) takes the next index.
      if (await this.store.insertHeldWallet(record)) return presentHeldWallet(record);
    }
  }

  /** Holds the caller's key for the pair, encrypted under the passphrase; answers the wallet without it. */
  async import(scope: HolderScope, chain: string, network: string, privateKey: unknown): Promise<HeldWallet> {
    const pair = this.evmPair(chain, network);
    const { key, address } = parsePrivateKey(privateKey, "privateKey", addressOfPrivateKey);
    const passphrase = await this.unlockedPassphrase();
    const record = heldRecord(scope, pair, address, { source: "imported", encryptedKey: await encryptKey(address, key, passphrase) });
    if (!(await this.store.insertHeldWallet(record))) {
      throw new TokenServiceError(ErrorCode.WALLET_ALREADY_HELD, `${address} is already a held wallet on ${pair.chain}/${pair.network}`, {
        field: "privateKey",
      });
    }
    this.keys.set(this.keyOf(pair.chain, pair.network, address), key);
    return presentHeldWallet(record);
  }

  /** Newest first; `chain` alone, or `chain` and `network`, narrow the list. */
  async list(
    scope: HolderScope,
    options: { chain?: string; network?: string; limit: number; cursor?: string },
  ): Promise<{ items: HeldWallet[]; nextCursor: string | null }> {
    const filter: { chain?: string; network?: string; limit: number; cursor?: string } = { limit: options.limit };
    if (options.cursor !== undefined) filter.cursor = options.cursor;
    if (options.network !== undefined) {
      if (options.chain === undefined) throw invalidArgument("chain", "chain is required with network");
      Object.assign(filter, this.pairOf(options.chain, options.network));
    } else if (options.chain !== undefined) {
      filter.chain = this.chains.parseChain(options.chain);
    }
    const page: HeldWalletPage = await this.store.listHeldWallets(scope === "operator" ? undefined : scope.apiKeyId, filter);
    return { items: page.items.map(presentHeldWallet), nextCursor: page.nextCursor };
  }

  /**
   * Whether a write naming this pair and sender, with no key, is signed by the service (the sender is a held wallet the
   * scope may use) rather than prepared for the caller to sign. Values that name no pair or address: no (the write's own
   * checks then say what is wrong).
   */
  async holds(scope: HolderScope, chain: unknown, network: unknown, sender: unknown): Promise<boolean> {
    let pair: { chain: string; network: string };
    try {
      pair = this.pairOf(chain as string, network as string);
    } catch {
      return false;
    }
    if (typeof sender !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(sender)) return false;
    return (await this.find(scope, pair.chain, pair.network, sender)) !== undefined;
  }

  /** The held wallet at `address` on the pair, if the scope may use it (another key's is not there for it). */
  async find(scope: HolderScope, chain: string, network: string, address: string): Promise<HeldWalletRecord | undefined> {
    const record = await this.store.findHeldWallet(chain, network, address.toLowerCase());
    if (record === undefined) return undefined;
    return scope === "operator" || scope.apiKeyId === record.apiKeyId ? record : undefined;
  }

  /**
   * The signer of `sender` on the pair, when it is a held wallet the scope may use; undefined otherwise (the write is a
   * prepare, or needs a key). KEYSTORE_LOCKED when it is held but the keystore cannot sign.
   */
  async signerFor(scope: HolderScope, chain: string, network: string, sender: string): Promise<TransactionSigner | undefined> {
    const pair = this.pairOf(chain, network);
    const record = await this.find(scope, pair.chain, pair.network, sender);
    // A held Bitcoin wallet signs no EVM transaction (its sends are not built yet).
    if (record === undefined || record.chain === "bitcoin") return undefined;
    const policy = await this.policies.of(record.address);
    if (record.source === "kms") {
      if (this.kms === undefined) {
        throw new TokenServiceError(
          ErrorCode.SIGNING_KEY_UNAVAILABLE,
          `${record.address}'s key is in AWS KMS (${record.kmsKeyId}): this service runs without it; set TOKEN_SERVICE_SIGNER=aws-kms`,
          { details: { problem: "not-configured" } },
        );
      }
      const signer = (await this.keysInKms()).signer(record.kmsKeyId!, record.address);
      return policy?.maxFeePerGas === undefined ? signer : { ...signer, maxFeePerGas: policy.maxFeePerGas };
    }
    return localSigner(record.address, await this.keyOfRecord(record), policy?.maxFeePerGas);
  }

  /**
   * A new held Bitcoin wallet (BIP-84, native SegWit) from the seed. Its address needs the seed itself (no Bitcoin account
   * key is kept in the clear), so the keystore must be unlocked. It can be funded and read; sends from it come later.
   */
  private async createBitcoin(scope: HolderScope, network: string): Promise<HeldWallet> {
    await this.unlockedPassphrase();
    return this.holdDerived(scope, { chain: "bitcoin", network }, (index) => derivedBitcoinAddress(this.mnemonic!, network, index));
  }

  /** A new held wallet whose key KMS makes and keeps: the service stores its id and address. */
  private async createInKms(scope: HolderScope, pair: { chain: string; network: string }): Promise<HeldWallet> {
    const { keyId, address } = await (await this.keysInKms()).createKey();
    const record = heldRecord(scope, pair, address, { source: "kms", kmsKeyId: keyId });
    if (!(await this.store.insertHeldWallet(record))) throw new Error(`AWS KMS made a key for ${address}, already held on the pair`);
    return presentHeldWallet(record);
  }

  /** The signer of a held Bitcoin wallet the scope may use; undefined when it is none of its. KEYSTORE_LOCKED when locked. */
  async bitcoinSignerFor(scope: HolderScope, network: string, sender: string): Promise<BitcoinSigner | undefined> {
    const record = await this.find(scope, "bitcoin", network, sender);
    if (record === undefined || record.source !== "derived") return undefined;
    await this.unlockedPassphrase();
    const { privateKey } = derivedBitcoinKey(this.mnemonic!, network, record.derivationIndex!);
    return localBitcoinSigner(privateKey.slice(2), network);
  }

  /** Runs a held wallet's write if its policy lets it through (POLICY_DENIED otherwise, nothing signed). */
  async admit<T>(write: AdmittedWrite, run: () => Promise<T>, spent: () => Promise<boolean>): Promise<T> {
    return this.policies.admit(write, await this.policies.of(write.sender), run, spent);
  }

  private async keyOfRecord(record: HeldWalletRecord): Promise<string> {
    const cacheKey = this.keyOf(record.chain, record.network, record.address);
    const kept = this.keys.get(cacheKey);
    if (kept !== undefined) return kept;
    const passphrase = await this.unlockedPassphrase();
    let key: string;
    if (record.source === "derived") key = derivedEvmKey(this.mnemonic!, record.derivationIndex!);
    else {
      try {
        key = await decryptKey(record.encryptedKey!, passphrase);
      } catch (error) {
        if (error instanceof WrongPassphrase)
          throw keystoreLocked(
            `the passphrase this process started with no longer opens ${record.address}'s key (rotated since?): restart it with the new one`,
          );
        throw error;
      }
    }
    this.keys.set(cacheKey, key);
    return key;
  }

  private keyOf(chain: string, network: string, address: string): string {
    return `${chain}/${network}/${address.toLowerCase()}`;
  }

  private pairOf(chain: string, network: string): { chain: string; network: string } {
    const info = this.chains.resolve(chain, network);
    return { chain: info.chain, network: info.network };
  }

  private evmPair(chain: string, network: string): { chain: string; network: string } {
    const info = this.chains.resolve(chain, network);
    if (info.kind !== "evm") {
      throw new TokenServiceError(
        ErrorCode.UNSUPPORTED_OPERATION,
        `held wallets are on EVM chains only for now: ${info.chain} keys are created with their private key (omit custody)`,
        { field: "chain" },
      );
    }
    return { chain: info.chain, network: info.network };
  }

  /** The EVM account's public key: the keystore made first if there is none (with the passphrase). */
  private async accountKey(): Promise<string> {
    await this.start();
    if (this.evmAccountKey !== undefined) return this.evmAccountKey;
    await this.initialise();
    return this.evmAccountKey!;
  }

  private async unlockedPassphrase(): Promise<string> {
    await this.start();
    if (this.mnemonic === undefined && this.evmAccountKey === undefined && this.lockedBecause === undefined) await this.initialise();
    if (this.mnemonic === undefined) throw keystoreLocked(this.lockedBecause ?? `set ${PASSPHRASE_VARIABLE}`);
    return this.passphrase!;
  }

  /** Makes the keystore (another replica may have just made one: then that one is opened). */
  private async initialise(): Promise<void> {
    const existing = await this.store.readKeystore();
    if (existing === undefined && !this.passphrase) {
      throw keystoreLocked(`there is no keystore yet: set ${PASSPHRASE_VARIABLE} (a long random passphrase) and restart to make one`);
    }
    if (existing === undefined) {
      const sealed = await sealSeed(this.passphrase!);
      const kept = await this.store.initKeystore({ seed: sealed.encrypted, evmAccountKey: sealed.evmAccountKey });
      if (kept.seed === sealed.encrypted) {
        this.mnemonic = sealed.mnemonic;
        this.evmAccountKey = sealed.evmAccountKey;
        return;
      }
    }
    await this.openKeystore();
  }

  private async open(): Promise<void> {
    if ((await this.store.readKeystore()) !== undefined) await this.openKeystore();
  }

  private async openKeystore(): Promise<void> {
    const keystore = (await this.store.readKeystore())!;
    this.evmAccountKey = keystore.evmAccountKey;
    if (!this.passphrase) {
      this.lockedBecause = `${PASSPHRASE_VARIABLE} is not set`;
      return;
    }
    try {
      this.mnemonic = await openSeed(keystore.seed, this.passphrase);
      this.lockedBecause = undefined;
    } catch (error) {
      if (!(error instanceof WrongPassphrase)) throw error;
      this.lockedBecause = `${PASSPHRASE_VARIABLE} does not open it (a wrong passphrase)`;
    }
  }

  /** Makes the keystore now if there is none (`custody:init`); answers whether it made it. */
  async init(): Promise<boolean> {
    await this.start();
    if (this.evmAccountKey !== undefined || this.lockedBecause !== undefined) return false;
    await this.initialise();
    return true;
  }

  /** The seed's 24 words (`custody:backup`, never over HTTP): every derived held key comes back from them. */
  async backupPhrase(): Promise<string> {
    await this.unlockedPassphrase();
    return this.mnemonic!.phrase;
  }

  /**
   * Makes the keystore from a backed-up seed (`custody:restore`), in a store that has none: the held wallets still
   * recorded there must derive from it (a phrase of another seed is refused), and new ones continue after them.
   */
  async restore(phrase: string): Promise<{ heldWallets: number }> {
    if (!this.passphrase) throw keystoreLocked(`set ${PASSPHRASE_VARIABLE} to encrypt the restored seed under`);
    if ((await this.store.readKeystore()) !== undefined) {
      throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, "this store already has a keystore: restore into a store without one", {
        field: "mnemonic",
      });
    }
    let sealed: Awaited<ReturnType<typeof sealSeed>>;
    try {
      sealed = await sealSeed(this.passphrase, phrase);
    } catch {
      throw invalidArgument("mnemonic", "the backup is not a BIP-39 phrase (24 words from the English list)");
    }
    const derived = (await this.store.derivedWallets()).filter((record) => record.derivationIndex !== null);
    const stranger = derived.find((record) => derivedEvmAddress(sealed.evmAccountKey, record.derivationIndex!) !== record.address);
    if (stranger !== undefined) {
      throw invalidArgument("mnemonic", `the backup is another seed's: it does not derive the held wallet ${stranger.address}`);
    }
    const next = derived.reduce((highest, record) => Math.max(highest, record.derivationIndex! + 1), 0);
    await this.store.initKeystore({ seed: sealed.encrypted, evmAccountKey: sealed.evmAccountKey }, next);
    this.started = undefined;
    return { heldWallets: derived.length };
  }

  /** A new passphrase for the seed and every imported key (the `custody:passphrase` task); this process keeps the old. */
  async rotate(from: string, to: string): Promise<{ importedKeys: number }> {
    const store = this.store;
    const keystore = await store.readKeystore();
    if (keystore === undefined) throw keystoreLocked("there is no keystore to rotate");
    let mnemonic: Mnemonic;
    try {
      mnemonic = await openSeed(keystore.seed, from);
    } catch (error) {
      if (error instanceof WrongPassphrase) throw keystoreLocked(`${PASSPHRASE_VARIABLE} does not open it (a wrong passphrase)`);
      throw error;
    }
    const imported = await store.importedKeys();
    const reencrypted = [];
    for (const entry of imported) {
      const key = await decryptKey(entry.encryptedKey, from);
      reencrypted.push({ ...entry, encryptedKey: await encryptKey(entry.address, key, to) });
    }
    await store.reencrypt(await encryptSeed(mnemonic, to), reencrypted);
    return { importedKeys: reencrypted.length };
  }
}
