import { expect } from "chai";

import { startServer, type RunningServer } from "../../helpers/http-server.js";

describe("HTTP service — ERC20 reads, shared symbols, wait=mined timeout", function () {
  let api: RunningServer;
  let wallet: { address: string; privateKey: string };
  const pair = { chain: "ethereum", network: "holesky" };

  const launch = (token: Record<string, unknown>, query = "?wait=mined") =>
    api.call("POST", `/api/v1/tokens${query}`, { ...pair, type: "erc20", token, sender: wallet.address, privateKey: wallet.privateKey });

  before(async function () {
    api = await startServer({ waitTimeoutMs: 300 });
    wallet = (await api.call("POST", "/api/v1/wallets", pair)).body;
    await api.call("POST", "/api/v1/faucet", { ...pair, address: wallet.address });
  });

  after(async function () {
    await api?.stop();
  });

  it("keys two tokens that share a symbol by contract address, and a token named like the native currency too", async function () {
    const first = (await launch({ name: "One", symbol: "DUP", initialSupply: "1" })).body.contractAddress;
    const second = (await launch({ name: "Two", symbol: "DUP", initialSupply: "2" })).body.contractAddress;
    const fake = (await launch({ name: "Not ether", symbol: "ETH", initialSupply: "3" })).body.contractAddress;
    const response = await api.call(
      "GET",
      `/api/v1/wallets?chain=ethereum&network=holesky&address=${wallet.address}&erc20TokenContractAddresses=${first}&erc20TokenContractAddresses=${second},${fake}`,
    );
    expect(response.status).to.equal(200);
    expect(Object.keys(response.body.balances).sort()).to.deep.equal(["ETH", first, second, fake].sort());
    expect(response.body.balances[first]).to.include({ symbol: "DUP", balance: "1" });
    expect(response.body.balances[second]).to.include({ symbol: "DUP", balance: "2" });
    expect(response.body.balances[fake]).to.include({ symbol: "ETH", balance: "3" });
    expect(response.body.balances.ETH).not.to.have.property("contractAddress");
  });

  it("reads an ERC20 balance through the document's address= path with type=erc20", async function () {
    const token = (await launch({ name: "Six", symbol: "SIX", decimals: 6, initialSupply: "2500000" })).body.contractAddress;
    const response = await api.call(
      "GET",
      `/api/v1/tokens/address=${wallet.address}/balance?tokenAddress=${token}&type=erc20&chain=ethereum&network=holesky`,
    );
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ type: "erc20", balance: "2500000", uiBalance: "2.5", decimals: 6, symbol: "SIX" });
    expect(response.body).not.to.have.property("tokenIds");
  });

  it("answers 202 with status pending when wait=mined outlasts the wait timeout", async function () {
    const slow = await startServer({ blockTimeSeconds: 5, waitTimeoutMs: 200 });
    try {
      const { body: owner } = await slow.call("POST", "/api/v1/wallets", pair);
      await slow.call("POST", "/api/v1/faucet", { ...pair, address: owner.address });
      const response = await slow.call("POST", "/api/v1/tokens?wait=mined", {
        ...pair,
        type: "ERC721",
        token: { name: "Later", symbol: "LTR" },
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      expect(response.status).to.equal(202);
      expect(response.body).to.include({ status: "pending", blockNumber: null });
      expect(response.body.transactionHash).to.match(/^0x[0-9a-f]{64}$/);
    } finally {
      await slow.stop();
    }
  });
});
