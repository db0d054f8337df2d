import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { cleanEnvironment, runHardhat } from "../../helpers/cli.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const API_KEY = "fault-task-key-0123456789";
const PAIR = ["--chain", "ethereum", "--chain-network", "sepolia"];

/** `npx hardhat chain:fault …` in a process of its own, as a user runs it beside `serve`. */
const chainFault = (dataDir: string, args: string[]) =>
  runHardhat(["chain:fault", ...PAIR, "--data-dir", dataDir, "--api-key-env", "FAULTS_KEY", ...args], {
    cwd: ROOT,
    env: cleanEnvironment({ FAULTS_KEY: API_KEY }),
    timeoutMs: 90_000,
  });

describe("npx hardhat chain:fault: a client of the `serve` that holds the data directory (real CLI processes)", function () {
  let dataDir: string;
  let serve: ServeProcess | undefined;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-fault-task-"));
  });

  after(async function () {
    await serve?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("says no service holds the data directory when none runs", async function () {
    const result = await chainFault(dataDir, ["--list"]);
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    expect(result.stderr).to.include(`no \`npx hardhat serve\` holds ${dataDir}`);
  });

  it("passes on the service's refusal when faults are off: CHAIN_FAULTS_OFF", async function () {
    serve = await startServe({ dataDir, apiKey: API_KEY });
    const result = await chainFault(dataDir, ["--fault", "stall", "--seconds", "5"]);
    expect(result.code, result.stdout + result.stderr).to.equal(1);
    expect(result.stderr).to.match(/CHAIN_FAULTS_OFF: chain faults are off: start the service with TOKEN_SERVICE_CHAIN_FAULTS=on/);
    await serve.stop();
    serve = undefined;
  });

  it("starts, lists and clears faults on the chain `serve` runs, naming a bad option", async function () {
    serve = await startServe({ dataDir, apiKey: API_KEY, env: { TOKEN_SERVICE_CHAIN_FAULTS: "on" } });
    expect(serve.output()).to.match(/faults\s+ON \(TOKEN_SERVICE_CHAIN_FAULTS=on\)/);
    const spike = await chainFault(dataDir, ["--fault", "fee-spike", "--multiplier", "3", "--blocks", "20"]);
    expect(spike.code, spike.stdout + spike.stderr).to.equal(0);
    expect(spike.stdout).to.match(
      /^ethereum\/sepolia \(http:\/\/127\.0\.0\.1:\d+\): fee-spike [0-9a-f-]{36}: base fee \d+ wei \(was \d+\) for 20 blocks; active, 19 blocks left/,
    );
    // Through the service: the chain `serve` runs is the one disturbed.
    const listed = await serve.call("GET", "/api/v1/chains/ethereum/sepolia/faults");
    expect(listed.body.faults).to.have.length(1);
    expect(listed.body.faults[0]).to.deep.include({ fault: "fee-spike", status: "active" });
    const json = await chainFault(dataDir, ["--list", "--json"]);
    expect(json.code, json.stderr).to.equal(0);
    expect(JSON.parse(json.stdout).faults[0].id).to.equal(listed.body.faults[0].id);
    const bad = await chainFault(dataDir, ["--fault", "reorg", "--blocks", "many"]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/INVALID_ARGUMENT \(--blocks\): blocks must be a number/);
    const cleared = await chainFault(dataDir, ["--clear"]);
    expect(cleared.code, cleared.stderr).to.equal(0);
    expect(cleared.stdout).to.match(/Cleared on ethereum\/sepolia:\n {2}fee-spike [0-9a-f-]{36}: .*; ended \(cleared\)/);
    expect((await serve.call("GET", "/api/v1/chains/ethereum/sepolia/faults")).body.faults).to.deep.equal([]);
  });
});
