import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";

import { eventsOf, type ChainEvent, type ContractEvent } from "../../../src/core/notifications/match.js";
import type { FoundEvent, NewSubscription, ScannedHash } from "../../../src/core/notifications/types.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import type { WebhookEvent } from "../../../src/webhooks/events.js";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/types.js";
import { expectServiceError } from "../../helpers/errors.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { until } from "../../helpers/until.js";

// The SQL store of chain notifications (core/notifications/types.ts), on both databases: subscriptions and their pages,
// the per-pair scan lease, commits that deliver what is due (to the feed and the webhook outbox, once), and rewinds.

const CHAIN = "ethereum";
const WATCHED = "0x2222222222222222222222222222222222222222";
const SENDER = "0x1111111111111111111111111111111111111111";
const TOKEN = "0x3333333333333333333333333333333333333333";

const hashOf = (number: number, fork = "a") => `0x${fork.repeat(2)}${number.toString(16).padStart(62, "0")}`;
const txHash = () => `0x${randomUUID().replaceAll("-", "").repeat(2)}`;

/** A pair of its own for each test: the store is shared by the tests of a backend. */
const freshNetwork = () => `net-${randomUUID().slice(0, 8)}`;

function subscription(apiKeyId: string | null, network: string, overrides: Partial<NewSubscription> = {}): NewSubscription {
  return {
    id: `sub_${randomUUID().replaceAll("-", "")}`,
    apiKeyId,
    chain: CHAIN,
    network,
    target: { kind: "address", address: WATCHED, assets: ["native", "erc20"] },
    confirmations: 0,
    fromBlock: null,
    startBlock: 1,
    ...overrides,
  };
}

/** The native transfer to the watched address in block `number`, as the matcher finds it for `subscriptionId`. */
function activity(subscriptionId: string, network: string, number: number, fork = "a", transactionHash = txHash()): ChainEvent {
  const [event] = eventsOf(
    {
      chain: CHAIN,
      network,
      number,
      hash: hashOf(number, fork),
      logs: [],
      transfers: [{ transactionHash, from: SENDER, to: WATCHED, value: "1000" }],
    },
    [{ id: subscriptionId, target: { kind: "address", address: WATCHED, assets: ["native"] } }],
  );
  return event!;
}

function contractEvent(subscriptionId: string, network: string, number: number): ContractEvent {
  const [event] = eventsOf(
    {
      chain: CHAIN,
      network,
      number,
      hash: hashOf(number),
      logs: [{ address: TOKEN, topics: [`0x${"ab".repeat(32)}`], data: "0x", logIndex: 0, transactionHash: txHash() }],
      transfers: [],
    },
    [{ id: subscriptionId, target: { kind: "contract", contract: TOKEN, events: null } }],
  );
  return event as ContractEvent;
}

const found = (event: ChainEvent, confirmations: number): FoundEvent => ({
  event,
  dueAt: event.blockNumber + Math.max(confirmations, 1) - 1,
});
const blocks = (from: number, to: number, fork = "a"): ScannedHash[] =>
  Array.from({ length: to - from + 1 }, (_, index) => ({ number: from + index, hash: hashOf(from + index, fork) }));

