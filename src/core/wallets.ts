import { BUILT_IN_CHAINS, type ChainRegistry } from "../domain/chains.js";
import { invalidArgument } from "../domain/errors.js";
import { createEvmKeyPair } from "../chains/evm/wallet-keys.js";
import { createBitcoinKeyPair, parseBitcoinAddressType, type BitcoinAddressType } from "../chains/bitcoin/wallet-keys.js";

export interface CreateWalletRequest {
  chain: string;
  network: string;
  /** Bitcoin only: p2wpkh (default), p2tr or p2pkh. */
  addressType?: string;
}

export interface Wallet {
  address: string;
  privateKey: string;
  chain: string;
  network: string;
  addressType?: BitcoinAddressType;
}

/** A new key pair for the pair's chain; `chains` is the service's (default: the built-in chains). */
export function createWallet(request: CreateWalletRequest, chains: ChainRegistry = BUILT_IN_CHAINS): Wallet {
  const info = chains.resolve(request.chain, request.network);
  if (info.kind === "bitcoin") {
    const pair = createBitcoinKeyPair(info.network, parseBitcoinAddressType(request.addressType));
    return { address: pair.address, privateKey: pair.privateKey, chain: info.chain, network: info.network, addressType: pair.addressType };
  }
  if (request.addressType) {
    throw invalidArgument("addressType", `addressType applies to bitcoin wallets only, not to ${info.chain}`);
  }
  const pair = createEvmKeyPair();
  return { address: pair.address, privateKey: pair.privateKey, chain: info.chain, network: info.network };
}
