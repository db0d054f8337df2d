import type { BitcoinSigner } from "../../chains/bitcoin/bitcoin-signer.js";
import type { TransactionSigner } from "../../chains/evm/write/send-types.js";
import type { PolicedWrite } from "../../domain/wallet-policy.js";
import type { AdmittedWrite } from "../custody/policies.js";
import type { HolderScope } from "../custody/types.js";
import type { WriteIntent } from "./intents.js";

// How the write pipeline meets the wallets the service holds (core/custody): their signers, and a write as their
// policies judge it.

/** The wallets the service holds, as the write pipeline uses them (core/custody/custody.ts). */
export interface HeldWallets {
  /** A held wallet's signer for a sender on a pair, when `scope` may use it; undefined when it is no held wallet of its. */
  signerFor(scope: HolderScope, chain: string, network: string, sender: string): Promise<TransactionSigner | undefined>;
  /** A held Bitcoin wallet's signer, when `scope` may use it. */
  bitcoinSignerFor(scope: HolderScope, network: string, sender: string): Promise<BitcoinSigner | undefined>;
  /** Runs a held wallet's write if its policy lets it through; `spent` says, after a failure, whether a node may hold it. */
  admit<T>(write: AdmittedWrite, run: () => Promise<T>, spent: () => Promise<boolean>): Promise<T>;
}

/** A write as a wallet policy sees it: the native value it sends, who receives, the contract it calls. */
export function policedWrite(intent: WriteIntent<unknown>): PolicedWrite {
  const { params, contractAddress } = intent.record(0);
  const recipients: string[] = [];
  for (const field of ["to", "spender", "account", "newOwner"]) {
    if (intent.kind !== "launch" && typeof params[field] === "string") recipients.push((params[field] as string).toLowerCase());
  }
  if (Array.isArray(params.recipients)) {
    for (const recipient of params.recipients as Array<{ to?: unknown }>) {
      if (typeof recipient.to === "string") recipients.push(recipient.to.toLowerCase());
    }
  }
  return {
    pair: intent.command.pair,
    kind: intent.kind,
    value: intent.transaction.value ?? 0n,
    recipients,
    contract: intent.kind === "launch" ? null : (contractAddress?.toLowerCase() ?? null),
  };
}
