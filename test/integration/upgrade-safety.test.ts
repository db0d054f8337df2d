import { expect } from "chai";

import { FirstUseCompiler, firstUseInput } from "../../src/chains/evm/variants/first-use-compiler.js";
import { upgradeSafetyReasons, type UpgradeContract } from "../../src/chains/evm/variants/upgrade-safety.js";
import { variantPath } from "../../src/chains/evm/variants/variant-source.js";
import { verificationBundle } from "../../src/chains/evm/verification/verification-input.js";
import { variantName, type Variant } from "../../src/domain/token-options.js";

// OpenZeppelin's upgrade checks as the upgrade write runs them (variants/upgrade-safety.ts), with the service's solc.
// No pair of the service's variants is unsafe (OpenZeppelin 5's bases keep their state in ERC-7201 namespaces, and
// the variants' own plain variables are the same for every option of a kind), so unsafe upgrades are shown with
// hand-made contract pairs, compiled here through the same function; the variants' pairs are shown safe.

const compiler = new FirstUseCompiler();
const compile = (input: Parameters<FirstUseCompiler["solcOutput"]>[0]) => compiler.solcOutput(input);

/** A hand-made contract, compiled with the settings the variants are compiled with. */
function handMade(contractName: string, body: string): UpgradeContract {
  const unit = `${contractName}.sol`;
  return {
    unit,
    contractName,
    input: {
      language: "Solidity",
      sources: {
        [unit]: { content: `// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n\ncontract ${contractName} {\n${body}\n}\n` },
      },
      settings: { ...verificationBundle().variants.settings },
    },
  };
}

const variant = (value: Variant): UpgradeContract => ({
  input: firstUseInput(value),
  unit: variantPath(value),
  contractName: variantName(value),
});

describe("upgrade safety (upgrades-core, as the upgrade write runs it)", function () {
  this.timeout(600_000);

  it("finds a storage layout change unsafe, in upgrades-core's words", async function () {
    const before = handMade(
      "BoxV1",
      "    uint256 public value;\n    address public keeper;\n    function upgradeToAndCall(address, bytes memory) public payable {}",
    );
    const after = handMade(
      "BoxV2",
      "    address public keeper;\n    uint256 public value;\n    function upgradeToAndCall(address, bytes memory) public payable {}",
    );
    const reasons = await upgradeSafetyReasons(before, after, "transparent", compile);
    expect(reasons.length, reasons.join("\n")).to.be.greaterThan(0);
    expect(reasons.join("\n"))
      .to.match(/value|keeper/)
      .and.to.match(/Deleted|Inserted|Renamed|Upgraded/);
  });

  it("finds unsafe code in the new implementation (selfdestruct, a constructor setting state)", async function () {
    const before = handMade("SafeV1", "    uint256 public value;");
    const after = handMade(
      "UnsafeV2",
      "    uint256 public value;\n    constructor() { value = 1; }\n    function destroy() public { selfdestruct(payable(msg.sender)); }",
    );
    const reasons = await upgradeSafetyReasons(before, after, "transparent", compile);
    expect(reasons.join("\n")).to.include("has a constructor").and.to.include("selfdestruct");
  });

  it("finds a UUPS implementation without upgradeToAndCall unsafe", async function () {
    const before = handMade("UupsV1", "    uint256 public value;\n    function upgradeToAndCall(address, bytes memory) public payable {}");
    const after = handMade("UupsV2", "    uint256 public value;");
    const reasons = await upgradeSafetyReasons(before, after, "uups", compile);
    expect(reasons.join("\n")).to.include("upgradeToAndCall");
  });

  it("finds the service's variants safe to upgrade between (namespaced storage included)", async function () {
    const before = { kind: "ERC721", features: ["burnable"], access: "roles", upgradeable: "uups" } as const;
    const after = { kind: "ERC721", features: ["burnable", "pausable", "enumerable"], access: "roles", upgradeable: "uups" } as const;
    expect(await upgradeSafetyReasons(variant(before), variant(after), "uups", compile)).to.deep.equal([]);
  });
});
