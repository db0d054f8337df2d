import { expect } from "chai";

import type { EvmChain } from "../../src/chains/evm/chain.js";
import { calldataGas, knownGas, learnGas } from "../../src/chains/evm/write/gas-shapes.js";

// Only what gas-shapes reads of a chain: whether it is simulated and its rollup family (the learnt gas is kept per chain object).
const chainOf = (simulated: boolean, rollup?: "arbitrum" | "op-stack") => ({ simulated, info: { rollup } }) as unknown as EvmChain;

const LEARNT_FROM = `0x${"00".repeat(40)}${"ff".repeat(24)}`;
/** The same length, 8 zero bytes turned non-zero: EIP-2028 prices that 8 × 12 gas more. */
const MORE_CALLDATA = `0x${"00".repeat(32)}${"ff".repeat(32)}`;
/** The same length, 8 non-zero bytes turned zero. */
const LESS_CALLDATA = `0x${"00".repeat(48)}${"ff".repeat(16)}`;

describe("gas learnt per shape (gas-shapes.ts)", function () {
  const at = 1_000_000;

  it("on the simulated chain: the learnt gas plus or minus the calldata's difference at EIP-2028 prices", function () {
    const chain = chainOf(true);
    learnGas(chain, "shape", LEARNT_FROM, 100_000n, at);
    expect(calldataGas(MORE_CALLDATA) - calldataGas(LEARNT_FROM)).to.equal(96n);
    expect(knownGas(chain, "shape", LEARNT_FROM, at)).to.equal(100_000n);
    expect(knownGas(chain, "shape", MORE_CALLDATA, at)).to.equal(100_096n);
    expect(knownGas(chain, "shape", LESS_CALLDATA, at)).to.equal(99_904n);
  });

  it("on a live network: more calldata at EIP-7623's floor prices (2.5 times), less never below the node's estimate", function () {
    const chain = chainOf(false);
    learnGas(chain, "shape", LEARNT_FROM, 100_000n, at);
    expect(knownGas(chain, "shape", MORE_CALLDATA, at)).to.equal(100_240n);
    expect(knownGas(chain, "shape", LESS_CALLDATA, at)).to.equal(100_000n);
  });

  it("only for data as long as the data it was learnt from, on the chain it was learnt on", function () {
    const chain = chainOf(false);
    learnGas(chain, "shape", LEARNT_FROM, 100_000n, at);
    expect(knownGas(chain, "shape", `${LEARNT_FROM}ff`, at)).to.equal(undefined);
    expect(knownGas(chain, "another shape", LEARNT_FROM, at)).to.equal(undefined);
    expect(knownGas(chainOf(false), "shape", LEARNT_FROM, at)).to.equal(undefined);
  });

  it("never on a live Arbitrum chain, whose estimate includes the L1 cost of its calldata at the moment's L1 price", function () {
    for (const [chain, reused] of [
      [chainOf(false, "arbitrum"), undefined],
      [chainOf(true, "arbitrum"), 100_000n],
      [chainOf(false, "op-stack"), 100_000n],
    ] as const) {
      learnGas(chain, "shape", LEARNT_FROM, 100_000n, at);
      expect(knownGas(chain, "shape", LEARNT_FROM, at)).to.equal(reused);
    }
  });

  it("asks the node again after a minute on a live network, after ten on the simulated chain", function () {
    const [live, simulated] = [chainOf(false), chainOf(true)];
    learnGas(live, "shape", LEARNT_FROM, 100_000n, at);
    learnGas(simulated, "shape", LEARNT_FROM, 100_000n, at);
    expect(knownGas(live, "shape", LEARNT_FROM, at + 60_000)).to.equal(100_000n);
    expect(knownGas(live, "shape", LEARNT_FROM, at + 60_001)).to.equal(undefined);
    expect(knownGas(simulated, "shape", LEARNT_FROM, at + 600_000)).to.equal(100_000n);
    expect(knownGas(simulated, "shape", LEARNT_FROM, at + 600_001)).to.equal(undefined);
  });
});
