import { expect } from "chai";

import { isTokenServiceError } from "../../src/domain/errors.js";
import { MAX_BASE_FEE_PER_GAS, parseChainFault } from "../../src/domain/faults.js";

/** The refusal's field and message, or a failure when the request was taken. */
function refusal(raw: unknown): { field: string | undefined; message: string } {
  try {
    parseChainFault(raw);
  } catch (error) {
    if (!isTokenServiceError(error, "INVALID_ARGUMENT")) throw error;
    return { field: error.field, message: error.message };
  }
  throw new Error(`taken: ${JSON.stringify(raw)}`);
}

describe("fault requests: a fee spike's base fee", function () {
  const spike = (baseFeePerGas: unknown) => ({ fault: "fee-spike", blocks: 2, baseFeePerGas });

  it("takes a decimal string of wei up to the ceiling, leading zeros and all", function () {
    expect(parseChainFault(spike("50000000000"))).to.deep.equal({ fault: "fee-spike", blocks: 2, baseFeePerGas: 50_000_000_000n });
    expect(parseChainFault(spike("000050"))).to.deep.include({ baseFeePerGas: 50n });
    expect(parseChainFault(spike(String(MAX_BASE_FEE_PER_GAS)))).to.deep.include({ baseFeePerGas: MAX_BASE_FEE_PER_GAS });
  });

  it("refuses what is not a decimal string as such, naming the field", function () {
    for (const value of [50, "5e10", "-1", " 50", "0x10", "", "1.5"]) {
      const { field, message } = refusal(spike(value));
      expect(field).to.equal("baseFeePerGas");
      expect(message, String(value)).to.match(/must be a decimal string of wei/);
    }
  });

  it("refuses a decimal string out of range as out of range, however many digits it has, without quoting a long one", function () {
    const max = String(MAX_BASE_FEE_PER_GAS);
    expect(refusal(spike("0")).message).to.equal(`baseFeePerGas must be from 1 to ${max} wei (got 0)`);
    const over = String(MAX_BASE_FEE_PER_GAS + 1n);
    expect(refusal(spike(over)).message).to.equal(`baseFeePerGas must be from 1 to ${max} wei (got ${over})`);
    expect(refusal(spike(`${max}0`)).message).to.equal(`baseFeePerGas must be from 1 to ${max} wei (got a number of 17 digits)`);
    const uint256Max = (2n ** 256n - 1n).toString();
    expect(refusal(spike(uint256Max)).message).to.equal(`baseFeePerGas must be from 1 to ${max} wei (got a number of 78 digits)`);
    const long = "9".repeat(60_000);
    const { field, message } = refusal(spike(long));
    expect(field).to.equal("baseFeePerGas");
    expect(message).to.equal(`baseFeePerGas must be from 1 to ${max} wei (got a number of 60000 digits)`);
  });
});
