import { expect } from "chai";
import type { JsonRpcProvider } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

const LAUNCHES = 40;
const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("webhooks — two replicas on one PostgreSQL deliver each event exactly once to a healthy receiver", function () {
  this.timeout(300_000);
  let node: JsonRpcServer;
  let replicas: RunningServer[] = [];
  let dropSchema: () => Promise<void> = async () => undefined;
  const receiver = new WebhookReceiver();

  before(async function () {
    // A real JSON-RPC node over HTTP with Sepolia's chain id: a live network both replicas share.
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    const schema = await freshPostgresSchema(this, "hts_webhook_replicas");
    dropSchema = schema.drop;
    const env = {
      TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `http://127.0.0.1:${port}`,
      TOKEN_SERVICE_SIMULATED_CHAINS: "off",
      TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      // Both replicas poll often, so each finds the other's events while they are due: every delivery is contended.
      TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.05",
    };
    replicas = [await startServer({ databaseUrl: schema.url, env }), await startServer({ databaseUrl: schema.url, env })];
    await receiver.listen();
  });

  after(async function () {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await receiver.close();
    await node?.close();
    await dropSchema();
  });

  it(`launches ${LAUNCHES} tokens through both replicas; the receiver gets each pending and mined event once`, async function () {
    const [first, second] = replicas as [RunningServer, RunningServer];
    const webhook = await first.call("POST", "/api/v1/webhooks", { url: receiver.url(), events: ["operation.pending", "operation.mined"] });
    expect(webhook.status).to.equal(201);
    // The other replica sees the subscription at once: it is in the shared store.
    expect((await second.call("GET", `/api/v1/webhooks/${webhook.body.id}`)).status).to.equal(200);

    const { body: wallet } = await first.call("POST", "/api/v1/wallets", SEPOLIA);
    const provider = (
      await first.server.service.evmChain(
        first.server.service.networks().find((pair) => pair.network === "sepolia")!,
        "test",
      )
    ).provider as JsonRpcProvider;
    await provider.send("hardhat_setBalance", [wallet.address, "0x56BC75E2D63100000"]);
    const launches = await Promise.all(
      Array.from({ length: LAUNCHES }, (_, index) =>
        (index % 2 === 0 ? first : second).call("POST", "/api/v1/tokens", {
          ...SEPOLIA,
          type: "ERC20",
          token: { name: `Hook ${index}`, symbol: `H${index}`, initialSupply: "1" },
          sender: wallet.address,
          privateKey: wallet.privateKey,
        }),
      ),
    );
    for (const launch of launches) expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
    const ids = new Set(launches.map((launch) => launch.body.id as string));

    // Final in the store: every delivery delivered, each at its first attempt (so none can arrive again later).
    const listAll = async () => {
      const items: Array<{ id: string; eventType: string; operationId: string; status: string; attempts: number }> = [];
      let cursor: string | null = null;
      do {
        const page: { body: { items: typeof items; nextCursor: string | null } } = await second.call(
          "GET",
          `/api/v1/webhooks/${webhook.body.id}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
        );
        items.push(...page.body.items);
        cursor = page.body.nextCursor;
      } while (cursor);
      return items;
    };
    const deliveries = await eventually(
      listAll,
      (items) => items.length === LAUNCHES * 2 && items.every((item) => item.status === "delivered"),
      120_000,
      250,
    );
    expect(deliveries.every((item) => item.attempts === 1)).to.equal(true);
    expect(new Set(deliveries.map((item) => item.operationId))).to.deep.equal(ids);

    const received = receiver.received.filter((event) => ids.has(event.json.data.id));
    expect(received).to.have.length(LAUNCHES * 2);
    expect(new Set(received.map((event) => event.json.id)).size, "distinct event ids").to.equal(LAUNCHES * 2);
    const pairs = new Set(received.map((event) => `${event.json.data.id} ${event.json.type}`));
    expect(pairs.size, "one event per operation and state").to.equal(LAUNCHES * 2);
    // Both replicas took part in delivering.
    const owners = replicas.map(
      (replica) => replica.logs.lines.filter((line) => line.includes('"msg":"webhook delivery attempted"')).length,
    );
    expect(
      owners.every((count) => count > 0),
      `attempts per replica: ${owners.join(", ")}`,
    ).to.equal(true);
  });
});
