import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";

import { tokenServiceTasks } from "../../tasks/index.js";

import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";

// What a person reads at the terminal (issue 32): every task's --help names its values as Hardhat does for its own
// options (<STRING>, <INT>), never an internal type such as <STRING_WITHOUT_DEFAULT>, nor an empty "(default: )"; an
// expected refusal is one clear line naming the option and the rule, exit code 1, without Hardhat's
// "--show-stack-traces" footer, which is for bugs.

const TASK_IDS = tokenServiceTasks.map((definition) => definition.id.join(" "));

describe("the tasks' help and refusals through Hardhat's CLI", function () {
  this.timeout(300_000);
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  const hardhat = (...args: string[]) => runHardhat(args, { cwd, env, timeoutMs: 120_000 });
  const output = (result: CliResult) => `${result.stdout}${result.stderr}`;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-cli-output-"));
    env = cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir });
  });

  after(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("declares the tasks this test reads the help of", function () {
    expect(TASK_IDS).to.include.members(["serve", "faucet", "token:mint", "chain:fault", "custody:restore"]);
  });

  for (const id of TASK_IDS) {
    it(`\`${id} --help\` shows no internal type name and no empty default`, async function () {
      const result = await hardhat(id, "--help");
      expect(result.code, output(result)).to.equal(0);
      const usage = result.stdout.split("\n").find((line) => line.startsWith("Usage: "));
      expect(usage, result.stdout).to.be.a("string");
      // The value placeholders Hardhat prints for its own options; STRING_WITHOUT_DEFAULT is how it spells an option
      // declared without a default.
      const placeholders = [...usage!.matchAll(/<([A-Z_]+)>/g)].map((match) => match[1]);
      expect(
        placeholders.filter((name) => !["STRING", "INT"].includes(name!)),
        usage,
      ).to.deep.equal([]);
      expect(result.stdout).not.to.match(/WITHOUT_DEFAULT/);
      expect(result.stdout).not.to.match(/\(default: \)/);
    });
  }

  it("`serve --help` says what it starts, in words a reader has seen", async function () {
    const result = await hardhat("serve", "--help");
    const description = result.stdout.split("\n")[0]!;
    expect(description).to.match(/^Start the HTTP JSON API/);
    expect(result.stdout).not.to.match(/interface document/i);
  });

  /** A refusal: exit code 1, the option and the rule on one line, and no footer pointing at stack traces. */
  function expectRefusal(result: CliResult, line: RegExp) {
    expect(result.code, output(result)).to.equal(1);
    expect(output(result)).not.to.include("--show-stack-traces");
    expect(output(result)).not.to.match(/^\s+at /m);
    expect(result.stderr.trim()).to.match(line);
  }

  it("a bad amount is refused with --amount and the rule, without the stack-trace footer", async function () {
    const address = "0x0000000000000000000000000000000000000001";
    const result = await hardhat("faucet", ...pair, "--address", address, "--amount", "1.5x");
    expectRefusal(
      result,
      /^Error in community plugin hardhat-token-service: INVALID_ARGUMENT \(--amount\): amount must be a non-negative decimal amount in whole units/,
    );
  });

  it("a bad address is refused with --address and the rule, without the stack-trace footer", async function () {
    const result = await hardhat("balance", ...pair, "--address", "0x12");
    expectRefusal(
      result,
      /^Error in community plugin hardhat-token-service: INVALID_ADDRESS \(--address\): address must be a 0x-prefixed 20-byte hex address/,
    );
  });

  it("a missing required option is refused by name, without the stack-trace footer", async function () {
    const result = await hardhat("faucet", ...pair);
    expectRefusal(result, /^Error in community plugin hardhat-token-service: INVALID_ADDRESS \(--address\): address is required/);
    const network = await hardhat("balance", "--chain", "ethereum", "--address", "0x0000000000000000000000000000000000000001");
    expectRefusal(network, /^Error in community plugin hardhat-token-service: INVALID_ARGUMENT \(--chain-network\): network is required/);
  });

  it("--json prints the refusal's error object on stdout too", async function () {
    const result = await hardhat("balance", ...pair, "--address", "0x12", "--json");
    expectRefusal(result, /INVALID_ADDRESS \(--address\)/);
    expect(JSON.parse(result.stdout).error).to.include({ code: "INVALID_ADDRESS", field: "address" });
  });
});
