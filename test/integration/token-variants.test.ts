import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { brotliDecompressSync } from "node:zlib";

import { expect } from "chai";
import hre from "hardhat";

import { historicBuildInfo, readOpenZeppelin } from "../../scripts/build-verification.js";
import { COMPILER, compileVariants, inputHash, variantFiles, type VariantFile } from "../../scripts/token-variants.js";
import { verificationBundle } from "../../scripts/verification-bundle.js";
import { firstUseSources } from "../../scripts/first-use-sources.js";
import { fromPush2Relative, PUSH2_RELATIVE } from "../../src/chains/evm/push2-relative.js";
import { allVariants, variantName } from "../../src/domain/token-options.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface Bundle {
  inputHash: string;
  compiler: typeof COMPILER;
  bytecodeEncoding: string;
  contracts: Record<string, { abi: unknown[]; bytecode: string }>;
}

/** A kind's bundle as shipped, its bytecode turned back into what deploys (src/chains/evm/push2-relative.ts). */
async function shippedBundle(kind: string): Promise<Bundle> {
  const bundle: Bundle = JSON.parse(
    brotliDecompressSync(await readFile(path.join(ROOT, "src/artifacts/variants", `${kind}.json.br`))).toString("utf8"),
  );
  expect(bundle.bytecodeEncoding, `${kind}.json.br`).to.equal(PUSH2_RELATIVE);
  for (const contract of Object.values(bundle.contracts)) contract.bytecode = fromPush2Relative(contract.bytecode);
  return bundle;
}

describe("token variants (token-variants/, src/artifacts/variants/)", function () {
  const files = variantFiles();

  it("are every combination of each kind's options with each access: 128 ERC20, 64 ERC721, 32 ERC1155, all names distinct", function () {
    const counts = Object.fromEntries(
      ["ERC20", "ERC721", "ERC1155"].map((kind) => [kind, files.filter((file) => file.kind === kind).length]),
    );
    expect(counts).to.deep.equal({ ERC20: 128, ERC721: 64, ERC1155: 32 });
    expect(new Set(allVariants().map(variantName)).size).to.equal(224);
  });

  it("the committed sources are exactly the generator's output (npm run build:contracts), no file more", async function () {
    const committed = (await readdir(path.join(ROOT, "token-variants"), { recursive: true }))
      .filter((file) => file.endsWith(".sol"))
      .map((file) => `token-variants/${file.split(path.sep).join("/")}`)
      .sort();
    expect(committed).to.deep.equal(files.map((file) => file.path).sort());
    for (const file of files) {
      expect(await readFile(path.join(ROOT, file.path), "utf8"), `${file.path} is stale: run npm run build:contracts`).to.equal(
        file.source,
      );
    }
  });

  it("compile with the project's compiler settings (hardhat.config.ts)", function () {
    const [compiler] = hre.config.solidity.profiles.default!.compilers;
    expect(compiler!.version).to.equal(COMPILER.solc);
    expect(compiler!.settings.evmVersion).to.equal(COMPILER.settings.evmVersion);
    expect(compiler!.settings.optimizer).to.deep.equal(COMPILER.settings.optimizer);
  });

  it("the shipped verification sources are exactly build-verification's output from these sources and this build", async function () {
    await hre.tasks.getTask("build").run({ quiet: true });
    const shipped = JSON.parse(
      brotliDecompressSync(await readFile(path.join(ROOT, "src/artifacts/verification.json.br"))).toString("utf8"),
    );
    const expected = verificationBundle(await historicBuildInfo(), variantFiles(), readOpenZeppelin);
    expect(shipped, "src/artifacts/verification.json.br is stale: run npm run build:contracts").to.deep.equal(
      JSON.parse(JSON.stringify(expected)),
    );
  });

  it("the shipped first-use sources are exactly what the first-use variants import beyond the verification sources", async function () {
    const shipped = JSON.parse(
      brotliDecompressSync(await readFile(path.join(ROOT, "src/artifacts/verification.json.br"))).toString("utf8"),
    ) as { variants: { sources: Record<string, string> }; firstUse: unknown };
    const expected = firstUseSources(shipped.variants.sources, readOpenZeppelin);
    expect(shipped.firstUse, "src/artifacts/verification.json.br is stale: run npm run build:contracts").to.deep.equal(expected);
    expect(Object.keys(expected.sources)).to.include("@openzeppelin/contracts/token/ERC721/extensions/ERC721Votes.sol");
  });

  it("each kind's shipped bundle was compiled from these sources, this compiler and this OpenZeppelin, and holds every variant", async function () {
    for (const kind of ["ERC20", "ERC721", "ERC1155"]) {
      const ofKind = files.filter((file) => file.kind === kind);
      const bundle = await shippedBundle(kind.toLowerCase());
      expect(bundle.inputHash, `src/artifacts/variants/${kind.toLowerCase()}.json.br is stale: run npm run build:contracts`).to.equal(
        inputHash(ofKind),
      );
      expect(Object.keys(bundle.contracts).sort()).to.deep.equal(ofKind.map((file) => file.name).sort());
    }
  });

  it("a sample recompiled now (the full and the bare variant of each kind) has exactly the shipped ABI and bytecode", async function () {
    this.timeout(600_000);
    const sample: VariantFile[] = [];
    for (const kind of ["ERC20", "ERC721", "ERC1155"] as const) {
      const ofKind = files.filter((file) => file.kind === kind);
      sample.push(ofKind.find((file) => file.name === `Service${kind}Roles`)!);
      sample.push(ofKind.reduce((longest, file) => (file.name.length > longest.name.length ? file : longest)));
    }
    const compiled = compileVariants(sample);
    for (const file of sample) {
      const shipped = (await shippedBundle(file.kind.toLowerCase())).contracts[file.name]!;
      expect(compiled[file.name]!.bytecode, `${file.name} bytecode`).to.equal(shipped.bytecode);
      expect(compiled[file.name]!.abi, `${file.name} ABI`).to.deep.equal(shipped.abi);
    }
  });
});
