import { expect } from "chai";
import { Transaction, Wallet, keccak256, type TransactionLike } from "ethers";

import { serviceErc20Artifact } from "../../src/chains/evm/artifacts.js";
import { signTransaction } from "../../src/chains/evm/write/sign-transaction.js";

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

  it("signs random EIP-1559 and legacy transactions (nonces, fees, values, recipients, empty data) as Wallet does", async function () {
    const random = (bits: number) =>
      BigInt(`0x${Buffer.from(Array.from({ length: bits / 8 }, () => Math.floor(Math.random() * 256))).toString("hex")}`);
    for (let round = 0; round < 60; round++) {
      const wallet = Wallet.createRandom();
      const legacy = round % 2 === 1;
      // ethers refuses a priority fee above the fee cap, as nodes do.
      const maxFeePerGas = random(40) + 1n;
      const transaction: TransactionLike = {
        type: legacy ? 0 : 2,
        chainId: [1, 56, 97, 17000, 11155111, 560048][round % 6]!,
        nonce: Number(random(16)) % (round < 10 ? 2 : 70_000),
        gasLimit: random(24) + 21_000n,
        value: round % 3 === 0 ? 0n : random(round % 5 === 0 ? 248 : 64),
        data: round % 4 === 0 ? "0x" : `0x${"ab".repeat(Number(random(16)) % 300)}`,
        ...(round % 3 === 1 ? {} : { to: Wallet.createRandom().address }),
        ...(legacy ? { gasPrice: random(40) } : { maxFeePerGas, maxPriorityFeePerGas: random(32) % (maxFeePerGas + 1n) }),
      };
      expect(
        signTransaction(transaction, wallet.privateKey).raw,
        JSON.stringify(transaction, (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
      ).to.equal(await wallet.signTransaction(transaction));
    }
  });

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
