import { expect } from "chai";
import { Transaction, Wallet, getAddress, type TransactionLike } from "ethers";

import { signSend, type SendToSign } from "../../src/chains/evm/write/sign-transaction.js";
import { signOffThread, signingThreadStatus } from "../../src/chains/evm/write/signing-thread.js";

// The signing thread signs a burst's sends beside the service's thread (send-transaction.ts): what it answers must be
// what the service's thread signs, byte for byte, and what ethers' Wallet signs.

const randomBytes = (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(Math.random() * 256)));
const gwei = (value: number) => BigInt(value) * 1_000_000_000n;

function randomSend(legacy: boolean): SendToSign & { wallet: Wallet } {
  const wallet = new Wallet(`0x${randomBytes(32).toString("hex")}`);
  const base = {
    chainId: 11155111n,
    nonce: Math.floor(Math.random() * 1_000),
    gasLimit: 1_500_000n,
    value: 0n,
    data: `0x${randomBytes(Math.floor(Math.random() * 6_000)).toString("hex")}`,
    to: Math.random() < 0.5 ? null : getAddress(`0x${randomBytes(20).toString("hex")}`),
  };
  const transaction: TransactionLike = legacy
    ? { ...base, type: 0, gasPrice: gwei(3) }
    : { ...base, type: 2, maxFeePerGas: gwei(3), maxPriorityFeePerGas: gwei(1) };
  const ladder = [2, 4, 8, 16].map((factor) =>
    legacy
      ? { type: 0 as const, gasPrice: gwei(3 * factor) }
      : { type: 2 as const, maxFeePerGas: gwei(3 * factor), maxPriorityFeePerGas: gwei(factor) },
  );
  const cancel: TransactionLike = { ...transaction, to: wallet.address, data: "0x", gasLimit: 21_000n, nonce: base.nonce };
  return { transaction, ladder, cancel, privateKey: wallet.privateKey, wallet };
}

describe("the signing thread: a burst's sends signed beside the service's thread", function () {
  this.timeout(60_000);

  it("starts on the first send it is handed (signed here meanwhile), then signs 40 random sends as the service's thread and ethers' Wallet do", async function () {
    const first = randomSend(false);
    const { wallet: _firstWallet, ...firstSend } = first;
    expect(await signOffThread(firstSend)).to.deep.equal(signSend(firstSend));
    // Polled with a deadline: the thread loads its modules once.
    const deadline = Date.now() + 30_000;
    while (signingThreadStatus().state !== "ready" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signingThreadStatus().state).to.equal("ready");

    const before = signingThreadStatus().signed;
    const sends = Array.from({ length: 40 }, (_, index) => randomSend(index % 2 === 1));
    const signed = await Promise.all(sends.map(({ wallet: _wallet, ...send }) => signOffThread(send)));
    expect(signingThreadStatus().signed - before, "every one signed on the thread").to.equal(40);
    for (const [index, { wallet, ...send }] of sends.entries()) {
      expect(signed[index], `send ${index}`).to.deep.equal(signSend(send));
      expect(signed[index]!.signed.raw).to.equal(await wallet.signTransaction(send.transaction));
      expect(signed[index]!.cancel!.raw).to.equal(await wallet.signTransaction(send.cancel!));
      // Each step of the ladder is the same transaction with its fees, signed by the same key.
      for (const [rung, resigned] of signed[index]!.resigned.entries()) {
        const step = Transaction.from(signed[index]!.signed.raw);
        step.signature = null;
        const fees = send.ladder[rung]!;
        if (fees.type === 2) [step.maxFeePerGas, step.maxPriorityFeePerGas] = [fees.maxFeePerGas, fees.maxPriorityFeePerGas];
        else step.gasPrice = fees.gasPrice;
        step.signature = resigned.signature;
        expect(step.hash).to.equal(resigned.hash);
        expect(step.from).to.equal(wallet.address);
      }
    }
  });

  it("answers a send it cannot sign with the error the service's thread throws", async function () {
    const { wallet: _wallet, ...send } = randomSend(false);
    const bad = { ...send, privateKey: `0x${"00".repeat(32)}` };
    let here: unknown;
    try {
      signSend(bad);
    } catch (error) {
      here = error;
    }
    expect(here, "the service's thread refuses it").to.be.instanceOf(Error);
    const there = await signOffThread(bad).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((there as Error).message).to.equal((here as Error).message);
  });
});