const STORES = [
  {
    name: "embedded SQLite",
    async open(_context: Mocha.Context) {
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-notify-"));
      return { open: () => openStore({ dataDir }), cleanup: () => rm(dataDir, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL server",
    async open(context: Mocha.Context) {
      const schema = await freshPostgresSchema(context, "hts_notify");
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-notify-unused-"));
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
  describe(`notification store (${variant.name})`, function () {
    this.timeout(60_000);
    let store: Store;
    let cleanup: () => Promise<void> = async () => undefined;
    let kicks = 0;

    before(async function () {
      const backend = await variant.open(this);
      cleanup = backend.cleanup;
      store = await backend.open();
      store.webhooks.onQueued(() => kicks++);
    });

    after(async function () {
      await store?.close();
      await cleanup();
    });

    const webhook = async (apiKeyId: string | null, events: string[]) =>
      (await store.webhooks.createWebhook(apiKeyId, { url: "http://127.0.0.1:1/", events: events as WebhookEvent[], secret: "whsec_test" }))
        .id;
    const deliveries = async (apiKeyId: string | null, webhookId: string) =>
      (await store.webhooks.listDeliveries(apiKeyId, webhookId, { limit: 100 }))!.items;
    const feed = async (apiKeyId: string | null, subscriptionId: string) =>
      (await store.notifications.listEvents(apiKeyId, subscriptionId, { limit: 100 }))!.items;

    describe("subscriptions", function () {
      it("creates, reads, pages newest first and deletes, each key seeing its own only", async function () {
        const [alice, bob] = [randomUUID(), randomUUID()];
        const network = freshNetwork();
        const n = store.notifications;
        const first = await n.createSubscription(subscription(alice, network, { confirmations: 3, startBlock: 7 }));
        expect(first).to.deep.include({ apiKeyId: alice, chain: CHAIN, network, confirmations: 3, fromBlock: null, startBlock: 7 });
        expect(first.backfillNext).to.equal(null);
        expect(first.target).to.deep.equal({ kind: "address", address: WATCHED, assets: ["native", "erc20"] });
        expect(Date.parse(first.createdAt)).to.be.greaterThan(0);
        const created = [first];
        for (let index = 0; index < 2; index++) created.push(await n.createSubscription(subscription(alice, network)));
        const bobs = await n.createSubscription(subscription(bob, network));
        const keyless = await n.createSubscription(subscription(null, network));

        const page1 = await n.listSubscriptions(alice, { limit: 2 });
        expect(page1.items).to.have.length(2);
        expect(page1.nextCursor).to.be.a("string");
        const page2 = await n.listSubscriptions(alice, { limit: 2, cursor: page1.nextCursor! });
        expect(page2.nextCursor).to.equal(null);
        const listed = [...page1.items, ...page2.items];
        // Newest first: the reverse of creation (ties on the clock broken by id, so compare as a set and by time).
        expect(listed.map((item) => item.id)).to.have.members(created.map((item) => item.id));
        for (let index = 1; index < listed.length; index++)
          expect(Date.parse(listed[index - 1]!.createdAt)).to.be.at.least(Date.parse(listed[index]!.createdAt));
        expect(listed[0]).to.deep.equal(await n.getSubscription(alice, listed[0]!.id));

        expect((await n.listSubscriptions(bob, { limit: 10 })).items.map((item) => item.id)).to.deep.equal([bobs.id]);
        expect((await n.listSubscriptions(null, { limit: 10 })).items.map((item) => item.id)).to.include(keyless.id);
        expect((await n.listSubscriptions(null, { limit: 10 })).items.map((item) => item.id)).not.to.include(first.id);
        expect(await n.getSubscription(bob, first.id)).to.equal(undefined);
        expect(await n.getSubscription(null, first.id)).to.equal(undefined);
        expect(await n.getSubscription(null, keyless.id)).to.deep.equal(keyless);

        // The scanner's lists take every owner's.
        expect((await n.subscriptionsOf(CHAIN, network)).map((item) => item.id)).to.have.members([
          ...created.map((item) => item.id),
          bobs.id,
          keyless.id,
        ]);
        expect(await n.watchedPairs()).to.deep.include({ chain: CHAIN, network });

        expect(await n.deleteSubscription(bob, first.id)).to.equal(false);
        expect(await n.deleteSubscription(null, first.id)).to.equal(false);
        expect(await n.deleteSubscription(alice, first.id)).to.equal(true);
        expect(await n.deleteSubscription(alice, first.id)).to.equal(false);
        expect(await n.getSubscription(alice, first.id)).to.equal(undefined);
        expect((await n.subscriptionsOf(CHAIN, network)).map((item) => item.id)).not.to.include(first.id);
        for (const item of [...created.slice(1), bobs, keyless]) await n.deleteSubscription(item.apiKeyId, item.id);
        expect(await n.watchedPairs()).not.to.deep.include({ chain: CHAIN, network });
      });

      it("refuses a cursor it did not issue and a limit out of range, naming the field", async function () {
        const n = store.notifications;
        const key = randomUUID();
        await expectServiceError(n.listSubscriptions(key, { limit: 10, cursor: "not-a-cursor" }), ErrorCode.INVALID_ARGUMENT, "cursor");
        const operationCursor = Buffer.from(JSON.stringify(["1700000000000", randomUUID()])).toString("base64url");
        await expectServiceError(n.listSubscriptions(key, { limit: 10, cursor: operationCursor }), ErrorCode.INVALID_ARGUMENT, "cursor");
        await expectServiceError(n.listSubscriptions(key, { limit: 0 }), ErrorCode.INVALID_ARGUMENT, "limit");
        await expectServiceError(n.listSubscriptions(key, { limit: 101 }), ErrorCode.INVALID_ARGUMENT, "limit");
      });

      it("sets backfillNext for a fromBlock below the pair's cursor, and its backfill clears it at the cursor", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        // No scan yet: the first scan starts at the lowest start, no backfill.
        expect((await n.createSubscription(subscription(key, network, { fromBlock: 5, startBlock: 5 }))).backfillNext).to.equal(null);
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).to.deep.equal({ nextBlock: null, recent: [] });
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(48, 49), found: [], nextBlock: 50, head: 49 })).to.equal(
          true,
        );

        const behind = await n.createSubscription(subscription(key, network, { fromBlock: 30, startBlock: 30 }));
        expect(behind.backfillNext).to.equal(30);
        expect((await n.createSubscription(subscription(key, network, { fromBlock: 60, startBlock: 60 }))).backfillNext).to.equal(null);
        expect((await n.createSubscription(subscription(key, network, { fromBlock: 50, startBlock: 50 }))).backfillNext).to.equal(null);
        expect((await n.createSubscription(subscription(key, network, { startBlock: 55 }))).backfillNext).to.equal(null);

        const old = activity(behind.id, network, 35);
        const backfill = { subscriptionId: behind.id };
        expect(
          await n.commitScan(CHAIN, network, "scanner", { blocks: [], found: [found(old, 0)], nextBlock: 40, head: 49, backfill }),
        ).to.equal(true);
        expect((await n.getSubscription(key, behind.id))!.backfillNext).to.equal(40);
        // The pair's cursor and hashes stay as they were.
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).to.deep.equal({ nextBlock: 50, recent: blocks(48, 49) });
        const [delivered] = await feed(key, behind.id);
        expect(delivered).to.deep.include({ id: old.id, type: "chain.activity" });
        expect(delivered!.data).to.deep.equal({ ...old, confirmations: 15 });

        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: [], found: [], nextBlock: 50, head: 49, backfill })).to.equal(true);
        expect((await n.getSubscription(key, behind.id))!.backfillNext).to.equal(null);
      });
    });

    describe("the scan lease", function () {
      it("is one owner's at a time, renewed by it, taken over once run out, and free at once when released", async function () {
        const n = store.notifications;
        const network = freshNetwork();
        expect(await n.leaseScan(CHAIN, network, "a", 60_000)).to.deep.equal({ nextBlock: null, recent: [] });
        expect(await n.leaseScan(CHAIN, network, "b", 60_000)).to.equal(undefined);
        expect(await n.leaseScan(CHAIN, network, "a", 60_000)).to.deep.equal({ nextBlock: null, recent: [] });
        expect(await n.leaseScan(CHAIN, network, "b", 60_000)).to.equal(undefined);

        // Renewed for a moment only: once it ran out (on the database's clock), b takes it, and a is out.
        expect(await n.leaseScan(CHAIN, network, "a", 1)).not.to.equal(undefined);
        await until(async () => (await n.leaseScan(CHAIN, network, "b", 60_000)) !== undefined, "b takes the lease a let run out");
        expect(await n.leaseScan(CHAIN, network, "a", 60_000)).to.equal(undefined);

        await n.releaseScan(CHAIN, network, "a"); // not a's: changes nothing
        expect(await n.leaseScan(CHAIN, network, "a", 60_000)).to.equal(undefined);
        await n.releaseScan(CHAIN, network, "b");
        expect(await n.leaseScan(CHAIN, network, "a", 60_000)).to.deep.equal({ nextBlock: null, recent: [] });
      });

      it("gives a lease two owners ask for at once to one of them", async function () {
        const n = store.notifications;
        const network = freshNetwork();
        const owners = ["a", "b", "c", "d"];
        const answers = await Promise.all(owners.map((owner) => n.leaseScan(CHAIN, network, owner, 60_000)));
        expect(answers.filter((answer) => answer !== undefined)).to.have.length(1);
      });

      it("writes nothing for an owner that lost the lease, and answers false", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        const sub = await n.createSubscription(subscription(key, network));
        const hook = await webhook(key, ["chain.activity", "chain.activity.removed"]);
        expect(await n.leaseScan(CHAIN, network, "a", 1)).not.to.equal(undefined);
        await until(async () => (await n.leaseScan(CHAIN, network, "b", 60_000)) !== undefined, "b takes the lease");

        const event = activity(sub.id, network, 10);
        const scan = { blocks: blocks(10, 10), found: [found(event, 0)], nextBlock: 11, head: 10 };
        expect(await n.commitScan(CHAIN, network, "a", scan)).to.equal(false);
        expect(await n.commitScan(CHAIN, network, "a", { ...scan, backfill: { subscriptionId: sub.id } })).to.equal(false);
        expect(await n.rewindScan(CHAIN, network, "a", 5)).to.equal(false);
        expect(await feed(key, sub.id)).to.deep.equal([]);
        expect(await deliveries(key, hook)).to.deep.equal([]);
        expect(await n.leaseScan(CHAIN, network, "b", 60_000)).to.deep.equal({ nextBlock: null, recent: [] });

        // The holder's commit of the same range goes through.
        expect(await n.commitScan(CHAIN, network, "b", scan)).to.equal(true);
        expect((await feed(key, sub.id)).map((item) => item.id)).to.deep.equal([event.id]);
      });
    });

    describe("commits", function () {
      it("delivers only the events due at the head, with their confirmations, once however often committed", async function () {
        const n = store.notifications;
        const [alice, bob] = [randomUUID(), randomUUID()];
        const network = freshNetwork();
        const atOnce = await n.createSubscription(subscription(alice, network, { confirmations: 0 }));
        const patient = await n.createSubscription(subscription(alice, network, { confirmations: 3 }));
        const contract = await n.createSubscription(
          subscription(alice, network, { target: { kind: "contract", contract: TOKEN, events: null } }),
        );
        const activityHook = await webhook(alice, ["chain.activity"]);
        const eventHook = await webhook(alice, ["chain.event"]);
        const othersHook = await webhook(bob, ["chain.activity", "chain.event"]);
        const keylessHook = await webhook(null, ["chain.activity", "chain.event"]);

        const quick = activity(atOnce.id, network, 10);
        const slow = activity(patient.id, network, 10);
        const log = contractEvent(contract.id, network, 10);
        const scan = { blocks: blocks(9, 10), found: [found(quick, 0), found(slow, 3), found(log, 1)], nextBlock: 11, head: 10 };
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);
        const kicked = kicks;
        expect(await n.commitScan(CHAIN, network, "scanner", scan)).to.equal(true);
        expect(kicks, "the delivery worker is kicked after the commit").to.be.greaterThan(kicked);

        const [delivered] = await feed(alice, atOnce.id);
        expect(delivered).to.deep.include({ id: quick.id, type: "chain.activity" });
        expect(delivered!.data).to.deep.equal({ ...quick, confirmations: 1 });
        expect(Date.parse(delivered!.createdAt)).to.be.greaterThan(0);
        expect(await feed(alice, patient.id)).to.deep.equal([]);
        expect((await feed(alice, contract.id)).map((item) => [item.id, item.type])).to.deep.equal([[log.id, "chain.event"]]);

        // The owner's webhooks get what they listed; another key's and the keyless ones nothing.
        const queued = await deliveries(alice, activityHook);
        expect(queued.map((item) => [item.eventType, item.operationId, item.status])).to.deep.equal([
          ["chain.activity", atOnce.id, "pending"],
        ]);
        expect(queued[0]!.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect((await deliveries(alice, eventHook)).map((item) => item.eventType)).to.deep.equal(["chain.event"]);
        expect(await deliveries(bob, othersHook)).to.deep.equal([]);
        expect(await deliveries(null, keylessHook)).to.deep.equal([]);

        // The same range again (a replica that crashed before it knew its commit went through): nothing new.
        expect(await n.commitScan(CHAIN, network, "scanner", scan)).to.equal(true);
        expect(await feed(alice, atOnce.id)).to.have.length(1);
        expect(await deliveries(alice, activityHook)).to.have.length(1);

        // Two blocks later the patient one has its three confirmations.
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(11, 12), found: [], nextBlock: 13, head: 12 })).to.equal(
          true,
        );
        const [late] = await feed(alice, patient.id);
        expect(late!.data).to.deep.equal({ ...slow, confirmations: 3 });
        expect(await deliveries(alice, activityHook)).to.have.length(2);
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).to.deep.equal({ nextBlock: 13, recent: blocks(9, 12) });

        // The delivery carries the event as the feed does.
        const due = await store.webhooks.leaseDueDeliveries(`worker-${randomUUID()}`, 60_000, 100);
        const ours = due.filter((item) => item.webhookId === activityHook);
        expect(ours.map((item) => item.payload)).to.deep.include({ ...quick, confirmations: 1 });
      });

      it("keeps the hashes of the newest 128 blocks only", async function () {
        const n = store.notifications;
        const network = freshNetwork();
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(1, 100), found: [], nextBlock: 101, head: 100 })).to.equal(
          true,
        );
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(101, 150), found: [], nextBlock: 151, head: 150 })).to.equal(
          true,
        );
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).to.deep.equal({ nextBlock: 151, recent: blocks(23, 150) });
      });

      it("drops the events of a subscription deleted since the scan read it, and commits the rest", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        const kept = await n.createSubscription(subscription(key, network));
        const gone = await n.createSubscription(subscription(key, network));
        const keptEvent = activity(kept.id, network, 3);
        const goneEvent = activity(gone.id, network, 3);
        expect(await n.deleteSubscription(key, gone.id)).to.equal(true);
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);
        const scan = { blocks: blocks(3, 3), found: [found(goneEvent, 0), found(keptEvent, 0)], nextBlock: 4, head: 3 };
        expect(await n.commitScan(CHAIN, network, "scanner", scan)).to.equal(true);
        expect((await feed(key, kept.id)).map((item) => item.id)).to.deep.equal([keptEvent.id]);
        expect(await n.listEvents(key, gone.id, { limit: 10 })).to.equal(undefined);
      });

      it("deletes a subscription's events and feed with it, its deliveries staying in the outbox", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        const sub = await n.createSubscription(subscription(key, network, { confirmations: 5 }));
        const hook = await webhook(key, ["chain.activity"]);
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);
        const delivered = activity(sub.id, network, 1);
        const held = activity(sub.id, network, 2);
        const scan = { blocks: blocks(1, 2), found: [found(delivered, 1), found(held, 5)], nextBlock: 3, head: 2 };
        expect(await n.commitScan(CHAIN, network, "scanner", scan)).to.equal(true);
        expect(await feed(key, sub.id)).to.have.length(1);
        expect(await n.deleteSubscription(key, sub.id)).to.equal(true);
        expect(await n.listEvents(key, sub.id, { limit: 10 })).to.equal(undefined);
        // Its held event is gone: a later head delivers nothing to anyone.
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(3, 9), found: [], nextBlock: 10, head: 9 })).to.equal(true);
        expect((await deliveries(key, hook)).map((item) => item.operationId)).to.deep.equal([sub.id]);
      });
    });

    describe("rewinds", function () {
      it("drops held events, removes delivered ones (fed and queued), resets the cursor, and feeds an event found again", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        const sub = await n.createSubscription(subscription(key, network, { confirmations: 2 }));
        const baseHook = await webhook(key, ["chain.activity"]);
        const removalsHook = await webhook(key, ["chain.activity.removed"]);
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);

        const tx = txHash();
        const safe = activity(sub.id, network, 18);
        const reorged = activity(sub.id, network, 20, "a", tx);
        const pending = activity(sub.id, network, 22);
        const scan = {
          blocks: blocks(18, 22),
          found: [found(safe, 2), found(reorged, 2), found(pending, 2)],
          nextBlock: 23,
          head: 22,
        };
        expect(await n.commitScan(CHAIN, network, "scanner", scan)).to.equal(true);
        expect((await feed(key, sub.id)).map((item) => item.id)).to.deep.equal([safe.id, reorged.id]);

        expect(await n.rewindScan(CHAIN, network, "scanner", 19)).to.equal(true);
        const afterRewind = await feed(key, sub.id);
        expect(afterRewind.map((item) => [item.id, item.type])).to.deep.equal([
          [safe.id, "chain.activity"],
          [reorged.id, "chain.activity"],
          [reorged.id, "chain.activity.removed"],
        ]);
        // The removal carries the event as it was delivered.
        expect(afterRewind[2]!.data).to.deep.equal(afterRewind[1]!.data);
        expect(afterRewind[2]!.data).to.deep.equal({ ...reorged, confirmations: 3 });
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).to.deep.equal({ nextBlock: 20, recent: blocks(18, 19) });
        expect((await deliveries(key, baseHook)).map((item) => item.eventType)).to.have.members([
          "chain.activity",
          "chain.activity",
          "chain.activity.removed",
        ]);
        expect((await deliveries(key, removalsHook)).map((item) => item.eventType)).to.deep.equal(["chain.activity.removed"]);

        // The new branch holds the same transaction in another block: found again, fed again under the same id. The
        // held event of block 22 was dropped: it is not delivered unless found again.
        const again = activity(sub.id, network, 21, "b", tx);
        expect(again.id).to.equal(reorged.id);
        const rescan = { blocks: blocks(20, 23, "b"), found: [found(again, 2)], nextBlock: 24, head: 23 };
        expect(await n.commitScan(CHAIN, network, "scanner", rescan)).to.equal(true);
        const refed = await feed(key, sub.id);
        expect(refed.map((item) => [item.id, item.type])).to.deep.equal([
          [safe.id, "chain.activity"],
          [reorged.id, "chain.activity"],
          [reorged.id, "chain.activity.removed"],
          [reorged.id, "chain.activity"],
        ]);
        expect(refed[3]!.data).to.deep.equal({ ...again, confirmations: 3 });
        expect(await deliveries(key, baseHook)).to.have.length(4);
        expect(await n.commitScan(CHAIN, network, "scanner", rescan)).to.equal(true);
        expect(await feed(key, sub.id)).to.have.length(4);
        expect(await deliveries(key, baseHook)).to.have.length(4);
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).to.deep.equal({
          nextBlock: 24,
          recent: [...blocks(18, 19), ...blocks(20, 23, "b")],
        });
      });

      it("ends a backfill that went past the rewound cursor", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(90, 99), found: [], nextBlock: 100, head: 99 })).to.equal(
          true,
        );
        const sub = await n.createSubscription(subscription(key, network, { fromBlock: 10, startBlock: 10 }));
        const backfill = { subscriptionId: sub.id };
        expect(await n.commitScan(CHAIN, network, "scanner", { blocks: [], found: [], nextBlock: 95, head: 99, backfill })).to.equal(true);
        expect((await n.getSubscription(key, sub.id))!.backfillNext).to.equal(95);
        expect(await n.rewindScan(CHAIN, network, "scanner", 93)).to.equal(true);
        expect((await n.getSubscription(key, sub.id))!.backfillNext).to.equal(null);
      });
    });

    describe("the feed", function () {
      it("pages oldest first after a cursor, and answers the same cursor again until there is more", async function () {
        const n = store.notifications;
        const key = randomUUID();
        const network = freshNetwork();
        const sub = await n.createSubscription(subscription(key, network));
        const other = await n.createSubscription(subscription(key, network));
        expect(await n.leaseScan(CHAIN, network, "scanner", 60_000)).not.to.equal(undefined);
        const events = [1, 1, 2, 3, 4].map((number) => activity(sub.id, network, number));
        const scan = { blocks: blocks(1, 4), found: events.map((event) => found(event, 0)), nextBlock: 5, head: 4 };
        expect(await n.commitScan(CHAIN, network, "scanner", scan)).to.equal(true);

        const seen: string[] = [];
        let after: string | undefined;
        for (const size of [2, 2, 1]) {
          const page = (await n.listEvents(key, sub.id, { limit: 2, ...(after === undefined ? {} : { after }) }))!;
          expect(page.items).to.have.length(size);
          seen.push(...page.items.map((item) => item.id));
          after = page.nextCursor!;
        }
        // In block order, and within a block in the order found.
        expect(seen).to.deep.equal(events.map((event) => event.id));
        expect(await n.listEvents(key, sub.id, { limit: 2, after })).to.deep.equal({ items: [], nextCursor: null });

        const later = activity(sub.id, network, 5);
        expect(
          await n.commitScan(CHAIN, network, "scanner", { blocks: blocks(5, 5), found: [found(later, 0)], nextBlock: 6, head: 5 }),
        ).to.equal(true);
        const next = (await n.listEvents(key, sub.id, { limit: 2, after }))!;
        expect(next.items.map((item) => item.id)).to.deep.equal([later.id]);

        expect(await n.listEvents(randomUUID(), sub.id, { limit: 2 })).to.equal(undefined);
        expect(await n.listEvents(null, sub.id, { limit: 2 })).to.equal(undefined);
        await expectServiceError(n.listEvents(key, sub.id, { limit: 2, after: "not-a-cursor" }), ErrorCode.INVALID_ARGUMENT, "after");
        const subscriptionsCursor = (await n.listSubscriptions(key, { limit: 1 })).nextCursor!;
        await expectServiceError(n.listEvents(key, sub.id, { limit: 2, after: subscriptionsCursor }), ErrorCode.INVALID_ARGUMENT, "after");
        await expectServiceError(n.listEvents(key, other.id, { limit: 2, after: next.nextCursor! }), ErrorCode.INVALID_ARGUMENT, "after");
        await expectServiceError(n.listEvents(key, sub.id, { limit: 0 }), ErrorCode.INVALID_ARGUMENT, "limit");
      });
    });
  });
}
