import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { cleanEnvironment, runHardhat } from "../../helpers/cli.js";
import { fixtureProjectRoot } from "../../helpers/fixture-projects.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const API_KEY = "one-owner-key-0123456789";

describe("one writer per data directory: tasks and apikey:create beside a running `serve` (real CLI processes)", function () {
  const cwd = fixtureProjectRoot("consumer");
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let serve: ServeProcess | undefined;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-one-owner-"));
    env = cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir });
    serve = await startServe({ cwd, apiKey: API_KEY, env: { CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir } });
  });

  after(async function () {
    await serve?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses a task that would write the simulated chain, in one message naming the service and what to do; apikey:create works beside it; the service's launch survives", async function () {
    const wallet = (await serve!.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" })).body;
    expect(
      (await serve!.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address })).status,
    ).to.equal(200);
    const launch = await serve!.call("POST", "/api/v1/tokens?wait=mined", {
      chain: "ethereum",
      network: "sepolia",
      type: "ERC20",
      token: { name: "Served", symbol: "SRV", initialSupply: "7" },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
    expect(launch.body.status).to.equal("mined");

    const refused = await runHardhat(["faucet", "--chain", "ethereum", "--chain-network", "sepolia", "--address", wallet.address], {
      cwd,
      env,
    });
    expect(refused.code).to.equal(1);
    // The plugin's refusal: one line, without Hardhat's --show-stack-traces hint, and no stack trace.
    const lines = refused.stderr.trim().split("\n");
    expect(lines, refused.stderr).to.have.length(1);
    expect(refused.stderr).not.to.match(/^\s+at /m);
    expect(lines[0])
      .to.include("DATA_DIR_IN_USE")
      .and.to.include(`hardhat serve (pid ${serve!.pid}, ${serve!.baseUrl})`)
      .and.to.include("HTTP API");

    // Creating a wallet touches no chain: it works beside the service.
    const walletBeside = await runHardhat(["wallet:create", "--chain", "ethereum", "--chain-network", "sepolia", "--json"], { cwd, env });
    expect(walletBeside.code, walletBeside.stderr).to.equal(0);

    // apikey:create writes beside the service (the embedded store takes a second writer), and the service accepts the key at once.
    const created = await runHardhat(["apikey:create", "--data-dir", dataDir, "--label", "beside", "--json"], { cwd, env });
    expect(created.code, created.stderr).to.equal(0);
    const { key } = JSON.parse(created.stdout.slice(created.stdout.indexOf("{")));
    const withNewKey = await fetch(`${serve!.baseUrl}/api/v1/networks`, { headers: { "x-api-key": key } });
    expect(withNewKey.status).to.equal(200);

    // Once the service stops, the task owns the directory and reads the chain the service wrote.
    expect(await serve!.stop()).to.equal(0);
    serve = undefined;
    const balance = await runHardhat(
      [
        "balance",
        "--chain",
        "ethereum",
        "--chain-network",
        "sepolia",
        "--address",
        wallet.address,
        "--erc20",
        launch.body.contractAddress,
        "--json",
      ],
      { cwd, env },
    );
    expect(balance.code, balance.stderr).to.equal(0);
    expect(JSON.parse(balance.stdout).balances.SRV.balance).to.equal("7");
  });
});
