import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

import { expect } from "chai";
import { toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/types.js";
import { produceBlocksWhilePoolHolds, startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";
import { until } from "../helpers/until.js";

// A live chain's mined records are watched for reorgs by the pair's head follower, not by a look per record: the work
// of following history stays flat as it grows (docs/operations.md, "What the node is asked"). Counted through the
// store's leases and a counting relay in front of a real anvil (mining on send); no timing is asserted.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const SENDERS = 10;
const LAUNCHES = 300;
const WAVE = 100;
/** A live pair's poll interval (LiveChain.pollingIntervalMs). */
const POLL_MS = 1_000;
/** The idle window calls and leases are counted over (the measurement, not a wait for something). */
const IDLE_WINDOW_MS = 8 * POLL_MS;
/** The tracker's records per pass (tracker.ts). */
const BATCH = 50;

const measure = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("mined records on a live chain watched by its head follower (anvil, counting relay, SQLite store)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let proxy: CountingProxy;
  let dataDir: string;
  let store: Store;
  let service: TokenService;
  let senders: Array<{ address: string; privateKey: string }>;
  const mined: Array<{ id: string; blockNumber?: number | null }> = [];
  /** The ids each lease of the tracker took, in order. */
  const leases: string[][] = [];

  const startService = () => createTokenService({ hre, env: {}, operationStore: store, rpcUrls: { "ethereum/sepolia": proxy.url } });
  const launch = (index: number) => {
    const sender = senders[index % SENDERS]!;
    return service.operations.launch({
      ...SEPOLIA,
      type: "ERC20",
      token: { name: `Watched ${index}`, symbol: `W${index}`, initialSupply: "1" },
      sender: sender.address,
      privateKey: sender.privateKey,
    });
  };

  /** Records the tracker would look at before `time` (read beside the store, as a second reader of its file). */
  const dueBefore = (time: number): number => {
    const database = new DatabaseSync(path.join(dataDir, "store.sqlite"), { readOnly: true });
    try {
      const row = database.prepare("select count(*) as due from operations where next_check_at <= ?").get(time) as { due: number };
      return Number(row.due);
    } finally {
      database.close();
    }
  };

  before(async function () {
    node = await startAnvil();
    proxy = await startCountingProxy(node.url);
    dataDir = await mkdtemp(path.join(os.tmpdir(), "reorg-watch-"));
    store = await openStore({ dataDir });
    const lease = store.leaseDueOperations.bind(store);
    store.leaseDueOperations = async (...args) => {
      const leased = await lease(...args);
      if (leased.length > 0) leases.push(leased.map(({ id }) => id));
      return leased;
    };
    service = await startService();
    senders = Array.from({ length: SENDERS }, () => service.createWallet(SEPOLIA));
    for (const sender of senders) await node.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 24n)]);
  });

  after(async function () {
    await service?.close();
    await store?.close();
    await proxy?.close();
    await node?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it(`after ${LAUNCHES} launches, an idle window leases no record and reads only the head, once per poll interval`, async function () {
    // Anvil mining on send mines what its pool holds ready into one 30 M-gas block when a transaction comes, and leaves
    // the rest until the next one comes (foundry-rs/foundry#10122): ten senders' groups arriving together can leave
    // deployments there that nothing sends a block for, as a live chain would. While the waves run, a block is asked
    // for (beside the counting relay) whenever the pool holds transactions at two looks in a row.
    const producer = produceBlocksWhilePoolHolds(node);
    try {
      for (let first = 0; first < LAUNCHES; first += WAVE) {
        const settled = await Promise.all(
          Array.from({ length: WAVE }, async (_, index) => service.operations.settle(await launch(first + index), 60_000)),
        );
        expect(settled.filter((record) => record.status !== "mined").map(({ status }) => status)).to.deep.equal([]);
        mined.push(...settled);
      }
    } finally {
      await producer.stop();
    }
    const heights = new Set(mined.map((record) => record.blockNumber));
    // Each record is looked at once after it was mined (its block canonical), and its watch handed to the follower.
    await until(() => service.retained().following.watchedHeights === heights.size, "every record's watch taken over", 30_000, 50);
    // Each record's own look after it was mined has come: none is due before the idle window ends (several records
    // share a block, so every height being watched does not yet say that every record was looked at).
    await until(() => dueBefore(Date.now() + IDLE_WINDOW_MS + POLL_MS) === 0, "every record looked at once mined", 30_000, 50);

    const calls = proxy.calls.length;
    const leased = leases.length;
    await measure(IDLE_WINDOW_MS);
    expect(leases.slice(leased), "no record looked at while idle").to.deep.equal([]);
    const window = proxy.calls.slice(calls);
    const methods = [...new Set(window.map(({ method, params }) => `${method} ${String(params[0])}`))];
    expect(methods, "the head only").to.deep.equal(window.length === 0 ? [] : ["eth_getBlockByNumber latest"]);
    // Still followed: the head is read (a reorg is seen), at most once per poll interval.
    expect(window.length).to.be.within(1, IDLE_WINDOW_MS / POLL_MS + 1);
    expect(service.retained().following.watchedHeights).to.equal(heights.size);
    // However long the history, a block is read once: its receipts once, its header (when not known from them) once.
    const once = (method: string) => {
      const blocks = proxy.calls
        .filter((call) => call.method === method && call.params[0] !== "latest")
        .map(({ params }) => String(params[0]));
      const twice = blocks.filter((block, index) => blocks.indexOf(block) !== index);
      expect(blocks.length, `${method} of a block already read: ${twice.join(", ")}`).to.equal(new Set(blocks).size);
    };
    once("eth_getBlockReceipts");
    once("eth_getBlockByNumber");
  });

  it("sends a record back to pending when a reorg reaches its watched block; it is mined again", async function () {
    const last = mined.reduce((latest, record) => (record.blockNumber! > latest.blockNumber! ? record : latest));
    // The last two blocks replaced by others at the same heights: the follower walks back to the fork and reports it.
    await node.rpc("anvil_reorg", [2, []]);
    await until(
      async () => {
        const record = await store.getOperation(last.id);
        return record?.status === "mined" && record.transitions.some(({ reason }) => reason.startsWith("reorg"));
      },
      "the record in the replaced block back to pending, then mined again",
      30_000,
      50,
    );
    const again = (await store.getOperation(last.id))!;
    expect(again.blockNumber).to.not.equal(last.blockNumber);
    const statuses = again.transitions.map(({ status }) => status);
    const reorg = again.transitions.findIndex(({ reason }) => reason.startsWith("reorg"));
    // Back to pending at the reorg (then, the node no longer holding it, sent again from its raw form), mined again.
    expect(statuses.slice(0, reorg + 1), JSON.stringify(again.transitions)).to.deep.equal(["signed", "pending", "mined", "pending"]);
    expect(statuses.at(-1)).to.equal("mined");
  });

  it("after a restart, takes a launch's first look before the watched records, then each of those once", async function () {
    await service.close();
    leases.length = 0;
    service = await startService();
    const outcome = await launch(LAUNCHES);
    // Passes that began before the node accepted the launch (a loaded machine signs slowly) could not take it.
    const accepted = leases.length;
    const settled = await service.operations.settle(outcome, 60_000);
    expect(settled.status).to.equal("mined");
    // The watched records were all due when the tracker started: once the launch was accepted, at most the pass in
    // flight went before its first look.
    const first = leases.findIndex((ids) => ids.includes(outcome.id));
    expect(first).to.be.at.least(accepted);
    expect(leases.slice(accepted, first).flat().length, "records looked at before the launch").to.be.at.most(BATCH);
    const records = await Promise.all([...mined, settled].map((record) => store.getOperation(record.id)));
    const heights = new Set(records.map((record) => record!.blockNumber));
    await until(
      () => service.retained().following.watchedHeights === heights.size,
      "the watches taken over again by this process's follower",
      30_000,
      50,
    );
  });
});
