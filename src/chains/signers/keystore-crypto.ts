import { randomBytes } from "node:crypto";

import { bitcoinLibraries } from "../bitcoin/libraries.js";
import { bitcoinjsNetwork } from "../bitcoin/networks.js";

import {
  HDNodeWallet,
  Mnemonic,
  decryptKeystoreJson,
  encryptKeystoreJson,
  getAddress,
  getBytes,
  isKeystoreJson,
  type KeystoreAccount,
} from "ethers";

// The keystore's cryptography, all of it from ethers v6 (a maintained library; no hand-written cipher or KDF):
// - the seed is a BIP-39 mnemonic of 24 words (256 bits from the OS's CSPRNG);
// - held EVM keys are its BIP-44 keys m/44'/60'/0'/0/i, one index per held wallet; held Bitcoin keys its BIP-84 keys
//   m/84'/0'/0'/0/i (mainnet) or m/84'/1'/0'/0/i (the test networks), native SegWit;
// - at rest, the seed and each imported key are Web3 Secret Storage v3 JSON (scrypt, N = 2^17, r = 8, p = 1; AES-128-CTR
//   with a keccak-256 MAC over the ciphertext), the format geth, MetaMask and ethers read. The seed's file is its first
//   account's (m/44'/60'/0'/0/0) with the mnemonic inside, as ethers' `HDNodeWallet.encrypt` writes it (`x-ethers`).
// - the EVM account's extended public key (m/44'/60'/0') is kept in the clear: it derives the addresses, never a key, so
//   a wallet can be created while the keystore is locked.

/** BIP-44's EVM account every held key derives from. */
export const EVM_ACCOUNT_PATH = "m/44'/60'/0'";

/** The passphrase does not open this keystore. */
export class WrongPassphrase extends Error {
  constructor() {
    super("the passphrase does not open the keystore");
    this.name = "WrongPassphrase";
  }
}

export interface NewSeed {
  /** The seed, encrypted (Web3 Secret Storage v3 JSON). */
  encrypted: string;
  /** The EVM account's extended public key (xpub). */
  evmAccountKey: string;
  mnemonic: Mnemonic;
}

/** A new seed, or the one of `phrase` (a restore), encrypted under `passphrase`. */
export async function sealSeed(passphrase: string, phrase?: string): Promise<NewSeed> {
  const mnemonic = phrase === undefined ? Mnemonic.fromEntropy(randomBytes(32)) : Mnemonic.fromPhrase(phrase.trim().replace(/\s+/g, " "));
  return { encrypted: await encryptSeed(mnemonic, passphrase), evmAccountKey: evmAccountKeyOf(mnemonic), mnemonic };
}

/** The seed's mnemonic encrypted under `passphrase` (a rotation writes it again). */
export async function encryptSeed(mnemonic: Mnemonic, passphrase: string): Promise<string> {
  const first = HDNodeWallet.fromMnemonic(mnemonic, `${EVM_ACCOUNT_PATH}/0/0`);
  return encryptKeystoreJson(
    { address: first.address, privateKey: first.privateKey, mnemonic: { entropy: mnemonic.entropy, path: first.path!, locale: "en" } },
    passphrase,
  );
}

/** The seed's mnemonic; WrongPassphrase when `passphrase` does not open it. */
export async function openSeed(encrypted: string, passphrase: string): Promise<Mnemonic> {
  const account = await decrypt(encrypted, passphrase);
  if (account.mnemonic?.entropy === undefined) throw new Error("the keystore's seed file holds no mnemonic");
  return Mnemonic.fromEntropy(account.mnemonic.entropy);
}

export function evmAccountKeyOf(mnemonic: Mnemonic): string {
  return HDNodeWallet.fromMnemonic(mnemonic, EVM_ACCOUNT_PATH).neuter().extendedKey;
}

/** The address of the held key at `index`, from the account's public key alone. */
export function derivedEvmAddress(evmAccountKey: string, index: number): string {
  return HDNodeWallet.fromExtendedKey(evmAccountKey).derivePath(`0/${index}`).address;
}

/** The held key at `index` (0x hex). */
export function derivedEvmKey(mnemonic: Mnemonic, index: number): string {
  return HDNodeWallet.fromMnemonic(mnemonic, `${EVM_ACCOUNT_PATH}/0/${index}`).privateKey;
}

/** BIP-84's path of the held Bitcoin key at `index`: coin type 0 on mainnet, 1 on the test networks. */
export function bitcoinKeyPath(network: string, index: number): string {
  return `m/84'/${network === "mainnet" ? 0 : 1}'/0'/0/${index}`;
}

/** The held Bitcoin key at `index` on `network` (BIP-84): its private key (0x hex) and compressed public key. */
export function derivedBitcoinKey(mnemonic: Mnemonic, network: string, index: number): { privateKey: string; publicKey: Uint8Array } {
  const node = HDNodeWallet.fromMnemonic(mnemonic, bitcoinKeyPath(network, index));
  return { privateKey: node.privateKey, publicKey: getBytes(node.publicKey) };
}

/** The native SegWit (P2WPKH) address of a held Bitcoin key, as bitcoinjs-lib encodes it. */
export function derivedBitcoinAddress(mnemonic: Mnemonic, network: string, index: number): string {
  const { publicKey } = derivedBitcoinKey(mnemonic, network, index);
  return bitcoinLibraries().lib.payments.p2wpkh({ pubkey: Buffer.from(publicKey), network: bitcoinjsNetwork(network) }).address!;
}

/** An imported key encrypted under `passphrase`, for the address it derives. */
export function encryptKey(address: string, privateKey: string, passphrase: string): Promise<string> {
  return encryptKeystoreJson({ address: getAddress(address), privateKey }, passphrase);
}

/** An imported key; WrongPassphrase when `passphrase` does not open it. */
export async function decryptKey(encrypted: string, passphrase: string): Promise<string> {
  return (await decrypt(encrypted, passphrase)).privateKey;
}

async function decrypt(encrypted: string, passphrase: string): Promise<KeystoreAccount> {
  if (!isKeystoreJson(encrypted)) throw new Error("not a Web3 Secret Storage file");
  try {
    return await decryptKeystoreJson(encrypted, passphrase);
  } catch (error) {
    // ethers says "incorrect password" when the MAC does not match: the only failure a good file gives.
    if (error instanceof Error && /incorrect password/i.test(error.message)) throw new WrongPassphrase();
    throw error;
  }
}
