import { expect } from "chai";

import {
  amountWarnings,
  belowOneGwei,
  belowOneToken,
  echoAmounts,
  recordedSupplyEcho,
  supplyEcho,
  withWarnings,
} from "../../src/domain/amount-echo.js";

describe("amount echo: amounts say what they are", function () {
  it("echoes an 18-decimal launch's initial supply of 1000 as 10^-15 tokens, with a warning naming token.initialSupply", function () {
    const echo = supplyEcho(1000n, undefined, 18, "GLD");
    expect(echo).to.deep.include({ initialSupply: "1000", uiInitialSupply: "0.000000000000001", decimals: 18 });
    expect(echo).not.to.have.property("totalSupply");
    expect(echo.warnings).to.have.length(1);
    expect(echo.warnings![0]).to.include({ code: "AMOUNT_BELOW_ONE_TOKEN", field: "token.initialSupply" });
    expect(echo.warnings![0]!.message).to.include("0.000000000000001 GLD").and.include("18 decimals");
  });

  it("leaves warnings out when there is none: whole tokens, zero, a token without decimals", function () {
    expect(supplyEcho(10n ** 21n, 10n ** 24n, 18)).to.deep.equal({
      initialSupply: "1000000000000000000000",
      uiInitialSupply: "1000",
      totalSupply: "1000000000000000000000000",
      uiTotalSupply: "1000000",
      decimals: 18,
    });
    expect(supplyEcho(0n, undefined, 18)).not.to.have.property("warnings");
    expect(supplyEcho(5n, undefined, 0)).not.to.have.property("warnings");
    expect(withWarnings({ a: 1 }, [undefined])).to.deep.equal({ a: 1 });
  });

  it("warns of a cap below one token, and of a fraction of a token but never of one whole token or more", function () {
    expect(supplyEcho(0n, 999n, 3).warnings?.map((warning) => warning.field)).to.deep.equal(["token.totalSupply"]);
    expect(belowOneToken(10n ** 18n - 1n, 18, "amount")?.code).to.equal("AMOUNT_BELOW_ONE_TOKEN");
    expect(belowOneToken(10n ** 18n, 18, "amount")).to.equal(undefined);
    expect(belowOneToken(0n, 18, "amount")).to.equal(undefined);
  });

  it("warns of a native amount below 1 gwei: the faucet's 5 is 5 wei", function () {
    const warning = belowOneGwei(5n, 18, "amount", "ETH");
    expect(warning).to.include({ code: "AMOUNT_BELOW_ONE_GWEI", field: "amount" });
    expect(warning!.message).to.include("0.000000000000000005 ETH");
    expect(belowOneGwei(10n ** 9n, 18, "amount")).to.equal(undefined);
    expect(belowOneGwei(10n ** 9n - 1n, 18, "amount")).not.to.equal(undefined);
    expect(belowOneGwei(0n, 18, "amount")).to.equal(undefined);
  });

  it("puts uiAmount beside each amount that has decimals, a batch's recipients too, and counts as they are", function () {
    expect(echoAmounts({ amount: "1500000000000000000", decimals: 18 })).to.deep.equal({
      amount: "1500000000000000000",
      uiAmount: "1.5",
      decimals: 18,
    });
    expect(echoAmounts({ recipients: [{ to: "0x1", amount: "250" }], decimals: 2 })).to.deep.equal({
      recipients: [{ to: "0x1", amount: "250", uiAmount: "2.5" }],
      decimals: 2,
    });
    expect(echoAmounts({ amount: "30" }), "an ERC1155 count has no decimals").to.deep.equal({ amount: "30" });
  });

  it("finds a write's warnings from its fields: ERC20 below one token, NATIVE below 1 gwei, nothing for counts", function () {
    expect(amountWarnings("ERC20", { amount: "5", decimals: 18 }).map((warning) => warning.code)).to.deep.equal(["AMOUNT_BELOW_ONE_TOKEN"]);
    expect(amountWarnings("ERC20", { recipients: [{ amount: "10" }, { amount: "1000000000000000000" }], decimals: 18 })).to.have.length(1);
    expect(amountWarnings("ERC20", { recipients: [{ amount: "10" }], decimals: 18 })[0]!.field).to.equal("recipients[0].amount");
    expect(amountWarnings("NATIVE", { amount: "5", decimals: 18 }, "ETH")[0]!.code).to.equal("AMOUNT_BELOW_ONE_GWEI");
    expect(amountWarnings("NATIVE", { amount: "100000000000000000", decimals: 18 })).to.deep.equal([]);
    expect(amountWarnings("ERC1155", { amount: "5" })).to.deep.equal([]);
    expect(amountWarnings("ERC20", { amount: "5" }), "no decimals known: no warning").to.deep.equal([]);
  });

  it("rebuilds a launch's echo from its record's token fields as the caller gave them", function () {
    expect(recordedSupplyEcho({ name: "Gold", symbol: "GLD", initialSupply: "1000" })).to.deep.equal(
      supplyEcho(1000n, undefined, 18, "GLD"),
    );
    expect(recordedSupplyEcho({ symbol: "T", decimals: "6", initialSupply: 5, totalSupply: "7000000" })).to.deep.equal(
      supplyEcho(5n, 7_000_000n, 6, "T"),
    );
    expect(recordedSupplyEcho({ initialSupply: "garbage" })).to.equal(undefined);
  });
});
