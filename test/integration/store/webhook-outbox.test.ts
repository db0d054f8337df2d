import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";

import { openStore } from "../../../src/store/open-store.js";
import type { NewOperation, Store } from "../../../src/store/types.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

const KEY = "key-outbox";
const launchHash = `0x${"cd".repeat(32)}`;

function record(apiKeyId: string | null, overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId,
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: { name: "Token", symbol: "TKN" },
    sender: "0x1111111111111111111111111111111111111111",
    transactionHash: "0x" + "ab".repeat(32),
    contractAddress: null,
    status: "signed",
    error: null,
    ...overrides,
  };
}

const STORES = [
  {
    name: "embedded SQLite",
    async open(_context: Mocha.Context) {
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-outbox-"));
      return { open: () => openStore({ dataDir }), cleanup: () => rm(dataDir, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL server",
    async open(context: Mocha.Context) {
      const schema = await freshPostgresSchema(context, "hts_outbox");
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-outbox-unused-"));
      return {
        open: () => openStore({ dataDir, databaseUrl: schema.url }),
        async cleanup() {
          await schema.drop();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

for (const variant of STORES) {
  describe(`webhook outbox in the store (${variant.name})`, function () {
    this.timeout(60_000);
    let store: Store;
    let cleanup: () => Promise<void> = async () => undefined;
    let webhookId: string;

    before(async function () {
      const backend = await variant.open(this);
      cleanup = backend.cleanup;
      store = await backend.open();
      webhookId = (
        await store.webhooks.createWebhook(KEY, {
          url: "http://127.0.0.1:1/",
          events: ["operation.pending", "operation.mined", "operation.reorged"],
          secret: "whsec_test",
        })
      ).id;
    });

    after(async function () {
      await store?.close();
      await cleanup();
    });

    const eventsOf = async (operationId: string) =>
      (await store.webhooks.listDeliveries(KEY, webhookId, { limit: 100 }))!.items
        .filter((item) => item.operationId === operationId)
        .map((item) => item.eventType)
        .reverse();

    it("queues an event with each status change of a subscribed key's record, and none for the signed insert or an unchanged status", async function () {
      const launch = record(KEY);
      await store.insertOperation(launch);
      expect(await eventsOf(launch.id)).to.deep.equal([]);
      await store.changeOperation(launch.id, { status: "pending", reason: "accepted by the node" });
      // The same status again (a re-broadcast, a confirmation counted) is no event; nor is a change of fields only.
      await store.changeOperation(launch.id, { status: "pending", reason: "re-broadcast" });
      await store.changeOperation(launch.id, { checkInMs: 10 });
      await store.changeOperation(launch.id, { status: "mined", reason: "included" });
      await store.changeOperation(launch.id, { status: "pending", reason: "reorg" });
      // Listed newest first by the millisecond they were queued in: two changes within one millisecond may list either way.
      expect(await eventsOf(launch.id)).to.have.members(["operation.pending", "operation.mined", "operation.reorged"]);
    });

    it("queues nothing when the change does not apply, for another key, or for an event the webhook did not ask for", async function () {
      const guarded = record(KEY);
      await store.insertOperation(guarded);
      expect(await store.changeOperation(guarded.id, { status: "mined", from: ["pending"], reason: "x" })).to.equal(undefined);
      const other = record("another-key");
      await store.insertOperation(other);
      await store.changeOperation(other.id, { status: "pending", reason: "x" });
      const failed = record(KEY);
      await store.insertOperation(failed);
      await store.changeOperation(failed.id, { status: "failed", reason: "refused" });
      for (const id of [guarded.id, other.id, failed.id]) expect(await eventsOf(id)).to.deep.equal([]);

      // A webhook that asks for the final failures gets them, each once, under its own event id.
      const failures = await store.webhooks.createWebhook(KEY, {
        url: "http://127.0.0.1:1/",
        events: ["operation.failed", "operation.dropped"],
        secret: "whsec_failures",
      });
      const refused = record(KEY);
      const lost = record(KEY, { status: "pending" });
      await store.insertOperation(refused);
      await store.insertOperation(lost);
      await store.changeOperation(refused.id, { status: "failed", reason: "refused" });
      await store.changeOperation(lost.id, { status: "dropped", reason: "lost" });
      const queued = (await store.webhooks.listDeliveries(KEY, failures.id, { limit: 100 }))!.items;
      expect(queued.map((item) => [item.operationId, item.eventType])).to.have.deep.members([
        [refused.id, "operation.failed"],
        [lost.id, "operation.dropped"],
      ]);
      // The first webhook asked for neither; it got only the pending of the record inserted pending.
      expect(await eventsOf(refused.id)).to.deep.equal([]);
      expect(await eventsOf(lost.id)).to.deep.equal(["operation.pending"]);
      expect(await store.webhooks.deleteWebhook(KEY, failures.id)).to.equal(true);
    });

    it("queues the event of a record inserted in a final state (a bitcoin grant), and of every change in a tracker pass", async function () {
      const grant = record(KEY, { kind: "faucet", tokenType: null, status: "mined" });
      await store.insertOperation(grant);
      expect(await eventsOf(grant.id)).to.deep.equal(["operation.mined"]);
      const owner = `owner-${randomUUID()}`;
      const pass = [record(KEY, { lease: { owner, ms: 60_000 } }), record(KEY, { lease: { owner, ms: 60_000 } })];
      for (const item of pass) await store.insertOperation(item);
      await store.changeOperations(
        pass.map((item) => ({ id: item.id, change: { status: "pending" as const, reason: "accepted" } })),
        owner,
      );
      for (const item of pass) expect(await eventsOf(item.id)).to.deep.equal(["operation.pending"]);
    });

    it("queues both events of a record's two changes in one pass (pending, then mined), each with the record as it left it", async function () {
      const owner = `owner-${randomUUID()}`;
      const launch = record(KEY, { lease: { owner, ms: 60_000 } });
      await store.insertOperation(launch);
      await store.changeOperations(
        [
          { id: launch.id, change: { status: "pending", reason: "accepted" } },
          { id: launch.id, change: { status: "mined", reason: "included", blockNumber: 4, blockHash: "0xb4", checkInMs: null } },
        ],
        owner,
      );
      // Written in one commit: listed in either order (docs/webhooks.md: order them by `data.transitions`).
      expect(await eventsOf(launch.id)).to.have.members(["operation.pending", "operation.mined"]);
      const due = await store.webhooks.leaseDueDeliveries(`pair-${launch.id}`, 60_000, 500);
      const statuses = due
        .filter((delivery) => (delivery.payload as { id: string }).id === launch.id)
        .map((delivery) => [delivery.eventType, (delivery.payload as { status: string }).status]);
      expect(statuses).to.have.deep.members([
        ["operation.pending", "pending"],
        ["operation.mined", "mined"],
      ]);
    });

    it("queues operation.stuck once when the notice is set (with the transactions in the payload), and operation.cancelled", async function () {
      const hooks = await store.webhooks.createWebhook(KEY, {
        url: "http://127.0.0.1:1/",
        events: ["operation.stuck", "operation.cancelled"],
        secret: "whsec_stuck",
      });
      const launch = record(KEY, {
        transactions: [
          {
            transactionHash: launchHash,
            role: "original",
            rung: 0,
            nonce: 0,
            rawTransaction: null,
            signature: null,
            maxFeePerGas: "3",
            maxPriorityFeePerGas: "1",
            gasPrice: null,
            broadcast: true,
          },
        ],
        transactionHash: launchHash,
      });
      await store.insertOperation(launch);
      await store.changeOperation(launch.id, { status: "pending", reason: "accepted by the node" });
      await store.changeOperation(launch.id, { stuck: { transactionHash: launchHash, reason: "at the ceiling" }, checkInMs: 10 });
      await store.changeOperation(launch.id, { stuck: { transactionHash: launchHash, reason: "again" } });
      await store.changeOperation(launch.id, { status: "cancelled", reason: "cancelled", blockNumber: 4, blockHash: "0xb4" });
      const queued = (await store.webhooks.listDeliveries(KEY, hooks.id, { limit: 100 }))!.items.filter(
        (item) => item.operationId === launch.id,
      );
      expect(queued.map((item) => item.eventType).reverse()).to.deep.equal(["operation.stuck", "operation.cancelled"]);
      const due = await store.webhooks.leaseDueDeliveries(`stuck-${launch.id}`, 60_000, 500);
      const stuck = due.find(
        (delivery) => delivery.eventType === "operation.stuck" && (delivery.payload as { id: string }).id === launch.id,
      );
      expect(stuck?.payload).to.deep.include({
        status: "pending",
        stuck: { at: (stuck!.payload as { stuck: { at: string } }).stuck.at, transactionHash: launchHash, reason: "at the ceiling" },
      });
      expect((stuck?.payload as { transactions: unknown[] }).transactions).to.have.length(1);
      expect(await store.webhooks.deleteWebhook(KEY, hooks.id)).to.equal(true);
    });

    it("leases each due delivery to one owner at a time, hands an expired lease over, and records an outcome only under its lease", async function () {
      const launch = record(KEY);
      await store.insertOperation(launch);
      await store.changeOperation(launch.id, { status: "pending", reason: "x" });
      const [first, second] = await Promise.all([
        store.webhooks.leaseDueDeliveries("a", 300, 100),
        store.webhooks.leaseDueDeliveries("b", 300, 100),
      ]);
      const ids = [...first, ...second].map((delivery) => delivery.id);
      expect(new Set(ids).size, "no delivery leased twice").to.equal(ids.length);
      const mine = [...first, ...second].find((delivery) => delivery.payload && (delivery.payload as { id: string }).id === launch.id)!;
      expect(mine.secret).to.equal("whsec_test");
      const holder = first.includes(mine) ? "a" : "b";
      // Not the holder: nothing recorded.
      await store.webhooks.finishDelivery(mine.id, "c", { delivered: true, responseStatus: 200 });
      const listed = async () =>
        (await store.webhooks.listDeliveries(KEY, webhookId, { limit: 100 }))!.items.find((item) => item.id === mine.id)!;
      expect((await listed()).status).to.equal("pending");
      // After its lease, another owner may take it.
      let taken: string[] = [];
      const deadline = Date.now() + 10_000;
      while (!taken.includes(mine.id) && Date.now() < deadline)
        taken = (await store.webhooks.leaseDueDeliveries("c", 60_000, 100)).map((delivery) => delivery.id);
      expect(taken).to.include(mine.id);
      await store.webhooks.finishDelivery(mine.id, holder, { delivered: true, responseStatus: 200 });
      expect((await listed()).status, "the old holder's outcome").to.equal("pending");
      await store.webhooks.finishDelivery(mine.id, "c", {
        delivered: false,
        error: "answered HTTP 500",
        responseStatus: 500,
        retryInMs: 10,
        windowMs: 60_000,
      });
      // Two attempts started: the first holder's (its outcome never recorded, as after a crash) and c's.
      expect(await listed()).to.include({ status: "pending", attempts: 2, lastError: "answered HTTP 500", lastResponseStatus: 500 });
      taken = [];
      while (!taken.includes(mine.id) && Date.now() < deadline)
        taken = (await store.webhooks.leaseDueDeliveries("c", 60_000, 100)).map((delivery) => delivery.id);
      await store.webhooks.finishDelivery(mine.id, "c", {
        delivered: false,
        error: "answered HTTP 500",
        responseStatus: 500,
        retryInMs: 120_000,
        windowMs: 60_000,
      });
      expect(await listed()).to.include({ status: "failed", attempts: 3, nextAttemptAt: null });
    });
  });
}
