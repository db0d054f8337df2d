import { expect } from "chai";

import {
  DEFAULT_CEILING_MULTIPLE,
  LADDER_STEPS,
  bumped,
  ceilingOf,
  feeLadder,
  formatGwei,
  isReplacementOf,
  maxFeeOf,
  nextStep,
  parseGwei,
  replacementFees,
  tipOf,
  type Fees,
} from "../../src/domain/fee-ladder.js";

const GWEI = 1_000_000_000n;
const first: Fees & { type: 2 } = { type: 2, maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI };

describe("the fee ladder: replacements signed ahead, up to a ceiling", function () {
  it("raises every fee by at least 12.5 % a step, from the first fees to the ceiling, the top step kept for the cancel", function () {
    const ceiling = ceilingOf(first, undefined);
    expect(ceiling).to.equal(3n * GWEI * DEFAULT_CEILING_MULTIPLE);
    const { replacements, cancel } = feeLadder(first, ceiling);
    expect(replacements.map((step) => step.rung)).to.deep.equal([1, 2, 3, 4]);
    expect(cancel?.rung).to.equal(LADDER_STEPS);
    expect(maxFeeOf(cancel!.fees), "the cancel is at the ceiling").to.equal(ceiling);
    let below: Fees = first;
    for (const step of [...replacements, cancel!]) {
      expect(isReplacementOf(step.fees, below), `step ${step.rung} replaces the one below`).to.equal(true);
      expect(tipOf(step.fees) <= maxFeeOf(step.fees)).to.equal(true);
      below = step.fees;
    }
    // The default ceiling lets replacements reach at least 5 times the first max fee.
    expect(maxFeeOf(replacements.at(-1)!.fees) >= 5n * maxFeeOf(first)).to.equal(true);
  });

  it("has as many steps as a configured ceiling leaves room for, and none when even one bump passes it", function () {
    const twice = feeLadder(first, 6n * GWEI);
    expect(twice.replacements.length + 1).to.equal(5);
    const narrow = feeLadder(first, (first.maxFeePerGas * 12n) / 10n);
    expect(narrow.replacements).to.deep.equal([]);
    expect(maxFeeOf(narrow.cancel!.fees)).to.equal((first.maxFeePerGas * 12n) / 10n);
    expect(feeLadder(first, first.maxFeePerGas + 1n)).to.deep.equal({ replacements: [], cancel: undefined });
    expect(feeLadder({ type: 0, gasPrice: 0n }, 10n * GWEI).cancel, "a zero fee cannot be raised in proportion").to.equal(undefined);
  });

  it("keeps a legacy transaction's type: one price, raised the same way", function () {
    const legacy: Fees = { type: 0, gasPrice: 2n * GWEI };
    const { replacements, cancel } = feeLadder(legacy, 20n * GWEI);
    for (const step of replacements) expect(step.fees.type).to.equal(0);
    expect(cancel!.fees).to.deep.equal({ type: 0, gasPrice: 20n * GWEI });
  });

  it("picks the lowest step above the one sent that pays what the node asks, else the highest", function () {
    const { replacements } = feeLadder(first, 24n * GWEI);
    const asks = (maxFee: bigint): Fees => ({ type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: GWEI });
    expect(nextStep(replacements, 0, undefined)?.rung).to.equal(1);
    expect(nextStep(replacements, 0, asks(maxFeeOf(replacements[1]!.fees)))?.rung).to.equal(2);
    expect(nextStep(replacements, 1, asks(1000n * GWEI))?.rung).to.equal(4);
    expect(nextStep(replacements, 4, undefined)).to.equal(undefined);
  });

  it("prices a replacement signed now: the minimum bump, raised to what the node asks, held at the ceiling", function () {
    expect(replacementFees(first, undefined, 100n * GWEI)).to.deep.equal(bumped(first));
    const asked: Fees = { type: 2, maxFeePerGas: 7n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(replacementFees(first, asked, 100n * GWEI)).to.deep.equal(asked);
    expect(replacementFees(first, asked, 5n * GWEI)).to.deep.equal({ type: 2, maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    expect(replacementFees(first, asked, 3n * GWEI), "not even the bump fits").to.equal(undefined);
  });

  it("reads and writes gwei as people type them", function () {
    expect(parseGwei("30")).to.equal(30n * GWEI);
    expect(parseGwei("0.05")).to.equal(50_000_000n);
    expect(parseGwei("1.5e9")).to.equal(undefined);
    expect(parseGwei("-1")).to.equal(undefined);
    expect(formatGwei(50_000_000n)).to.equal("0.05");
    expect(formatGwei(24n * GWEI)).to.equal("24");
  });
});
