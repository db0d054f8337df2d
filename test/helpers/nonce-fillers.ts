import { Wallet, type TransactionLike } from "ethers";

import type { TokenService } from "../../src/api.js";
import type { NonceFiller, SenderNonce } from "../../src/core/operations/nonce-healing.js";

const SEPOLIA_CHAIN_ID = 11155111;

/** A transaction from `wallet` at `nonce` that moves nothing (to itself, no value): what a wallet's "cancel" sends. */
export function cancelAt(wallet: { privateKey: string }, nonce: number, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) {
  const transaction: TransactionLike = { chainId: SEPOLIA_CHAIN_ID, nonce, gasLimit: 21_000n, type: 2, value: 0n, ...fees };
  const signer = new Wallet(wallet.privateKey);
  return signer.signTransaction({ ...transaction, to: signer.address });
}

/**
 * A filler that holds what the service cannot make: a cancel the sender signed. The service's own pre-signed cancels
 * plug in through the same port; this one signs with the test's key when asked, for the senders it is given.
 */
export class TestCancels implements NonceFiller {
  readonly asked: SenderNonce[] = [];
  private readonly keys = new Map<string, string>();

  constructor(private readonly fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) {}

  allow(wallet: { address: string; privateKey: string }): void {
    this.keys.set(wallet.address.toLowerCase(), wallet.privateKey);
  }

  async fillerAt(gap: SenderNonce) {
    this.asked.push(gap);
    const privateKey = this.keys.get(gap.sender.toLowerCase());
    if (privateKey === undefined) return undefined;
    return { rawTransaction: await cancelAt({ privateKey }, gap.nonce, this.fees), description: "the test's cancel" };
  }
}

/**
 * A gap nothing fills: a transfer prepared and abandoned (its nonce, `gap`), and one prepared after it, signed by the
 * caller and submitted (`above`, at `gap + 1`). A key-in-body send above the reservation would sign a filler for it
 * ahead (docs/local-signing.md); a caller-signed one cannot.
 */
export async function signedAboveAbandoned(service: TokenService, sender: { address: string; privateKey: string }) {
  const request = {
    chain: "ethereum",
    network: "sepolia",
    type: "NATIVE" as const,
    to: sender.address,
    amount: "1",
    sender: sender.address,
  };
  const abandoned = await service.prepareTransfer(request);
  const next = await service.prepareTransfer(request);
  const signedTransaction = await new Wallet(sender.privateKey).signTransaction(next.unsignedTransaction as TransactionLike);
  const above = await service.transfer({ ...request, signedTransaction });
  return { gap: abandoned.unsignedTransaction.nonce, above };
}
