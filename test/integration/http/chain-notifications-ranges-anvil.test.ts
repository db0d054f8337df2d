import { expect } from "chai";
import { Contract, JsonRpcProvider, Wallet } from "ethers";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startFaultyRelay, type FaultyRelay, type RelayedCall } from "../../helpers/faulty-relay.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";

// A backfill against a provider that caps eth_getLogs (docs/notifications.md#how-it-scans): anvil behind a relay
// that refuses, as hosted providers do, any eth_getLogs spanning more than 40 blocks. The scan starts with 2,000-block
// filtered reads, narrows to what the node answers, and finds every deposit once, with no read wider than the cap
// answered and no error left for the operator.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const CAP = 40;
let cap = CAP;
const DEPOSITS = 12;

describe("chain notifications on anvil behind a provider that caps eth_getLogs at 40 blocks", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let relay: FaultyRelay;
  let api: RunningServer;
  let token: Contract;
  let funder: Wallet;
  const answered: number[] = [];
  let refused = 0;

  before(async function () {
    node = await startAnvil();
    relay = await startFaultyRelay(node.url, () => ({
      refuseCall(call: RelayedCall) {
        if (call.method !== "eth_getLogs") return undefined;
        const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
        if (filter.fromBlock === undefined || filter.toBlock === undefined) return undefined;
        const span = Number(BigInt(filter.toBlock) - BigInt(filter.fromBlock)) + 1;
        if (span > cap) {
          refused++;
          return `query exceeds max block range ${cap}`;
        }
        answered.push(span);
        return undefined;
      },
    }));
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: relay.url } });
  });

  after(async function () {
    await api?.stop();
    await relay?.close();
    await node?.stop();
  });

  it("narrows its reads to what the node answers and backfills every deposit once", async function () {
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Capped", symbol: "CAP", initialSupply: "1000000" },
      sender: ANVIL_ACCOUNT.address,
      privateKey: ANVIL_ACCOUNT.privateKey,
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
    token = new Contract(launched.body.contractAddress as string, ["function transfer(address, uint256) returns (bool)"]);
    funder = new Wallet(ANVIL_ACCOUNT.privateKey, provider);
    const watched = Wallet.createRandom().address;
    // The pair's scan follows the head for another subscription: the deposits' blocks are behind its cursor, a backfill.
    const otherAddress = Wallet.createRandom().address;
    const other = await api.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, address: otherAddress, assets: ["erc20"] });
    expect(other.status, JSON.stringify(other.body)).to.equal(201);
    const first = await provider.getBlockNumber();
    const sent: string[] = [];
    // Deposits spread over about 12 × 21 blocks, sent with ethers straight to the node.
    for (let deposit = 1; deposit <= DEPOSITS; deposit++) {
      const receipt = await (await token.connect(funder).getFunction("transfer")(watched, BigInt(deposit))).wait();
      sent.push(receipt!.hash.toLowerCase());
      await node.rpc("anvil_mine", ["0x14"]);
    }
    // Once the scan found a transfer to the other address, sent last, its cursor is past every deposit.
    await (await token.connect(funder).getFunction("transfer")(otherAddress, 1n)).wait();
    await until(
      async () => (await api.call("GET", `/api/v1/subscriptions/${other.body.id}/events`)).body.items.length === 1,
      "the scan past the deposits",
      30_000,
    );

    const created = await api.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, address: watched, assets: ["erc20"], fromBlock: first });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.backfillNext, "a backfill").to.equal(first);
    const id = created.body.id as string;
    await until(async () => (await api.call("GET", `/api/v1/subscriptions/${id}`)).body.backfillNext === null, "the backfill done", 60_000);
    const page = await api.call("GET", `/api/v1/subscriptions/${id}/events?limit=100`);
    expect(page.status).to.equal(200);
    const items = page.body.items as Array<{ data: { id: string; txHash: string; amount: string; direction: string } }>;
    expect(items.map((item) => item.data.txHash)).to.deep.equal(sent);
    expect(items.map((item) => item.data.amount)).to.deep.equal(sent.map((_, index) => String(index + 1)));
    expect(new Set(items.map((item) => item.data.id)).size).to.equal(DEPOSITS);

    expect(refused, "the wide reads the node refused").to.be.greaterThan(0);
    expect(Math.max(...answered), "no answered read wider than the cap").to.be.at.most(CAP);
    // Narrowed by halving from 2,000 blocks: 2,000 → … → 32, not one block at a time.
    expect(answered.filter((span) => span > 16).length, "reads of more than 16 blocks").to.be.greaterThan(0);
    expect(
      api.logs.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50),
      "no error logged",
    ).to.deep.equal([]);
  });

  it("widens its reads again once the node answers them", async function () {
    cap = Infinity;
    answered.length = 0;
    const watched = Wallet.createRandom().address;
    const first = await funder.provider!.getBlockNumber();
    const receipt = await (await token.connect(funder).getFunction("transfer")(watched, 7n)).wait();
    await node.rpc("anvil_mine", ["0x190"]);
    const created = await api.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, address: watched, assets: ["erc20"], fromBlock: first });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await until(
      async () => (await api.call("GET", `/api/v1/subscriptions/${created.body.id}/events`)).body.items.length === 1,
      "the deposit",
      60_000,
    );
    expect((await api.call("GET", `/api/v1/subscriptions/${created.body.id}/events`)).body.items[0].data.txHash).to.equal(
      receipt!.hash.toLowerCase(),
    );
    // Doubled after every few reads the node answered: wider than the old cap again.
    expect(Math.max(...answered), "a read wider than the old cap").to.be.greaterThan(CAP);
  });
});
