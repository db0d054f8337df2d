import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { until } from "../helpers/until.js";

// token:speed-up and token:cancel through Hardhat's CLI, on a live pair (anvil, mining only when told): a launch the task
// left pending is sped up step by step (the steps its send signed ahead, then one the task prepares and signs with the
// sender's key), then cancelled, the cancel mined while the task waits.

describe("token:speed-up and token:cancel through Hardhat's CLI (anvil --no-mining)", function () {
  this.timeout(300_000);
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  let anvil: AnvilNode;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const sender = new Wallet(Wallet.createRandom().privateKey);
  const runs: CliResult[] = [];

  const hardhat = async (...args: string[]) => {
    const result = await runHardhat(args, { cwd, env, timeoutMs: 120_000 });
    runs.push(result);
    return result;
  };
  const hardhatJson = async (...args: string[]) => {
    const result = await hardhat(...args, "--json");
    expect(result.code, `hardhat ${args.join(" ")}\n${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout);
  };

  before(async function () {
    anvil = await startAnvil({ args: ["--no-mining"] });
    await anvil.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 20n)]);
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-replace-cli-"));
    env = cleanEnvironment({
      CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir,
      TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: anvil.url,
      DEPLOYER_KEY: sender.privateKey,
    });
  });

  after(async function () {
    await anvil?.stop();
    await rm(dataDir, { recursive: true, force: true });
    // No run printed the key.
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).to.not.include(sender.privateKey.slice(2));
  });

  it("lists both tasks with their options", async function () {
    const help = await hardhat("--help");
    expect(help.stdout).to.match(/^\s+token:speed-up\s+Replace an operation's pending transaction with the same call at higher fees/m);
    expect(help.stdout).to.match(
      /^\s+token:cancel\s+Cancel an operation's pending transaction: a zero-value transfer to the sender takes its nonce/m,
    );
    const speedUp = await hardhat("token:speed-up", "--help");
    for (const option of ["--id", "--private-key-env", "--no-wait", "--json", "--chain", "--chain-network"])
      expect(speedUp.stdout).to.include(option);
  });

  it("speeds up a pending launch up its ladder, then with a replacement it signs, then cancels it", async function () {
    const launch = await hardhatJson(
      "token:launch",
      ...pair,
      "--type",
      "erc20",
      "--name",
      "Slow",
      "--symbol",
      "SLW",
      "--private-key-env",
      "DEPLOYER_KEY",
      "--no-wait",
    );
    expect(launch).to.include({ status: "pending", simulated: false });

    const seen: string[] = [launch.transactionHash];
    for (let step = 1; step <= 5; step++) {
      const sped = await hardhatJson("token:speed-up", "--id", launch.id, "--no-wait", "--private-key-env", "DEPLOYER_KEY");
      expect(sped).to.include({ id: launch.id, status: "pending" });
      expect(seen, `step ${step} sends a new transaction`).to.not.include(sped.transactionHash);
      seen.push(sped.transactionHash);
      const sent = sped.transactions.find(
        (transaction: { transactionHash: string }) => transaction.transactionHash === sped.transactionHash,
      );
      // Steps 1 to 4 were signed ahead with the launch; the fifth is prepared, and signed by the task with the key (its
      // rung above every stored one: the cancel signed ahead is rung 5).
      expect(sent).to.include({ role: "replacement", rung: step === 5 ? 6 : step });
    }
    const human = await hardhat("token:speed-up", "--id", launch.id, "--no-wait", "--private-key-env", "DEPLOYER_KEY");
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.include(`Sped up operation ${launch.id} (launch) on ethereum/sepolia (live network`);

    // The cancel, by a hash the launch was sent as: once the node holds it, the chain mines a block every quarter second
    // while the task waits for the operation to be final.
    const cancelling = hardhat("token:cancel", "--id", launch.transactionHash, ...pair, "--json");
    let exited = false;
    void cancelling.finally(() => (exited = true));
    const pooled = async () => {
      const pool = (await anvil.rpc("txpool_content", [])) as { pending: Record<string, Record<string, { to: string; input: string }>> };
      const held = Object.entries(pool.pending).find(([address]) => address.toLowerCase() === sender.address.toLowerCase())?.[1];
      return Object.values(held ?? {}).some(
        (transaction) => transaction.to?.toLowerCase() === sender.address.toLowerCase() && transaction.input === "0x",
      );
    };
    await until(async () => exited || (await pooled()), "the cancel in the node's pool", 60_000, 100);
    await until(
      async () => {
        if (!exited) await anvil.rpc("evm_mine", []);
        return exited;
      },
      "the cancel task to finish",
      120_000,
      250,
    );
    const cancelled = await cancelling;
    expect(cancelled.code, cancelled.stderr).to.equal(0);
    const record = JSON.parse(cancelled.stdout);
    expect(record).to.include({ id: launch.id, status: "cancelled" });
    const landed = record.transactions.find(
      (transaction: { transactionHash: string }) => transaction.transactionHash === record.transactionHash,
    );
    expect(landed).to.include({ role: "cancel" });
    expect(await anvil.rpc("eth_getCode", [launch.contractAddress, "latest"])).to.equal("0x");

    const final = await hardhat("token:speed-up", "--id", launch.id, "--json");
    expect(final.code).to.equal(1);
    expect(JSON.parse(final.stdout).error).to.include({ code: "OPERATION_FINAL" });
    expect(final.stderr).to.include(`OPERATION_FINAL: operation ${launch.id} is cancelled: there is nothing to speed up`);
  });
});
