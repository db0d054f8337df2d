import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

import { expect } from "chai";

import { cleanEnvironment, runHardhat } from "./helpers/cli.js";
import { textShape, withRecordedOutputs } from "./helpers/readme-walkthrough.js";
import { startServe, type ServeProcess } from "./helpers/serve-process.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const README = path.join(ROOT, "README.md");
const RECORD = process.env.README_TEST_RECORD === "1";
const API_KEY = "readme-client-key-0123456789";

/** The README's typed-client snippet and the output block under it, with the lines that block holds. */
function clientSnippet(readme: string): { code: string; shown: { text: string; format: "text"; lines: [number, number] } } {
  const lines = readme.split("\n");
  const start = lines.findIndex((line, index) => line === "```ts" && lines[index + 1] === "// launch.ts");
  expect(start, "README: the typed client's snippet (```ts starting with // launch.ts)").to.be.greaterThan(-1);
  const end = lines.indexOf("```", start + 1);
  expect(lines[end + 1], "README: the snippet's output, as ```text right under it").to.equal("```text");
  const outputEnd = lines.indexOf("```", end + 2);
  return {
    code: lines.slice(start + 1, end).join("\n"),
    shown: { text: lines.slice(end + 2, outputEnd).join("\n"), format: "text", lines: [end + 2, outputEnd] },
  };
}

describe("README: the typed client's snippet (flow 1, signed locally) runs as written against a live `serve`", function () {
  let serve: ServeProcess | undefined;

  after(async function () {
    await serve?.crash();
  });

  it("launches GLD with a key the service never sees and prints the answers the README shows", async function () {
    const readme = readFileSync(README, "utf8");
    const { code, shown } = clientSnippet(readme);
    expect(code).to.include('from "hardhat-token-service/client"');
    serve = await startServe({ apiKey: API_KEY, args: [] });
    // The changes: this repository imports the package from its sources, and the service listens on a free port.
    const script = code
      .replace('"hardhat-token-service/client"', '"../src/client/index.js"')
      .replace('"http://127.0.0.1:8080"', JSON.stringify(serve.baseUrl));
    const directory = path.join(ROOT, "scratch");
    const file = path.join(directory, `readme-client-${process.pid}.ts`);
    await mkdir(directory, { recursive: true });
    await writeFile(file, script);
    try {
      const result = await runHardhat(["run", "--no-compile", path.relative(ROOT, file)], {
        cwd: ROOT,
        env: cleanEnvironment({ API_KEY }),
      });
      expect(result.code, result.stdout + result.stderr).to.equal(0);
      const printed = result.stdout.trim();
      if (RECORD) return void (await writeFile(README, withRecordedOutputs(readFileSync(README, "utf8"), [{ shown, text: printed }])));
      expect(printed, `printed:\n${printed}\n\nshown in the README:\n${shown.text}`).to.match(textShape(shown.text));
      expect(printed).to.include("mined in block").and.to.include("signed → pending → mined").and.to.include("symbol: 'GLD'");
    } finally {
      await rm(file, { force: true });
    }
  });
});
