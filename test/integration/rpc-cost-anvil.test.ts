import { expect } from "chai";
import { toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import { produceBlocksWhilePoolHolds, startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";

// What following launches costs the node, counted in JSON-RPC calls (a batch's one by one) through a relay in front of a
// real anvil mining on send (docs/operations.md, "What the node is asked"). The minimum is one send and one receipt per
// launch and one head read per block; an idle chain costs at most one head read per poll interval (a live pair's: 1 s),
// and never the same block twice while the head stands still.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const SETTLE_MS = 120_000;
/** A live pair's poll interval (LiveChain.pollingIntervalMs). */
const POLL_MS = 1_000;
const STEADY = 50;
const BURST = 200;
/** The bounded run before the idle window: the 1,000 launches, in bursts. */
const RUN = 1_000;
/**
 * The idle window: calls are counted over it (it is the measurement, not a wait for something). Longer than the first
 * reorg look at a record mined at its start (5 poll intervals), so every record's watch looks at least once in it.
 */
const IDLE_WINDOW_MS = 8 * POLL_MS;

const measure = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The launches' own preparation: nonce, balance, fee suggestions and gas, asked before a send. */
const PREPARATION = new Set(["eth_getTransactionCount", "eth_getBalance", "eth_gasPrice", "eth_maxPriorityFeePerGas", "eth_estimateGas"]);
const isLatestRead = (call: { method: string; params: unknown[] }) => call.method === "eth_getBlockByNumber" && call.params[0] === "latest";

interface Tally {
  total: number;
  sends: number;
  /** Head reads, block reads, receipts, lookups by hash: what following the records cost. */
  following: number;
  byHash: number;
  byMethod: Record<string, number>;
}

function tally(proxy: CountingProxy, from: number): Tally {
  const calls = proxy.calls.slice(from);
  const byMethod: Record<string, number> = {};
  for (const { method } of calls) byMethod[method] = (byMethod[method] ?? 0) + 1;
  const sends = byMethod.eth_sendRawTransaction ?? 0;
  // The fees come from the head the follower reads (a following call); the suggested priority fee is preparation.
  const preparation = calls.filter((call) => PREPARATION.has(call.method)).length;
  return {
    total: calls.length,
    sends,
    following: calls.length - sends - preparation,
    byHash: byMethod.eth_getTransactionByHash ?? 0,
    byMethod,
  };
}

describe("what following launches costs the node (counting relay, anvil mining on send)", function () {
  let node: AnvilNode;
  let proxy: CountingProxy;
  let service: TokenService;
  let owner: { address: string; privateKey: string };

  const launch = (index: number) =>
    service.operations.launch({
      ...SEPOLIA,
      type: "ERC20",
      token: { name: `Cost ${index}`, symbol: `C${index}`, initialSupply: "1" },
      sender: owner.address,
      privateKey: owner.privateKey,
    });

  /**
   * A burst's sends arrive in batches: anvil mining on send can leave what does not fit its block in its pool with no
   * transaction coming after (in one CI run, over 100 of a 200 burst were still pending after 120 s). While the burst runs, blocks come as on a live
   * chain; the producer asks anvil directly, so its calls are not counted.
   */
  async function burst(count: number, first: number): Promise<void> {
    const producer = produceBlocksWhilePoolHolds(node);
    try {
      const records = await Promise.all(Array.from({ length: count }, (_, index) => launch(first + index)));
      const settled = await Promise.all(records.map((record) => service.operations.settle(record, SETTLE_MS)));
      expect(settled.filter((record) => record.status !== "mined").map((record) => record.status)).to.deep.equal([]);
    } finally {
      await producer.stop();
    }
  }

  before(async function () {
    node = await startAnvil();
    proxy = await startCountingProxy(node.url);
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
    owner = service.createWallet(SEPOLIA);
    await node.rpc("anvil_setBalance", [owner.address, toQuantity(10n ** 24n)]);
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.stop();
  });

  it("asks nothing before the first launch", async function () {
    const from = proxy.calls.length;
    await measure(3 * POLL_MS);
    expect(proxy.calls.slice(from)).to.deep.equal([]);
  });

  it(`steady: ${STEADY} launches one after another, each waited mined, cost at most 4 calls each: one send, 2 to follow`, async function () {
    // A first launch asks once what the later ones reuse (the chain id, the gas of the deployment's shape: name and
    // symbol lengths, the suggested priority fee); the steady ones are all of its shape (two-digit names).
    expect((await service.operations.settle(await launch(99), SETTLE_MS)).status).to.equal("mined");
    const from = proxy.calls.length;
    for (let index = 10; index < 10 + STEADY; index++) {
      const record = await service.operations.settle(await launch(index), SETTLE_MS);
      expect(record.status).to.equal("mined");
    }
    const launched = proxy.calls.length;
    // The launches' reorg watch comes within the window: head reads only, one per poll interval at most.
    await measure(IDLE_WINDOW_MS);
    const cost = tally({ ...proxy, calls: proxy.calls.slice(0, launched) }, from);
    const detail = JSON.stringify(cost.byMethod);
    expect(cost.sends, detail).to.equal(STEADY);
    expect(cost.byHash, `no lookup by hash: ${detail}`).to.equal(0);
    // Each launch: the sender's next nonce (the key may send elsewhere too: the fees come from the head followed anyway,
    // and the sender's funds are counted by its own sends while that nonce shows no other), its send, a head read and its
    // block's receipts. anvil may answer a send before its block is the head: the first look then finds no block, and
    // the next one reads the head again (and, at times, the sender's nonce): at most two such looks in the 50.
    const RACES = 2;
    expect(cost.following, `following: ${detail}`).to.be.at.most(2 * STEADY + RACES);
    expect(cost.total, `in all: ${detail}`).to.be.at.most(4 * STEADY + 3 * RACES);
    const watch = proxy.calls.slice(launched);
    expect(
      watch.filter((call) => !isLatestRead(call)),
      "the watch reads only the head",
    ).to.deep.equal([]);
    expect(watch.length, "head reads in the window").to.be.at.most(IDLE_WINDOW_MS / POLL_MS + 1);
  });

  it(`a burst of ${BURST} costs at most 3 calls per launch, one send each`, async function () {
    const from = proxy.calls.length;
    await burst(BURST, STEADY);
    await measure(IDLE_WINDOW_MS);
    const cost = tally(proxy, from);
    const detail = JSON.stringify(cost.byMethod);
    expect(cost.sends, detail).to.equal(BURST);
    expect(cost.total / BURST, `per launch: ${detail}`).to.be.at.most(3);
  });

  it(`idle after ${RUN} launches: at most one head read per poll interval, and no block read again`, async function () {
    this.timeout(10 * 60_000);
    const done = STEADY + BURST;
    for (let first = done; first < RUN; first += BURST) await burst(Math.min(BURST, RUN - first), first);
    // Every record's first reorg look comes after 5 poll intervals: the window starts once the last one's is due.
    await measure(6 * POLL_MS);
    const from = proxy.calls.length;
    await measure(IDLE_WINDOW_MS);
    const calls = proxy.calls.slice(from);
    expect(
      calls.filter((call) => !isLatestRead(call)),
      "only the head is read",
    ).to.deep.equal([]);
    expect(calls.length, "head reads in the window").to.be.at.most(IDLE_WINDOW_MS / POLL_MS + 1);
  });
});

describe("receipts from a node without eth_getBlockReceipts (counting relay answering it -32601, anvil)", function () {
  let node: AnvilNode;
  let proxy: CountingProxy;
  let service: TokenService;

  before(async function () {
    node = await startAnvil();
    proxy = await startCountingProxy(node.url, { methodNotFound: "eth_getBlockReceipts" });
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.stop();
  });

  it("reads receipts by hash in batches, asks the missing method at most once, and reads nothing while idle", async function () {
    const owner = service.createWallet(SEPOLIA);
    await node.rpc("anvil_setBalance", [owner.address, toQuantity(10n ** 24n)]);
    const launches = 40;
    const records = await Promise.all(
      Array.from({ length: launches }, (_, index) =>
        service.operations.launch({
          ...SEPOLIA,
          type: "ERC20",
          token: { name: `Fallback ${index}`, symbol: `F${index}`, initialSupply: "1" },
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
      ),
    );
    const settled = await Promise.all(records.map((record) => service.operations.settle(record, SETTLE_MS)));
    expect(settled.map((record) => record.status)).to.deep.equal(records.map(() => "mined"));
    const cost = tally(proxy, 0);
    const detail = JSON.stringify(cost.byMethod);
    const asked = proxy.requests.filter((methods) => methods.includes("eth_getBlockReceipts")).length;
    expect(asked, `requests asking eth_getBlockReceipts: ${detail}`).to.be.at.most(1);
    expect(cost.byMethod.eth_getTransactionReceipt ?? 0, `one receipt per launch: ${detail}`).to.be.at.most(launches);
    expect(cost.total / launches, `per launch: ${detail}`).to.be.at.most(3);

    await measure(6 * POLL_MS);
    const from = proxy.calls.length;
    await measure(IDLE_WINDOW_MS);
    const idle = proxy.calls.slice(from);
    expect(
      idle.filter((call) => !isLatestRead(call)),
      "only the head is read",
    ).to.deep.equal([]);
    expect(idle.length).to.be.at.most(IDLE_WINDOW_MS / POLL_MS + 1);
  });
});
