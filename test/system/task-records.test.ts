import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { openStore } from "../../src/store/open-store.js";
import { verifySignature } from "../../src/webhooks/signature.js";
import { cleanEnvironment, runHardhat } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { eventually, startServer } from "../helpers/http-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

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

  it("a task's operation events go to the webhooks registered without a key (serve --no-auth), and to no key's", async function () {
    this.timeout(120_000);
    const delivery = { TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.1" };
    const events = ["operation.pending", "operation.mined"];
    const keyless = new WebhookReceiver();
    const keyed = new WebhookReceiver();
    await Promise.all([keyless.listen(), keyed.listen()]);
    try {
      // One webhook under an API key, one through serve --no-auth, on the data directory the tasks use.
      let api = await startServer({ dataDir, env: delivery });
      const keyedHook = await api.call("POST", "/api/v1/webhooks", { url: keyed.url(), events });
      expect(keyedHook.status, JSON.stringify(keyedHook.body)).to.equal(201);
      await api.stop({ keepData: true });
      api = await startServer({ dataDir, env: delivery, auth: false });
      const created = await fetch(`${api.baseUrl}/api/v1/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: keyless.url(), events }),
      });
      expect(created.status).to.equal(201);
      const keylessHook = (await created.json()) as { id: string; secret: string };
      await api.stop({ keepData: true });

      // The task launches and waits for mined in its own process, with no service running.
      const wallet = await hardhatJson(["wallet:create", ...pair]);
      await hardhatJson(["faucet", ...pair, "--address", wallet.address]);
      const launched = await hardhatJson(
        ["token:launch", ...pair, "--type", "erc20", "--name", "Hooked", "--symbol", "HKD", "--private-key-env", "DEPLOYER_KEY"],
        { DEPLOYER_KEY: wallet.privateKey },
      );
      expect(launched.status).to.equal("mined");

      // Its records queued their events for the keyless webhook in the same writes: nothing else ran.
      const store = await openStore({ dataDir });
      try {
        const queued = await store.webhooks.listDeliveries(null, keylessHook.id, { limit: 100 });
        expect(queued!.items.filter((item) => item.operationId === launched.id).map((item) => item.eventType)).to.have.members(events);
      } finally {
        await store.close();
      }

      // The service, started again, delivers them, signed with the keyless webhook's secret; the keyed one gets nothing.
      api = await startServer({ dataDir, env: delivery, auth: false });
      try {
        const delivered = await eventually(
          async () => keyless.received.filter((event) => event.json.data.id === launched.id),
          (found) => found.length === 2,
          30_000,
        );
        expect(delivered.map((event) => event.json.type)).to.have.members(events);
        for (const event of delivered) {
          expect(verifySignature(keylessHook.secret, event.body, String(event.headers["token-service-signature"]))).to.equal(true);
          expect(event.json.data).to.include({ kind: "launch", transactionHash: launched.transactionHash });
        }
        const settled = await eventually(
          () => api.server.store.webhooks.listDeliveries(null, keylessHook.id, { limit: 100 }),
          (page) => page!.items.filter((item) => item.operationId === launched.id).every((item) => item.status === "delivered"),
        );
        expect(settled!.items.length).to.be.at.least(2);
      } finally {
        await api.stop({ keepData: true });
      }
      // The key's webhook has no delivery at all, and got nothing.
      api = await startServer({ dataDir, env: delivery });
      try {
        const deliveries = await api.call("GET", `/api/v1/webhooks/${keyedHook.body.id}/deliveries`);
        expect(deliveries.status).to.equal(200);
        expect(deliveries.body.items).to.deep.equal([]);
        expect(keyed.received).to.deep.equal([]);
      } finally {
        await api.stop({ keepData: true });
      }
    } finally {
      await Promise.all([keyless.close(), keyed.close()]);
    }
  });
});
