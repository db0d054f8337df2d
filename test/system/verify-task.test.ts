import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet as EthersWallet, parseEther, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { explorerEnvironment, startExplorerStub, type ExplorerStub } from "../helpers/explorer-stub.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";

// token:verify through Hardhat's CLI, on anvil (the networks fixture's `--network sepolia`), against explorer answers
// from fixtures on loopback: a token launched with token:launch (recorded in the data directory's store) is submitted, the
// task waits for the verdict and prints it; a failure and the refusals exit 1 with the code and option named, no stack.

describe("token:verify (CLI, on anvil, Etherscan and Sourcify answers from fixtures)", function () {
  this.timeout(180_000);
  const cwd = fixtureProjectRoot("networks");
  const deployer = EthersWallet.createRandom();
  let anvil: AnvilNode;
  let dataDir: string;
  let etherscan: ExplorerStub;
  let sourcify: ExplorerStub;
  let token: string;

  function hardhat(...args: string[]): Promise<CliResult> {
    const variables = {
      NETWORKS_TOKEN_SERVICE_DATA_DIR: dataDir,
      NETWORKS_SEPOLIA_RPC_URL: anvil.url,
      NETWORKS_DEPLOYER_KEY: deployer.privateKey,
      TOKEN_SERVICE_VERIFY_POLL_SECONDS: "0.05",
      ...explorerEnvironment({ etherscan, sourcify }),
    };
    return runHardhat([...args, "--network", "sepolia"], { cwd, env: cleanEnvironment(variables), timeoutMs: 120_000 });
  }

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-verify-task-"));
    anvil = await startAnvil({ chainId: 11155111 });
    etherscan = await startExplorerStub("etherscan");
    sourcify = await startExplorerStub("sourcify");
    await anvil.rpc("anvil_setBalance", [deployer.address, toQuantity(parseEther("10"))]);
    const launched = await hardhat("token:launch", "--type", "erc20", "--name", "Gold", "--symbol", "GLD", "--json");
    expect(launched.code, launched.stderr).to.equal(0);
    token = JSON.parse(launched.stdout).contractAddress;
  });

  after(async function () {
    await etherscan?.stop();
    await sourcify?.stop();
    await anvil?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("fixture: submits the token to Etherscan, waits while it is pending, and prints the verified record (--json)", async function () {
    etherscan.script("submit-accepted", ["check-pending", "check-pass"]);
    const result = await hardhat("token:verify", "--address", token, "--explorer", "etherscan", "--json");
    expect(result.code, result.stderr).to.equal(0);
    const record = JSON.parse(result.stdout);
    expect(record).to.deep.include({
      status: "verified",
      explorer: "etherscan",
      chain: "ethereum",
      network: "sepolia",
      address: token,
      explorerMessage: "Pass - Verified",
      url: `https://sepolia.etherscan.io/address/${token}#code`,
    });
    expect(etherscan.submissions).to.have.length(1);
    expect(etherscan.submissions[0]!.fields.contractaddress).to.equal(token);
    expect(etherscan.checks).to.have.length(2);
  });

  it("fixture: prints Sourcify's refusal in its words and exits 1 without a stack trace", async function () {
    sourcify.script("submit-accepted", ["check-fail"]);
    const result = await hardhat("token:verify", "--address", token, "--explorer", "sourcify");
    expect(result.code).to.equal(1);
    expect(result.stdout).to.match(/status\s+failed/);
    expect(result.stdout).to.include("no_match: The onchain and recompiled bytecodes don't match.");
    expect(result.stderr).to.include("the verification failed: no_match");
    expect(result.stderr).not.to.include("--show-stack-traces");
  });

  it("refuses an explorer without its settings, an address it did not launch and a missing option, naming each", async function () {
    const cases: Array<[string[], string]> = [
      [["--address", token, "--explorer", "blockscout"], "EXPLORER_NOT_CONFIGURED (--explorer)"],
      [["--address", EthersWallet.createRandom().address, "--explorer", "sourcify"], "LAUNCH_NOT_FOUND (--address)"],
      [["--explorer", "sourcify"], "INVALID_ARGUMENT (--address)"],
      [["--address", token], "INVALID_ARGUMENT (--explorer)"],
    ];
    for (const [args, expected] of cases) {
      const result = await hardhat("token:verify", ...args);
      expect(result.code, args.join(" ")).to.equal(1);
      expect(result.stderr).to.include(expected);
      expect(result.stderr).not.to.include("--show-stack-traces");
    }
  });
});
