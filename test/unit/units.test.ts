import { expect } from "chai";

import { ErrorCode } from "../../src/domain/errors.js";
import { MAX_UINT256, parseDecimalUnits, parseUint256 } from "../../src/domain/units.js";
import { expectServiceError } from "../helpers/errors.js";

describe("units: amounts a person types, in whole units", function () {
  it("turns whole and decimal amounts into smallest units at the given decimals, exactly", function () {
    expect(parseDecimalUnits("5", 18, "amount")).to.equal(5n * 10n ** 18n);
    expect(parseDecimalUnits("0.25", 18, "amount")).to.equal(25n * 10n ** 16n);
    expect(parseDecimalUnits("123.45", 2, "initialSupply")).to.equal(12345n);
    expect(parseDecimalUnits(" 2.5 ", 8, "amount")).to.equal(250_000_000n);
    expect(parseDecimalUnits("1.500", 1, "amount"), "trailing zeros beyond the decimals are fine").to.equal(15n);
    expect(parseDecimalUnits("0", 0, "amount")).to.equal(0n);
  });

  it("refuses what is not a plain non-negative decimal, more places than the token has, and past uint256, naming the field", async function () {
    for (const bad of ["", "-1", "1e18", "1,5", "0x10", "1.", ".5", "five"]) {
      const error = await expectServiceError(() => parseDecimalUnits(bad, 18, "amount"), ErrorCode.INVALID_ARGUMENT, "amount");
      expect(error.message).to.include("whole units");
    }
    const places = await expectServiceError(() => parseDecimalUnits("0.001", 2, "totalSupply"), ErrorCode.INVALID_ARGUMENT, "totalSupply");
    expect(places.message).to.include("more than 2 decimal places");
    await expectServiceError(() => parseDecimalUnits((MAX_UINT256 + 1n).toString(), 0, "amount"), ErrorCode.INVALID_ARGUMENT, "amount");
  });
});

describe("units: exponent forms are refused, as they mix units", function () {
  it("refuses 1.5e18 and 1e3 typed in whole units, naming the field and the rule", async function () {
    for (const bad of ["1.5e18", "1e3", "2E-3", " 1e+3 "]) {
      const error = await expectServiceError(() => parseDecimalUnits(bad, 18, "amount"), ErrorCode.INVALID_ARGUMENT, "amount");
      expect(error.message).to.include("amount is in whole units").and.include("exponent forms").and.include("mix units");
    }
  });

  it("refuses an exponent form in smallest units too (an ERC1155 count a task passes as typed)", async function () {
    const error = await expectServiceError(() => parseUint256("1e3", "amount"), ErrorCode.INVALID_ARGUMENT, "amount");
    expect(error.message).to.include("exponent forms");
  });
});
