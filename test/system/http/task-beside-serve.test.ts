import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { JsonRpcProvider, Wallet } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { openStore } from "../../../src/store/open-store.js";
import { cleanEnvironment, runHardhat } from "../../helpers/cli.js";
import { fixtureProjectRoot } from "../../helpers/fixture-projects.js";
import { eventually } from "../../helpers/http-server.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const API_KEY = "beside-key-0123456789";

describe("a task on a live network beside a running `serve`: two processes, one store (real CLI processes, Hardhat's node)", function () {
  const cwd = fixtureProjectRoot("consumer");
  let node: JsonRpcServer;
  let rpc: JsonRpcProvider;
  let dataDir: string;
  let serve: ServeProcess | undefined;
  let liveEnv: Record<string, string>;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    rpc = new JsonRpcProvider(`http://127.0.0.1:${port}`, 11155111, { staticNetwork: true });
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-beside-"));
    liveEnv = { CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir, TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `http://127.0.0.1:${port}` };
    serve = await startServe({ cwd, apiKey: API_KEY, env: liveEnv });
  });

  after(async function () {
    await serve?.stop();
    rpc?.destroy();
    await node?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("records the task's launch in the service's store; the service follows it to mined after the task left (--no-wait)", async function () {
    const deployer = Wallet.createRandom();
    await rpc.send("hardhat_setBalance", [deployer.address, "0x56BC75E2D63100000"]);
    await rpc.send("evm_setAutomine", [false]);
    const sent = await runHardhat(
      [
        "token:launch",
        "--chain",
        "ethereum",
        "--chain-network",
        "sepolia",
        "--type",
        "erc20",
        "--name",
        "Beside",
        "--symbol",
        "BSD",
        "--private-key-env",
        "DEPLOYER_KEY",
        "--no-wait",
        "--json",
      ],
      { cwd, env: cleanEnvironment({ ...liveEnv, DEPLOYER_KEY: deployer.privateKey }) },
    );
    expect(sent.code, sent.stderr).to.equal(0);
    const launched = JSON.parse(sent.stdout);
    expect(launched).to.include({ status: "pending", simulated: false });
    // Not mined yet (the node mines on demand), and the task has exited: only the service can finish the record.
    await rpc.send("evm_mine", []);
    await rpc.send("evm_setAutomine", [true]);

    const store = await openStore({ dataDir });
    try {
      const record = await eventually(
        () => store.getOperation(launched.id),
        (found) => found?.status === "mined",
        30_000,
      );
      expect(record!.transactionHash).to.equal(launched.transactionHash);
      expect(record!.transitions.map((transition) => transition.status)).to.deep.equal(["signed", "pending", "mined"]);
    } finally {
      await store.close();
    }
    expect(await rpc.getCode(launched.contractAddress)).to.not.equal("0x");
    expect(sent.stdout + sent.stderr).not.to.include(deployer.privateKey.slice(2));
  });
});
