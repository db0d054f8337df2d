import { createRequire } from "node:module";

import { expect } from "chai";
import { Transaction, Wallet, getAddress, keccak256, type TransactionLike } from "ethers";
import type * as MicroRlp from "micro-eth-signer/core/rlp.js";

import { serviceErc20Artifact } from "../../src/chains/evm/artifacts.js";
import {
  listHeader,
  resignedTransaction,
  signTransaction,
  signWithFees,
  unsignedFields,
} from "../../src/chains/evm/write/sign-transaction.js";
import type { Fees } from "../../src/domain/fee-ladder.js";
import { rawTransactionOf } from "../../src/core/operations/stored-transactions.js";

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

  const randomBytes = (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(Math.random() * 256)));
  const random = (bits: number) => BigInt(`0x${randomBytes(Math.ceil(bits / 8)).toString("hex") || "0"}`);
  const pick = <T>(...choices: T[]): T => choices[Math.floor(Math.random() * choices.length)]!;
  const describeTransaction = (transaction: TransactionLike) =>
    JSON.stringify(transaction, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  // Keys and addresses from random bytes: Wallet.createRandom() derives a mnemonic's key, milliseconds each.
  const randomWallet = () => new Wallet(`0x${randomBytes(32).toString("hex")}`);
  const randomAddress = () => getAddress(`0x${randomBytes(20).toString("hex")}`);

  /** A transaction of the shape the launch and mint paths build, with random fields around RLP's length boundaries. */
  function randomLaunchShape(legacy: boolean): TransactionLike {
    // 0, one byte below and above 0x80 (RLP's single-byte form), 55/56 (its long-length form), and up to 6,000 bytes.
    const anyLength = () => Math.floor(Math.random() * 6001);
    const dataLength = pick(0, 1, 1, 2, 55, 56, 68, anyLength(), anyLength(), anyLength(), anyLength());
    const maxFeePerGas = pick(0n, 1n, 127n, 128n, random(40), random(256));
    return {
      type: legacy ? 0 : 2,
      chainId: pick<bigint | number>(1, 56, 97, 17000, 11155111, 560048, 1n, 2n ** 32n + 1n),
      nonce: pick(0, 1, 127, 128, 255, 256, Number(random(16)), Number(random(48))),
      gasLimit: pick(0n, 21_000n, random(24), random(64)),
      value: pick(0n, 0n, 127n, 128n, random(64), random(256)),
      data: `0x${randomBytes(dataLength).toString("hex")}`,
      to: pick(null, undefined, randomAddress(), randomAddress().toLowerCase()),
      ...(legacy
        ? { gasPrice: pick(0n, random(40), random(256)) }
        : // ethers refuses a priority fee above the fee cap, as nodes do.
          { maxFeePerGas, maxPriorityFeePerGas: pick(0n, maxFeePerGas, random(256) % (maxFeePerGas + 1n)) }),
    };
  }

  it("signs 300 random EIP-1559 and legacy transactions (deployments and calls, 0 to 6,000 bytes of data) as Wallet does", async function () {
    for (let round = 0; round < 300; round++) {
      const wallet = randomWallet();
      const transaction = randomLaunchShape(round % 2 === 1);
      // They take the field-list path, not ethers' Transaction.
      expect(unsignedFields(transaction), describeTransaction(transaction)).not.to.equal(undefined);
      const expected = await wallet.signTransaction(transaction);
      const signed = signTransaction(transaction, wallet.privateKey);
      expect(signed.raw, describeTransaction(transaction)).to.equal(expected);
      expect(signed.hash).to.equal(keccak256(expected));
    }
  });

  it("signs other shapes through ethers' Transaction, still as Wallet does: access lists, type 1, legacy without a chain id, no type", async function () {
    const accessList = [{ address: randomAddress(), storageKeys: [`0x${"00".repeat(31)}01`] }];
    const shapes: TransactionLike[] = [
      { ...randomLaunchShape(false), accessList },
      { ...randomLaunchShape(false), type: 1, gasPrice: random(40), maxFeePerGas: null, maxPriorityFeePerGas: null, accessList },
      { ...randomLaunchShape(true), chainId: 0 },
      { ...randomLaunchShape(false), type: undefined },
    ];
    for (const transaction of shapes) {
      const wallet = randomWallet();
      expect(unsignedFields(transaction), describeTransaction(transaction)).to.equal(undefined);
      expect(signTransaction(transaction, wallet.privateKey).raw, describeTransaction(transaction)).to.equal(
        await wallet.signTransaction(transaction),
      );
    }
  });

  it("refuses what ethers refuses: a priority fee above the fee cap, a bad checksum, odd-length or non-hex data, a negative value", async function () {
    const wallet = randomWallet();
    const to = randomAddress();
    const badChecksum = to.slice(0, 2) + [...to.slice(2)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
    const refused: TransactionLike[] = [
      { ...randomLaunchShape(false), maxFeePerGas: 1n, maxPriorityFeePerGas: 2n },
      { ...randomLaunchShape(false), to: badChecksum },
      { ...randomLaunchShape(true), data: "0xabc" },
      { ...randomLaunchShape(true), data: "0xzz" },
      // Whole pairs of digits, but one pair deep inside is not hex.
      { ...randomLaunchShape(true), data: `0x${"ab".repeat(2000)}g0${"cd".repeat(10)}` },
      { ...randomLaunchShape(false), value: -1n },
      { ...randomLaunchShape(false), gasLimit: 2n ** 256n },
    ];
    for (const transaction of refused) {
      const byWallet = await wallet.signTransaction(transaction).then(
        () => "signed",
        () => "refused",
      );
      expect(byWallet, describeTransaction(transaction)).to.equal("refused");
      expect(() => signTransaction(transaction, wallet.privateKey), describeTransaction(transaction)).to.throw();
    }
  });

  it("takes data in capital hex digits, or after a capital 0X, as ethers does", async function () {
    const wallet = randomWallet();
    const digits = randomBytes(300).toString("hex").toUpperCase();
    for (const data of [`0x${digits}`, `0X${digits}`]) {
      const transaction = { ...randomLaunchShape(true), data };
      expect(signTransaction(transaction, wallet.privateKey).raw, data.slice(0, 4)).to.equal(await wallet.signTransaction(transaction));
    }
  });

  it("encodes the edges of RLP as ethers does: one byte under 0x80, empty data and value, long data, r or s with a leading zero byte", async function () {
    const base = { type: 2, chainId: 1, gasLimit: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 0n } as const;
    const edges: TransactionLike[] = [
      { ...base, nonce: 0, value: 0n, data: "0x", to: "0x000000000000000000000000000000000000dEaD" },
      { ...base, nonce: 0x7f, value: 0x7fn, data: "0x01" },
      { ...base, nonce: 0x80, value: 0x80n, data: "0x80" },
      { ...base, nonce: 1, data: `0x${"00".repeat(55)}` },
      { ...base, nonce: 1, data: `0x${"00".repeat(56)}` },
      { ...base, nonce: 1, data: `0x${"ff".repeat(70_000)}` },
      { type: 0, chainId: 1, nonce: 0, gasLimit: 21_000n, gasPrice: 0n, value: 0n, data: "0x" },
    ];
    const wallet = Wallet.createRandom();
    for (const transaction of edges) {
      expect(signTransaction(transaction, wallet.privateKey).raw).to.equal(await wallet.signTransaction(transaction));
    }
    // About one signature in 128 has an r or an s under 2^248; sign until both kinds were seen and compared.
    const seen = { r: false, s: false };
    for (let nonce = 0; nonce < 5_000 && !(seen.r && seen.s); nonce++) {
      const transaction = { ...base, nonce, data: "0x" };
      const { raw } = signTransaction(transaction, wallet.privateKey);
      const { signature } = Transaction.from(raw);
      const short = { r: BigInt(signature!.r) < 1n << 248n, s: BigInt(signature!.s) < 1n << 248n };
      if (!short.r && !short.s) continue;
      expect(raw).to.equal(await wallet.signTransaction(transaction));
      seen.r ||= short.r;
      seen.s ||= short.s;
    }
    expect(seen).to.deep.equal({ r: true, s: true });
  });

  it("heads a list as micro-eth-signer's RLP does, on both sides of each length form (55/56 bytes, 1 to 3 length bytes)", function () {
    const { RLP } = createRequire(import.meta.url)("micro-eth-signer/core/rlp.js") as typeof MicroRlp;
    for (const length of [0, 1, 54, 55, 56, 57, 255, 256, 257, 65_535, 65_536]) {
      // `length` items of one byte under 0x80, each its own encoding: a payload of `length` bytes.
      const encoded = RLP.encode(Array.from({ length }, () => Uint8Array.of(0x01)));
      expect(Buffer.from(listHeader(length)).toString("hex"), `a list of ${length} bytes`).to.equal(
        Buffer.from(encoded.subarray(0, encoded.length - length)).toString("hex"),
      );
    }
  });

  const feeFields = (fees: Fees) =>
    fees.type === 2 ? { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas } : { gasPrice: fees.gasPrice };
  const randomFees = (legacy: boolean): Fees => {
    const maxFeePerGas = pick(1n, 128n, random(40), random(64));
    return legacy
      ? { type: 0, gasPrice: pick(1n, random(40), random(64)) }
      : { type: 2, maxFeePerGas, maxPriorityFeePerGas: random(64) % (maxFeePerGas + 1n) };
  };

  it("signs a fee ladder ahead as Wallet signs each step; each step is rebuilt byte for byte from the first's raw form and its signature", async function () {
    for (let round = 0; round < 60; round++) {
      const wallet = randomWallet();
      const legacy = round % 2 === 1;
      const first = randomLaunchShape(legacy);
      const firstRaw = signTransaction(first, wallet.privateKey).raw;
      const steps = Array.from({ length: 4 }, () => randomFees(legacy));
      const resigned = signWithFees(first, steps, wallet.privateKey);
      for (const [index, fees] of steps.entries()) {
        const expected = await wallet.signTransaction({ ...first, ...feeFields(fees) });
        expect(resigned[index]!.hash, describeTransaction(first)).to.equal(keccak256(expected));
        expect(resigned[index]!.signature).to.match(/^0x[0-9a-f]{130}$/);
        const rebuilt = resignedTransaction(firstRaw, fees, resigned[index]!.signature);
        expect(rebuilt.raw, describeTransaction(first)).to.equal(expected);
        expect(rebuilt.hash).to.equal(keccak256(expected));
      }
    }
  });

  it("signs a ladder of another shape (an access list) through ethers, as Wallet does", async function () {
    const wallet = randomWallet();
    const first = { ...randomLaunchShape(false), accessList: [{ address: randomAddress(), storageKeys: [] }] };
    const steps = [randomFees(false), randomFees(false)];
    const resigned = signWithFees(first, steps, wallet.privateKey);
    const firstRaw = await wallet.signTransaction(first);
    for (const [index, fees] of steps.entries()) {
      const expected = await wallet.signTransaction({ ...first, ...feeFields(fees) });
      expect(resigned[index]!.hash).to.equal(keccak256(expected));
      expect(resignedTransaction(firstRaw, fees, resigned[index]!.signature).raw).to.equal(expected);
    }
  });

  it("never hands out a step whose stored signature does not rebuild its hash", async function () {
    const wallet = randomWallet();
    const first = cases[0]![1];
    const firstRaw = signTransaction(first, wallet.privateKey).raw;
    const fees: Fees = { type: 2, maxFeePerGas: 9n * 10n ** 9n, maxPriorityFeePerGas: 2n * 10n ** 9n };
    const [step] = signWithFees(first, [fees], wallet.privateKey);
    const stored = {
      transactionHash: step!.hash,
      maxFeePerGas: String(fees.maxFeePerGas),
      maxPriorityFeePerGas: String(fees.maxPriorityFeePerGas),
      gasPrice: null,
    };
    const raw = rawTransactionOf(firstRaw, stored, { rawTransaction: null, signature: step!.signature });
    expect(raw).to.equal(await wallet.signTransaction({ ...first, ...feeFields(fees) }));
    // Another step's fees with this signature, or another signature: a transaction of another hash (or none) is refused.
    expect(() =>
      rawTransactionOf(firstRaw, { ...stored, maxFeePerGas: "10000000000" }, { rawTransaction: null, signature: step!.signature }),
    ).to.throw(/rebuilds/);
    const other = signWithFees(first, [{ ...fees, maxFeePerGas: fees.maxFeePerGas + 1n }], wallet.privateKey)[0]!.signature;
    expect(() => rawTransactionOf(firstRaw, stored, { rawTransaction: null, signature: other })).to.throw(/rebuilds/);
    // The first transaction is the record's own; one stored whole is itself.
    expect(rawTransactionOf(firstRaw, stored, { rawTransaction: null, signature: null })).to.equal(firstRaw);
    expect(rawTransactionOf(null, stored, { rawTransaction: "0x02ee", signature: null })).to.equal("0x02ee");
    expect(() => rawTransactionOf(null, stored, { rawTransaction: null, signature: step!.signature })).to.throw(/not kept/);
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
