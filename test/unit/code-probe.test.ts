import { expect } from "chai";
import { FunctionFragment, Interface } from "ethers";

import { serviceErc20Artifact, serviceErc721Artifact, variantArtifact } from "../../src/chains/evm/artifacts.js";
import { functionsInCode } from "../../src/chains/evm/read/code-probe.js";
import { allVariants, variantName } from "../../src/domain/token-options.js";

// The code probe decides NOT_SUPPORTED_BY_TOKEN before a burn, pause or ownership transfer is signed, and a mint's form
// and batch: it must find every function a shipped token has, and none it lacks. A contract's creation code holds its
// runtime code whole.

const CALLED = [
  "burn(uint256)",
  "burn(address,uint256,uint256)",
  "pause()",
  "unpause()",
  "transferOwnership(address)",
  "grantRole(bytes32,address)",
  // A mint's form and a batch mint (BATCH_MINT_UNSUPPORTED, TOKEN_URI_UNSUPPORTED) are decided by the probe too.
  "mint(address,string)",
  "mintWithId(address,uint256)",
  "mintWithId(address,uint256,string)",
  "airdrop(address[],uint256[])",
  "airdrop(address[])",
  "airdrop(address[],string[])",
  "airdropWithIds(address[],uint256[])",
  "airdropWithIds(address[],uint256[],string[])",
  "airdrop(address[],uint256[],uint256[],bytes)",
];

describe("code probe: the functions a token's code dispatches", function () {
  const shipped = [
    ...allVariants().map((variant) => variantArtifact(variant.kind, variantName(variant))),
    serviceErc20Artifact,
    serviceErc721Artifact,
  ];

  it(`finds every function of each of the ${shipped.length} shipped tokens, and none of the called ones they lack`, function () {
    for (const artifact of shipped) {
      const abi = new Interface(artifact.abi);
      const own = abi.fragments.filter((fragment): fragment is FunctionFragment => fragment instanceof FunctionFragment);
      const probe = functionsInCode(artifact.bytecode);
      for (const fragment of own)
        expect(probe.has(fragment.format("sighash")), `${artifact.contractName} ${fragment.format()}`).to.equal(true);
      const signatures = new Set(own.map((fragment) => fragment.format("sighash")));
      for (const signature of CALLED) {
        expect(probe.has(signature), `${artifact.contractName} ${signature}`).to.equal(signatures.has(signature));
      }
    }
  });

  it("finds a selector with leading zero bytes, pushed shorter (PUSH3)", function () {
    // ERC1155's balanceOf(address,uint256) is 0x00fdd58e: solc pushes it as PUSH3 0xfdd58e.
    const probe = functionsInCode("0x62fdd58e1400");
    expect(probe.has("balanceOf(address,uint256)")).to.equal(true);
    expect(probe.has("pause()")).to.equal(false);
  });

  it("reads neither push data nor the compiler's metadata as code, and cannot tell for code that delegates", function () {
    // PUSH32 whose data holds pause()'s selector (0x8456cb59) is no dispatch of it.
    expect(functionsInCode(`0x7f8456cb59${"00".repeat(28)}00`).has("pause()")).to.equal(false);
    // A DELEGATECALL (0xf4) inside the compiler's CBOR metadata ({"solc": 0xf4f4f4}, then its length) is data, wherever
    // the metadata stands; in the code, it may forward any call.
    const metadata = "a164736f6c6343f4f4f4000a";
    expect(functionsInCode(`0x00fe${metadata}`).has("pause()")).to.equal(false);
    expect(functionsInCode(`0x00fe${metadata}f4f4`).has("pause()")).to.equal(undefined);
    expect(functionsInCode(`0x00fe${metadata}${"ab".repeat(32)}`).has("pause()")).to.equal(false);
    expect(functionsInCode("0x5af4").has("pause()")).to.equal(undefined);
  });
});
