import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";

import { eventually } from "../../helpers/http-server.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";
import { closedPort } from "../../helpers/service.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

const API_KEY = "webhook-crash-key-0123456789";
const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const WEBHOOK_ENV = {
  TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.1",
  TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS: "0.2",
};

/** A mined ERC20 launch through a real `serve`; answers its record id. */
async function launchMined(serve: ServeProcess): Promise<string> {
  const { body: wallet } = await serve.call("POST", "/api/v1/wallets", SEPOLIA);
  await serve.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address });
  const launch = await serve.call("POST", "/api/v1/tokens?wait=mined", {
    ...SEPOLIA,
    type: "ERC20",
    token: { name: "Crash", symbol: "CRSH", initialSupply: "1" },
    sender: wallet.address,
    privateKey: wallet.privateKey,
  });
  expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
  expect(launch.body.status).to.equal("mined");
  return launch.body.id;
}

const deliveriesOf = async (serve: ServeProcess, webhookId: string, operationId: string) =>
  (await serve.call("GET", `/api/v1/webhooks/${webhookId}/deliveries?limit=100`)).body.items.filter(
    (item: { operationId: string }) => item.operationId === operationId,
  ) as Array<{ id: string; eventType: string; status: string; attempts: number }>;

const VARIANTS = [
  {
    name: "embedded SQLite",
    // A restarted sole owner of the embedded store frees the dead process's delivery leases at once.
    database: async (_context: Mocha.Context) => ({ env: {}, hangTimeoutSeconds: "120", drop: async () => {} }),
  },
  {
    name: "PostgreSQL server",
    database: async (context: Mocha.Context) => {
      const schema = await freshPostgresSchema(context, "hts_webhook_crash");
      // Replicas may share the server: a dead process's delivery lease ends with time (twice the timeout plus 5 s).
      return { env: { DATABASE_URL: schema.url }, hangTimeoutSeconds: "3", drop: schema.drop };
    },
  },
];

for (const variant of VARIANTS) {
  describe(`webhooks — kill -9 of serve between a state change and its delivery (${variant.name})`, function () {
    this.timeout(240_000);
    let dataDir: string;
    let serve: ServeProcess | undefined;
    let receiver: WebhookReceiver | undefined;
    let env: Record<string, string> = {};
    let hangTimeoutSeconds = "120";
    let drop = async () => {};

    beforeEach(async function () {
      dataDir = await mkdtemp(path.join(tmpdir(), "hts-webhook-crash-"));
      const database = await variant.database(this);
      env = { ...WEBHOOK_ENV, ...database.env };
      hangTimeoutSeconds = database.hangTimeoutSeconds;
      drop = database.drop;
    });

    afterEach(async function () {
      await serve?.crash();
      serve = undefined;
      await receiver?.close();
      receiver = undefined;
      await drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("delivers after a restart the events that a receiver not yet listening could not take", async function () {
      const port = await closedPort();
      serve = await startServe({ dataDir, apiKey: API_KEY, env });
      const webhook = await serve.call("POST", "/api/v1/webhooks", {
        url: `http://127.0.0.1:${port}/hooks`,
        events: ["operation.pending", "operation.mined"],
      });
      expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
      const operationId = await launchMined(serve);
      // Both state changes are in the outbox and were attempted: the receiver refused the connection.
      const queued = await eventually(
        () => deliveriesOf(serve!, webhook.body.id, operationId),
        (items) => items.length === 2 && items.every((item) => item.status === "pending" && item.attempts >= 1),
      );
      await serve.crash();
      serve = undefined;

      receiver = new WebhookReceiver();
      await receiver.listen(port);
      serve = await startServe({ dataDir, apiKey: API_KEY, env });
      const arrived = await eventually(
        async () => receiver!.received.filter((event) => event.json.data.id === operationId),
        (events) => events.length >= 2,
      );
      expect(arrived.map((event) => event.json.type).sort()).to.deep.equal(["operation.mined", "operation.pending"]);
      expect(arrived.map((event) => event.json.id).sort()).to.deep.equal(queued.map((item) => item.id).sort());
      const delivered = await eventually(
        () => deliveriesOf(serve!, webhook.body.id, operationId),
        (items) => items.every((item) => item.status === "delivered"),
      );
      expect(delivered).to.have.length(2);
    });

    it("sends again after a restart the delivery a killed process was attempting, under the same event id", async function () {
      receiver = new WebhookReceiver("hang");
      const url = await receiver.listen();
      // The attempt hangs for as long as the receiver does: the process dies in the middle of it.
      serve = await startServe({ dataDir, apiKey: API_KEY, env: { ...env, TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: hangTimeoutSeconds } });
      const webhook = await serve.call("POST", "/api/v1/webhooks", { url, events: ["operation.mined"] });
      const operationId = await launchMined(serve);
      const inFlight = await eventually(
        async () => receiver!.received.filter((event) => event.json.data.id === operationId),
        (events) => events.length === 1,
      );
      await serve.crash();
      serve = undefined;

      receiver.mode = "ok";
      serve = await startServe({ dataDir, apiKey: API_KEY, env });
      const delivered = await eventually(
        () => deliveriesOf(serve!, webhook.body.id, operationId),
        (items) => items.length === 1 && items[0]!.status === "delivered",
        60_000,
      );
      const attempts = receiver.received.filter((event) => event.json.data.id === operationId);
      expect(attempts.length).to.equal(2);
      expect(attempts.map((event) => event.json.id)).to.deep.equal([inFlight[0]!.json.id, inFlight[0]!.json.id]);
      expect(delivered[0]!.id).to.equal(inFlight[0]!.json.id);
      expect(delivered[0]!.attempts, "the attempt the crash cut short counts").to.equal(attempts.length);
    });
  });
}
