import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";

import { cleanEnvironment, runHardhat } from "./helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "..");

describe("README: the programmatic snippet runs as written with `npx hardhat run --no-compile`, offline", function () {
  it("launches 1,000 GLD and prints the balance", async function () {
    const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
    const snippet = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((match) => match[1]!)
      .find((code) => code.includes("createTokenService"));
    expect(snippet, "the README's programmatic snippet").to.be.a("string");
    // The one change: this repository imports the package from its sources, as an installed project imports it from npm.
    const script = snippet!.replace('"hardhat-token-service/api"', '"../src/api.js"');
    const directory = path.join(ROOT, "scratch");
    const file = path.join(directory, `readme-snippet-${process.pid}.ts`);
    await mkdir(directory, { recursive: true });
    await writeFile(file, script);
    try {
      const result = await runHardhat(["run", "--no-compile", path.relative(ROOT, file)], { cwd: ROOT, env: cleanEnvironment({}) });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.include("GLD").and.to.include("'1000000000000000000000'").and.to.include("uiBalance: '1000'");
    } finally {
      await rm(file, { force: true });
    }
  });
});
