import { expect } from "chai";
import { Transaction, Wallet, keccak256, type TransactionLike } from "ethers";

import { serviceErc20Artifact } from "../src/evm/artifacts.js";
import { signTransaction } from "../src/evm/sign-transaction.js";

describe("transaction signing: the launch path's signer equals ethers' Wallet", function () {
  const deployment = serviceErc20Artifact.bytecode + "00".repeat(224);
  const cases: Array<[string, TransactionLike]> = [
    [
      "an EIP-1559 deployment (no to, 5 KB of data)",
      {
        type: 2,
        chainId: 11155111,
        nonce: 7,
        gasLimit: 2_500_000n,
        maxFeePerGas: 3n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
        data: deployment,
        value: 0n,
      },
    ],
    [
      "a legacy call on BNB Smart Chain",
      {
        type: 0,
        chainId: 56,
        nonce: 0,
        gasLimit: 90_000n,
        gasPrice: 5n * 10n ** 9n,
        to: "0x000000000000000000000000000000000000dEaD",
        data: "0x40c10f19",
        value: 0n,
      },
    ],
  ];

  for (const [name, transaction] of cases) {
    it(`signs ${name} byte for byte as Wallet.signTransaction, with the hash of the raw form`, async function () {
      for (let round = 0; round < 5; round++) {
        const wallet = Wallet.createRandom();
        const expected = await wallet.signTransaction(transaction);
        const signed = signTransaction(transaction, wallet.privateKey);
        expect(signed.raw).to.equal(expected);
        expect(signed.hash).to.equal(keccak256(expected));
        expect(Transaction.from(signed.raw).from).to.equal(wallet.address);
      }
    });
  }
});
