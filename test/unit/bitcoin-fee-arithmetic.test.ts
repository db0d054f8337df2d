import { expect } from "chai";

import { selectCoins, type SpendableOutput } from "../../src/chains/bitcoin/coin-selection.js";
import { bitcoinLibraries } from "../../src/chains/bitcoin/libraries.js";
import {
  compactSizeLength,
  dustThreshold,
  estimateVirtualSize,
  feeFor,
  feeRateOf,
  transactionWeight,
} from "../../src/chains/bitcoin/tx-size.js";
import { ErrorCode, TokenServiceError } from "../../src/domain/errors.js";

const hex = (text: string) => Buffer.from(text, "hex");
// One script of each type (BIP 173 / BIP 350 test vectors and their legacy counterparts).
const P2WPKH = hex("0014751e76e8199196d454941c45d1b3a323f1433bd6");
const P2TR = hex("512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
const P2WSH = hex("00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262");
const P2PKH = hex("76a914751e76e8199196d454941c45d1b3a323f1433bd688ac");
const P2SH = hex("a914751e76e8199196d454941c45d1b3a323f1433bd687");
const OP_RETURN = hex("6a0568656c6c6f");

describe("bitcoin fee arithmetic: sizes, fees and dust", function () {
  it("estimates the well-known sizes: 1-in 2-out p2wpkh 141 vB, 1-in 1-out p2tr 111 vB, 1-in 2-out p2pkh 226 vB", function () {
    expect(estimateVirtualSize("p2wpkh", 1, [P2WPKH, P2WPKH])).to.equal(141);
    expect(estimateVirtualSize("p2tr", 1, [P2TR])).to.equal(111);
    expect(estimateVirtualSize("p2pkh", 1, [P2PKH, P2PKH])).to.equal(226);
    // Every extra p2wpkh input adds 68 vB (272 WU), every p2wpkh output 31 vB.
    expect(transactionWeight("p2wpkh", 3, [P2WPKH]) - transactionWeight("p2wpkh", 2, [P2WPKH])).to.equal(272);
    expect(estimateVirtualSize("p2wpkh", 2, [P2WPKH, P2WPKH, P2WPKH]) - estimateVirtualSize("p2wpkh", 2, [P2WPKH, P2WPKH])).to.equal(31);
  });

  it("counts the input and output counts as CompactSize integers (1, 3, 5 or 9 bytes)", function () {
    expect([0, 252, 253, 0xffff, 0x10000, 0xffffffff, 0x100000000].map(compactSizeLength)).to.deep.equal([1, 1, 3, 3, 5, 5, 9]);
    // 253 inputs need a 3-byte count: 2 bytes (8 WU) more than 252 inputs' count.
    expect(transactionWeight("p2wpkh", 253, [P2WPKH]) - transactionWeight("p2wpkh", 252, [P2WPKH])).to.equal(272 + 8);
  });

  it("matches the signed size of a transaction bitcoinjs-lib serialises (the estimate is its upper bound)", function () {
    const { lib } = bitcoinLibraries();
    const tx = new lib.Transaction();
    tx.addInput(Buffer.alloc(32, 1), 0);
    tx.addOutput(P2WPKH, 1000n);
    tx.addOutput(P2TR, 1000n);
    // The largest p2wpkh witness: a 72-byte signature with its sighash byte, a 33-byte key.
    tx.setWitness(0, [Buffer.alloc(72, 0x30), Buffer.alloc(33, 2)]);
    expect(tx.virtualSize()).to.equal(estimateVirtualSize("p2wpkh", 1, [P2WPKH, P2TR]));
  });

  it("computes Bitcoin Core's dust thresholds at 3 sat/vB: p2wpkh 294, p2tr and p2wsh 330, p2sh 540, p2pkh 546", function () {
    expect([P2WPKH, P2TR, P2WSH, P2SH, P2PKH].map((script) => dustThreshold(script))).to.deep.equal([294n, 330n, 330n, 540n, 546n]);
    expect(dustThreshold(OP_RETURN)).to.equal(0n);
  });

  it("rounds fees up to the satoshi, keeps three decimals of sat/vB exactly, and reports the rate paid rounded down", function () {
    expect(feeFor(141, 1)).to.equal(141n);
    expect(feeFor(141, 1.5)).to.equal(212n);
    expect(feeFor(141, 0.1)).to.equal(15n);
    // 1.1 × 1000 is 1100.0000000000002 in doubles: still exactly 1100 msat/vB.
    expect(feeFor(100, 1.1)).to.equal(110n);
    expect(feeFor(1, 0.001)).to.equal(1n);
    expect(feeRateOf(212n, 141)).to.equal(1.503);
    expect(() => feeFor(100, 0)).to.throw(RangeError);
    expect(() => feeFor(100, Number.NaN)).to.throw(RangeError);
  });
});

const coin = (value: bigint, confirmations = 1, index = 0): SpendableOutput => ({
  txid: index.toString(16).padStart(64, "0"),
  vout: index,
  value,
  confirmations,
});

function coins(...values: Array<bigint | [bigint, number]>): SpendableOutput[] {
  return values.map((value, index) => (Array.isArray(value) ? coin(value[0], value[1], index + 1) : coin(value, 1, index + 1)));
}

const pay = (value: bigint) => [{ script: P2WPKH, value }];

describe("bitcoin coin selection: largest first, confirmed first", function () {
  it("spends the largest coin alone when it covers the payment, and returns change at the estimated fee", function () {
    const selection = selectCoins({
      candidates: coins(20_000_000n, 100_000_000n, 50_000_000n),
      inputType: "p2wpkh",
      payments: pay(60_000_000n),
      changeScript: P2WPKH,
      feeRate: 10,
    });
    expect(selection.inputs.map((input) => input.value)).to.deep.equal([100_000_000n]);
    expect(selection.vsize).to.equal(141);
    expect(selection.fee).to.equal(1410n);
    expect(selection.change).to.equal(100_000_000n - 60_000_000n - 1410n);
  });

  it("takes confirmed coins before a larger mempool coin, and the mempool coin only when the confirmed ones fall short", function () {
    const candidates = coins([500_000_000n, 0], 30_000_000n, 40_000_000n);
    const confirmedEnough = selectCoins({ candidates, inputType: "p2wpkh", payments: pay(60_000_000n), changeScript: P2WPKH, feeRate: 2 });
    expect(confirmedEnough.inputs.map((input) => input.value)).to.deep.equal([40_000_000n, 30_000_000n]);
    const needsMempool = selectCoins({ candidates, inputType: "p2wpkh", payments: pay(80_000_000n), changeScript: P2WPKH, feeRate: 2 });
    expect(needsMempool.inputs.map((input) => input.value)).to.deep.equal([40_000_000n, 30_000_000n, 500_000_000n]);
    expect(() =>
      selectCoins({ candidates, inputType: "p2wpkh", payments: pay(80_000_000n), changeScript: P2WPKH, feeRate: 2, minConfirmations: 1 }),
    ).to.throw(TokenServiceError);
  });

  it("adds a change below the dust threshold to the fee instead of creating it", function () {
    // 1 input, 2 outputs at 1 sat/vB: 141 sat; without change 110 sat. 100 000 − 99 600 − 141 = 259 < 294.
    const selection = selectCoins({
      candidates: coins(100_000n),
      inputType: "p2wpkh",
      payments: pay(99_600n),
      changeScript: P2WPKH,
      feeRate: 1,
    });
    expect(selection).to.deep.include({ change: 0n, fee: 400n, vsize: 110 });
    // 294 sat of change is exactly the threshold: kept.
    const kept = selectCoins({
      candidates: coins(100_000n),
      inputType: "p2wpkh",
      payments: pay(99_565n),
      changeScript: P2WPKH,
      feeRate: 1,
    });
    expect(kept).to.deep.include({ change: 294n, fee: 141n });
  });

  it("never spends a coin worth less than its own input's fee", function () {
    const error = expectInsufficient(() =>
      selectCoins({ candidates: coins(100_000n, 600n), inputType: "p2wpkh", payments: pay(99_500n), changeScript: P2WPKH, feeRate: 10 }),
    );
    // The 600-sat coin would cost 680 sat to spend at 10 sat/vB: not counted as available.
    expect(error.details).to.deep.include({ available: "100000", needed: String(99_500n + 1100n) });
  });

  it("refuses with INSUFFICIENT_FUNDS naming the amount, what is needed (amount + fee) and what is available", function () {
    const error = expectInsufficient(() =>
      selectCoins({ candidates: coins(30_000n, 20_000n), inputType: "p2wpkh", payments: pay(50_000n), changeScript: P2WPKH, feeRate: 1 }),
    );
    expect(error.field).to.equal("amount");
    // 2 inputs, 1 output: 178 vB.
    expect(error.details).to.deep.include({ available: "50000", needed: "50178", fee: "178" });
    expect(error.message).to.match(/hold 50000 sat but the send needs 50178 sat/);
    const empty = expectInsufficient(() =>
      selectCoins({
        candidates: [],
        inputType: "p2wpkh",
        payments: pay(1000n),
        changeScript: P2WPKH,
        feeRate: 1,
        shortfallField: "feeRate",
      }),
    );
    expect(empty.field).to.equal("feeRate");
    expect(empty.details).to.deep.include({ available: "0", needed: "1110" });
  });

  it("keeps the required inputs first, and pays at least the minimum fee a replacement owes", function () {
    const required = [coin(10_000n, 0, 9)];
    const selection = selectCoins({
      required,
      candidates: coins(1_000_000n),
      inputType: "p2wpkh",
      payments: pay(9_000n),
      changeScript: P2WPKH,
      feeRate: 1,
      minimumFee: (vsize) => 2_000n + BigInt(vsize),
    });
    // The required coin cannot pay 9 000 sat and a fee of over 2 000: the confirmed coin joins it.
    expect(selection.inputs.map((input) => input.value)).to.deep.equal([10_000n, 1_000_000n]);
    expect(selection).to.deep.include({ vsize: 209, fee: 2_209n });
  });

  it("on random coins and amounts, always balances: inputs = payment + fee + change, fee ≥ rate × vsize, change 0 or ≥ dust", function () {
    let seed = 7;
    const random = (limit: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % limit;
    };
    for (let round = 0; round < 500; round++) {
      const candidates = Array.from({ length: 1 + random(8) }, (_, index) => coin(BigInt(1_000 + random(5_000_000)), random(3), index));
      const amount = BigInt(294 + random(6_000_000));
      const feeRate = 1 + random(50) / 4;
      let selection;
      try {
        selection = selectCoins({ candidates, inputType: "p2wpkh", payments: pay(amount), changeScript: P2WPKH, feeRate });
      } catch (error) {
        expect((error as TokenServiceError).code).to.equal(ErrorCode.INSUFFICIENT_FUNDS);
        continue;
      }
      const total = selection.inputs.reduce((sum, input) => sum + input.value, 0n);
      expect(total).to.equal(amount + selection.fee + selection.change);
      expect(selection.fee >= feeFor(selection.vsize, feeRate)).to.equal(true);
      expect(selection.change === 0n || selection.change >= 294n).to.equal(true);
    }
  });
});

function expectInsufficient(action: () => unknown): TokenServiceError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(TokenServiceError);
    expect((error as TokenServiceError).code).to.equal(ErrorCode.INSUFFICIENT_FUNDS);
    return error as TokenServiceError;
  }
  expect.fail("no INSUFFICIENT_FUNDS");
}
