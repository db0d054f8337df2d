import type { TransactionLike } from "ethers";

import type { TransactionSigner } from "../evm/write/send-types.js";
import { signTransaction } from "../evm/write/sign-transaction.js";

/**
 * A key held by the service, signing in this process: the keystore's (decrypted when it was unlocked, or, imported, on
 * first use). The key stays in this closure; nothing reads it back.
 */
export function localSigner(address: string, privateKey: string, maxFeePerGas?: bigint): TransactionSigner {
  return {
    address,
    kind: "local-keystore",
    ...(maxFeePerGas !== undefined ? { maxFeePerGas } : {}),
    async signTransaction(transaction: TransactionLike) {
      return signTransaction(transaction, privateKey);
    },
  };
}
