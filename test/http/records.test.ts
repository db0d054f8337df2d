import { expect } from "chai";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { rpc, startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";
import { startServer, type RunningServer } from "../helpers/http-server.js";

describe("HTTP service — a launch's record is written before broadcast and updated after", function () {
  let node: JsonRpcServer;
  let proxy: CountingProxy;
  let api: RunningServer;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 17000 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    // Everything reaches the node except the broadcast itself, which fails as from a node that goes down.
    proxy = await startCountingProxy(`http://127.0.0.1:${port}`, { refuse: "eth_sendRawTransaction" });
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_HOLESKY: proxy.url } });
  });

  after(async function () {
    await api?.stop();
    await proxy?.close();
    await node?.close();
  });

  it("keeps the signed launch with its transaction hash, marked failed with the code, and never the key", async function () {
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
    expect(response.status).to.equal(502);
    expect(response.body.error.code).to.equal("UPSTREAM_UNAVAILABLE");
    expect(proxy.requests.some((methods) => methods.includes("eth_sendRawTransaction"))).to.equal(true);

    const listed = await api.call("GET", "/api/v1/tokens");
    const [record] = listed.body.items;
    expect(record).to.include({ kind: "launch", status: "failed", sender: wallet.address, type: "ERC20" });
    expect(record.transactionHash).to.match(/^0x[0-9a-f]{64}$/);
    expect(record.contractAddress).to.match(/^0x[0-9a-fA-F]{40}$/);
    expect(record.error).to.deep.equal({ code: "UPSTREAM_UNAVAILABLE", message: response.body.error.message });
    expect(JSON.stringify(listed.body)).not.to.include(wallet.privateKey.slice(2));
    expect(api.logs.text()).not.to.include(wallet.privateKey.slice(2));
  });
});
