import { expect } from "chai";
import { Wallet } from "ethers";

import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";

// Chain notifications (docs/notifications.md) through a simulated chain's reorg fault (docs/faults.md): the fault
// replaces the latest block with a competing one holding the same transactions. A deposit delivered from the replaced
// block is removed under its id, then delivered again, under the same id, from the block that replaced it.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;

interface Pulled {
  id: string;
  type: string;
  data: { id: string; txHash: string; blockHash: string; blockNumber: number; amount: string };
}

describe("chain notifications through the simulated chain's reorg fault", function () {
  this.timeout(120_000);
  let server: RunningServer;

  before(async function () {
    server = await startServer({ env: { TOKEN_SERVICE_CHAIN_FAULTS: "on" } });
  });

  after(async function () {
    await server?.stop();
  });

  const pull = async (id: string): Promise<Pulled[]> => {
    const page = await server.call("GET", `/api/v1/subscriptions/${id}/events?limit=100`);
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    return page.body.items as Pulled[];
  };

  it("removes the deposit of the replaced block under its id, and delivers it again from the new block", async function () {
    const sender = new Wallet(Wallet.createRandom().privateKey);
    await server.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: sender.address, amount: "1000000000000000000" });
    const watched = Wallet.createRandom().address;
    const created = await server.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, address: watched });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const subscription = created.body.id as string;

    const sent = await server.call("POST", "/api/v1/transfers?wait=mined", {
      ...SEPOLIA,
      type: "NATIVE",
      to: watched,
      amount: "4242",
      sender: sender.address,
      privateKey: sender.privateKey,
    });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    await until(async () => (await pull(subscription)).length === 1, "the deposit delivered", 30_000);
    const [first] = await pull(subscription);
    expect(first!.data).to.include({ txHash: sent.body.transactionHash.toLowerCase(), amount: "4242" });

    const reorg = await server.call("POST", "/api/v1/chains/ethereum/sepolia/faults", { fault: "reorg", blocks: 1 });
    expect(reorg.status, JSON.stringify(reorg.body)).to.equal(201);
    await until(async () => (await pull(subscription)).length === 3, "the removal and the delivery again", 30_000);
    const [found, removed, again] = await pull(subscription);
    expect([found!.type, removed!.type, again!.type]).to.deep.equal(["chain.activity", "chain.activity.removed", "chain.activity"]);
    expect(new Set([found!.id, removed!.id, again!.id]).size, "one id throughout").to.equal(1);
    expect(removed!.data.blockHash).to.equal(found!.data.blockHash);
    expect(again!.data.blockNumber, "the same height").to.equal(found!.data.blockNumber);
    expect(again!.data.blockHash, "another block").to.not.equal(found!.data.blockHash);
  });
});
