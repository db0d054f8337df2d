import { expect } from "chai";

import { TRANSACTION_GAS_CAP, gasLimitFor } from "../../src/chains/evm/write/estimates.js";

describe("a transaction's gas limit: the estimate with 20 % headroom, kept within EIP-7825's cap", function () {
  it("adds 20 % to an estimate far below the cap", function () {
    expect(gasLimitFor(100_000n)).to.equal(120_000n);
  });

  it("stops the headroom at 16,777,216 for an estimate within the cap (a node enforcing the cap never mines more)", function () {
    expect(TRANSACTION_GAS_CAP).to.equal(2n ** 24n);
    expect(gasLimitFor(15_000_000n)).to.equal(TRANSACTION_GAS_CAP);
    expect(gasLimitFor(TRANSACTION_GAS_CAP)).to.equal(TRANSACTION_GAS_CAP);
    expect(gasLimitFor(13_981_013n)).to.equal(16_777_215n);
  });

  it("keeps the headroom for an estimate beyond the cap (a chain without it)", function () {
    expect(gasLimitFor(20_000_000n)).to.equal(24_000_000n);
  });
});
