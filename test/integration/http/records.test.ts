import { expect } from "chai";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { rpc, startCountingProxy, type CountingProxy } from "../../helpers/json-rpc-servers.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";

describe("HTTP service — a launch's record is written before broadcast and updated after", function () {
  let node: JsonRpcServer;
  let proxy: CountingProxy;
  let api: RunningServer;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 17000 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    // Everything reaches the node except the broadcast itself, which fails as from a node that goes down.
    proxy = await startCountingProxy(`http://127.0.0.1:${port}`, { refuse: "eth_sendRawTransaction" });
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_HOLESKY: proxy.url }, tracker: { dropAfterMs: 1_500 } });
  });

  after(async function () {
    await api?.stop();
    await proxy?.close();
    await node?.close();
  });

  it("answers 202 signed when the broadcast's fate is unknown, keeps trying, then marks the record dropped with the reason, never holding the key", async function () {
    const { body: wallet } = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "holesky" });
    await rpc(proxy.url, "hardhat_setBalance", [wallet.address, "0x56BC75E2D63100000"]);
    const response = await api.call("POST", "/api/v1/tokens", {
      chain: "ethereum",
      network: "holesky",
      type: "ERC20",
      token: { name: "Lost", symbol: "LST", initialSupply: "1" },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
    expect(response.body.status).to.equal("signed");
    expect(response.body.transactionHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(proxy.requests.some((methods) => methods.includes("eth_sendRawTransaction"))).to.equal(true);

    const listed = await eventually(
      () => api.call("GET", "/api/v1/operations"),
      (page) => page.body.items[0]?.status === "dropped",
      30_000,
    );
    const [record] = listed.body.items;
    expect(record).to.include({
      kind: "launch",
      status: "dropped",
      sender: wallet.address,
      type: "ERC20",
      transactionHash: response.body.transactionHash,
    });
    expect(record.contractAddress).to.equal(response.body.contractAddress);
    expect(record.error.code).to.equal("TRANSACTION_DROPPED");
    const reasons = record.transitions.map((transition: { reason: string }) => transition.reason);
    expect(reasons.some((reason: string) => reason.startsWith("broadcast outcome unknown"))).to.equal(true);
    expect(reasons.at(-1)).to.match(/^never reached the node/);
    // The tracker tried again from the stored raw transaction.
    expect(proxy.requests.filter((methods) => methods.includes("eth_sendRawTransaction")).length).to.be.greaterThan(1);
    expect(JSON.stringify(listed.body)).not.to.include(wallet.privateKey.slice(2));
    expect(api.logs.text()).not.to.include(wallet.privateKey.slice(2));
  });
});
