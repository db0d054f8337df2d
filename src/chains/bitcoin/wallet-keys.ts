import { invalidArgument } from "../../domain/errors.js";
import { bitcoinLibraries } from "./libraries.js";
import { bitcoinjsNetwork } from "./networks.js";

export const BITCOIN_ADDRESS_TYPES = ["p2wpkh", "p2tr", "p2pkh"] as const;
export type BitcoinAddressType = (typeof BITCOIN_ADDRESS_TYPES)[number];

export interface BitcoinKeyPair {
  address: string;
  privateKey: string;
  addressType: BitcoinAddressType;
}

export function parseBitcoinAddressType(value: unknown): BitcoinAddressType {
  if (value === undefined || value === null || value === "") return "p2wpkh";
  if (typeof value === "string" && (BITCOIN_ADDRESS_TYPES as readonly string[]).includes(value.toLowerCase())) {
    return value.toLowerCase() as BitcoinAddressType;
  }
  throw invalidArgument("addressType", `addressType must be one of: ${BITCOIN_ADDRESS_TYPES.join(", ")}`);
}

/** A random key as WIF, and its address: native SegWit (P2WPKH) unless asked otherwise. */
export function createBitcoinKeyPair(network: string, addressType: BitcoinAddressType = "p2wpkh"): BitcoinKeyPair {
  const { lib, ECPair } = bitcoinLibraries();
  const { payments } = lib;
  const params = bitcoinjsNetwork(network);
  const keyPair = ECPair.makeRandom({ network: params });
  const pubkey = keyPair.publicKey;
  let address: string | undefined;
  switch (addressType) {
    case "p2wpkh":
      address = payments.p2wpkh({ pubkey, network: params }).address;
      break;
    case "p2pkh":
      address = payments.p2pkh({ pubkey, network: params }).address;
      break;
    case "p2tr":
      address = payments.p2tr({ internalPubkey: pubkey.subarray(1, 33), network: params }).address;
      break;
  }
  return { address: address!, privateKey: keyPair.toWIF(), addressType };
}

/** The address a WIF key controls, for the given type; used by tests and key checks. */
export function bitcoinAddressOfWif(wif: string, network: string, addressType: BitcoinAddressType): string {
  const { lib, ECPair } = bitcoinLibraries();
  const { payments } = lib;
  const params = bitcoinjsNetwork(network);
  const pubkey = ECPair.fromWIF(wif, params).publicKey;
  if (addressType === "p2pkh") return payments.p2pkh({ pubkey, network: params }).address!;
  if (addressType === "p2tr") return payments.p2tr({ internalPubkey: pubkey.subarray(1, 33), network: params }).address!;
  return payments.p2wpkh({ pubkey, network: params }).address!;
}
