import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet } from "ethers";

import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";

// Issue 32's silent traps through Hardhat's CLI: tasks take whole units and refuse exponent forms, warn of an amount
// below one whole token (on stderr, and in --json), and refuse a URI without a scheme, naming the option.

describe("tasks: amounts in whole units, warned of and refused where they mix units; URIs with a scheme", function () {
  this.timeout(300_000);
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  const signer = ["--private-key-env", "DEPLOYER_KEY"];
  const deployer = Wallet.createRandom();
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const hardhat = (...args: string[]): Promise<CliResult> => runHardhat(args, { cwd, env, timeoutMs: 120_000 });

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-amount-tasks-"));
    env = cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir, DEPLOYER_KEY: deployer.privateKey });
    const funded = await hardhat("faucet", ...pair, "--address", deployer.address);
    expect(funded.code, funded.stderr).to.equal(0);
  });

  after(async function () {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses --amount 1.5e18 and 1e3, naming the option and the rule, and grants nothing", async function () {
    for (const amount of ["1.5e18", "1e3"]) {
      const result = await hardhat("faucet", ...pair, "--address", deployer.address, "--amount", amount);
      expect(result.code).to.equal(1);
      const output = result.stdout + result.stderr;
      expect(output).to.include("INVALID_ARGUMENT (--amount)").and.include("whole units").and.include("exponent forms");
    }
  });

  it("launches 0.000000000000001 tokens as asked, with the warning on stderr and in --json", async function () {
    const human = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc20",
      "--name",
      "Dust",
      "--symbol",
      "DST",
      "--initial-supply",
      "0.000000000000001",
      ...signer,
    );
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stderr).to.include("Warning AMOUNT_BELOW_ONE_TOKEN (--initial-supply): token.initialSupply is 1000 smallest units");
    const json = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc20",
      "--name",
      "Dust",
      "--symbol",
      "DST",
      "--initial-supply",
      "0.5",
      "--json",
      ...signer,
    );
    expect(json.code, json.stderr).to.equal(0);
    const launched = JSON.parse(json.stdout);
    expect(launched).to.include({ initialSupply: "500000000000000000", uiInitialSupply: "0.5", decimals: 18 });
    expect(launched.warnings[0]).to.include({ code: "AMOUNT_BELOW_ONE_TOKEN", field: "token.initialSupply" });
  });

  it("refuses --uri 'my picture', naming the option and the rule", async function () {
    const result = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc721",
      "--name",
      "Art",
      "--symbol",
      "ART",
      "--uri",
      "my picture",
      ...signer,
    );
    expect(result.code).to.equal(1);
    expect(result.stdout + result.stderr)
      .to.include("INVALID_ARGUMENT (--uri)")
      .and.include("must be an absolute URI starting with one of ipfs://");
  });
});
