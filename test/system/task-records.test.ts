import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { openStore } from "../../src/store/open-store.js";
import { cleanEnvironment, runHardhat } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { eventually, startServer } from "../helpers/http-server.js";

describe("tasks record their operations where `serve` keeps its own (real CLI processes)", function () {
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-task-records-"));
    env = cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir });
  });

  after(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function hardhatJson(args: string[], extraEnv: Record<string, string> = {}): Promise<any> {
    const result = await runHardhat([...args, "--json"], { cwd, env: { ...env, ...extraEnv } });
    expect(result.code, `hardhat ${args.join(" ")}\n${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout);
  }

  it("a launch sent with --no-wait is a durable record (no key in it) that the service follows to mined", async function () {
    const wallet = await hardhatJson(["wallet:create", ...pair]);
    const funded = await hardhatJson(["faucet", ...pair, "--address", wallet.address]);
    const launched = await hardhatJson(
      ["token:launch", ...pair, "--type", "erc20", "--name", "Noted", "--symbol", "NTD", "--private-key-env", "DEPLOYER_KEY", "--no-wait"],
      { DEPLOYER_KEY: wallet.privateKey },
    );
    expect(launched.status).to.equal("pending");

    const store = await openStore({ dataDir });
    try {
      const record = await store.getOperation(launched.id);
      expect(record).to.include({
        kind: "launch",
        status: "signed",
        transactionHash: launched.transactionHash,
        contractAddress: launched.contractAddress,
      });
      expect(record!.rawTransaction).to.match(/^0x/);
      expect(await store.getOperation(funded.id)).to.include({ kind: "faucet", status: "mined" });
    } finally {
      await store.close();
    }
    for (const file of await readdir(dataDir)) {
      if (!file.startsWith("store.sqlite")) continue;
      expect((await readFile(path.join(dataDir, file))).toString("latin1"), file).not.to.include(wallet.privateKey.slice(2));
    }

    // The task exited before its tracker looked; the service, started later on the same data, finishes the record.
    const api = await startServer({ dataDir });
    try {
      const mined = await eventually(
        () => api.server.store.getOperation(launched.id),
        (record) => record?.status === "mined",
        30_000,
      );
      expect(mined!.transitions.map((transition) => transition.status)).to.deep.equal(["signed", "pending", "mined"]);
    } finally {
      await api.stop();
    }
  });
});
