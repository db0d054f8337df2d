import { createHmac } from "node:crypto";

import { expect } from "chai";

import { verifySignature } from "../../../src/webhooks/signature.js";
import { closedPort } from "../../helpers/service.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { storeVariants } from "../../helpers/postgres-schema.js";
import { checkWebhookEventAgainstOpenApi } from "../../helpers/openapi-responses.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

/** Fast deliveries for tests: short attempts, retries within a 3 s window, a 100 ms poll. */
const FAST_DELIVERY = {
  TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: "0.5",
  TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS: "3",
  TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS: "0.1",
  TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.1",
};

/** A funded wallet's ERC20 launch over HTTP; answers the launch's body. */
async function launchErc20(api: RunningServer, symbol: string) {
  const { body: wallet } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
  await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address });
  const launch = await api.call("POST", "/api/v1/tokens", {
    ...SEPOLIA,
    type: "ERC20",
    token: { name: `Hook ${symbol}`, symbol, initialSupply: "1000" },
    sender: wallet.address,
    privateKey: wallet.privateKey,
  });
  expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
  return launch.body as { id: string; transactionHash: string };
}

for (const store of storeVariants("hts_webhooks")) {
  describe(`webhooks — delivery from the outbox (${store.name})`, function () {
    this.timeout(120_000);
    let api: RunningServer;
    let drop: () => Promise<void> = async () => undefined;
    const receivers: WebhookReceiver[] = [];

    before(async function () {
      const database = await store.database(this);
      drop = database.drop;
      api = await startServer({ env: FAST_DELIVERY, ...(database.url ? { databaseUrl: database.url } : {}) });
    });

    after(async function () {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await api?.stop();
      await drop();
    });

    async function receiver(mode: "ok" | "error" | "hang" = "ok"): Promise<WebhookReceiver> {
      const created = new WebhookReceiver(mode);
      receivers.push(created);
      await created.listen();
      return created;
    }

    it("delivers a launch's operation.pending and operation.mined, signed with the secret shown once, each with its own event id", async function () {
      const healthy = await receiver();
      const created = await api.call("POST", "/api/v1/webhooks", { url: healthy.url(), events: ["operation.pending", "operation.mined"] });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
      const secret: string = created.body.secret;

      const launch = await launchErc20(api, "HOOK");
      const events = await eventually(
        async () => healthy.received.filter((event) => event.json.data.id === launch.id),
        (found) => found.some((event) => event.json.type === "operation.mined"),
      );
      expect(events.map((event) => event.json.type)).to.deep.equal(["operation.pending", "operation.mined"]);
      for (const event of events) {
        expect(event.headers["content-type"]).to.equal("application/json");
        expect(event.headers["webhook-id"]).to.equal(event.json.id);
        expect(() => checkWebhookEventAgainstOpenApi(event.json)).not.to.throw();
        const header = String(event.headers["token-service-signature"]);
        expect(verifySignature(secret, event.body, header)).to.equal(true);
        // Verified as a receiver would, from the documented scheme alone.
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!;
        expect(createHmac("sha256", secret).update(`${t}.${event.body}`).digest("hex")).to.equal(v1);
        expect(verifySignature("whsec_wrong", event.body, header)).to.equal(false);
        expect(verifySignature(secret, event.body.replace("HOOK", "HOOX"), header)).to.equal(false);
        expect(event.json.data.transactionHash).to.equal(launch.transactionHash);
        expect(event.json.data).not.to.have.property("rawTransaction");
        expect(event.json.data).not.to.have.property("apiKeyId");
      }
      expect(events[0]!.json.data.status).to.equal("pending");
      expect(events[1]!.json.data.status).to.equal("mined");
      // The faucet grant's mined event came too; every event id is distinct.
      const ids = healthy.received.map((event) => event.json.id);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(healthy.received.some((event) => event.json.data.kind === "faucet" && event.json.type === "operation.mined")).to.equal(true);
      expect(healthy.received.some((event) => event.json.type === "operation.failed")).to.equal(false);

      const deliveries = await eventually(
        () => api.call("GET", `/api/v1/webhooks/${created.body.id}/deliveries`),
        (response) => response.body.items.every((item: { status: string }) => item.status === "delivered"),
      );
      expect(deliveries.body.items.length).to.equal(healthy.received.length);
      const mined = deliveries.body.items.find(
        (item: { eventType: string; operationId: string }) => item.operationId === launch.id && item.eventType === "operation.mined",
      );
      expect(mined).to.include({ status: "delivered", attempts: 1, lastResponseStatus: 204, lastError: null });
    });

    it("retries a receiver that is down, answers 500 or hangs, with backoff, until the retry window ends, then marks the delivery failed", async function () {
      const failing = await receiver("error");
      const hanging = await receiver("hang");
      const downUrl = `http://127.0.0.1:${await closedPort()}/hooks`;
      const hooks = [];
      for (const url of [downUrl, failing.url(), hanging.url()]) {
        const created = await api.call("POST", "/api/v1/webhooks", { url, events: ["operation.mined"] });
        expect(created.status).to.equal(201);
        hooks.push(created.body.id as string);
      }
      const launch = await launchErc20(api, "FAIL");
      const expected = ["could not deliver: ECONNREFUSED", "answered HTTP 500", "no answer within 500 ms"];
      for (const [index, id] of hooks.entries()) {
        const listed = await eventually(
          () => api.call("GET", `/api/v1/webhooks/${id}/deliveries?limit=100`),
          (response) =>
            response.body.items.some(
              (item: { operationId: string; status: string }) => item.operationId === launch.id && item.status === "failed",
            ),
          20_000,
        );
        const delivery = listed.body.items.find((item: { operationId: string }) => item.operationId === launch.id);
        expect(delivery.status).to.equal("failed");
        expect(delivery.attempts, JSON.stringify(delivery)).to.be.greaterThan(1);
        expect(delivery.lastError).to.equal(expected[index]);
        expect(delivery.nextAttemptAt).to.equal(null);
        expect(delivery.deliveredAt).to.equal(null);
        expect(delivery.lastResponseStatus).to.equal(index === 1 ? 500 : null);
      }
      // Each attempt reached the receivers that listen, under the same event id.
      for (const target of [failing, hanging]) {
        const attempts = target.received.filter((event) => event.json.data.id === launch.id);
        expect(attempts.length).to.be.greaterThan(1);
        expect(new Set(attempts.map((event) => event.json.id)).size).to.equal(1);
      }
      const failingDelivery = (await api.call("GET", `/api/v1/webhooks/${hooks[1]}/deliveries?limit=100`)).body.items.find(
        (item: { operationId: string }) => item.operationId === launch.id,
      );
      expect(failing.received.filter((event) => event.json.data.id === launch.id).length).to.equal(failingDelivery.attempts);
    });
  });
}
