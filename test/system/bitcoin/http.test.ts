import { expect } from "chai";

import { useRegtestBitcoind } from "../../helpers/bitcoind.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

describe("flow 2 over HTTP: a bitcoin regtest wallet against a real bitcoind", function () {
  const regtest = useRegtestBitcoind();
  let api: RunningServer;

  before(async function () {
    if (!regtest.available) this.skip();
    api = await startServer({ env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url } });
  });

  after(async function () {
    await api?.stop();
  });

  it("creates the wallet over HTTP, sees a payment unconfirmed, then confirmed once mined", async function () {
    const created = await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "regtest" });
    expect(created.status).to.equal(200);
    expect(created.body.address).to.match(/^bcrt1q/);
    const url = `/api/v1/wallets?chain=bitcoin&network=regtest&address=${created.body.address}`;

    await regtest.node.rpc("sendtoaddress", { address: created.body.address, amount: "0.5", fee_rate: 5 }, regtest.funder.wallet);
    const pending = await api.call("GET", url);
    expect(pending.status).to.equal(200);
    expect(pending.body.balances.BTC).to.deep.equal({
      balance: "50000000",
      uiBalance: "0.5",
      confirmed: { balance: "0", uiBalance: "0" },
      unconfirmed: { balance: "50000000", uiBalance: "0.5" },
    });
    expect(pending.body.balances).not.to.have.property("ETH");

    await regtest.node.rpc("generatetoaddress", [1, regtest.funder.address]);
    const mined = await api.call("GET", url);
    expect(mined.body.balances.BTC.confirmed).to.deep.equal({ balance: "50000000", uiBalance: "0.5" });
    expect(mined.body.balances.BTC.unconfirmed.balance).to.equal("0");
  });

  it("funds from the regtest faucet (a node wallet pays and a block is mined)", async function () {
    const { body: wallet } = await api.call("POST", "/v1/wallets", { chain: "bitcoin", network: "regtest", addressType: "p2tr" });
    expect(wallet.address).to.match(/^bcrt1p/);
    const funded = await api.call("POST", "/api/v1/faucet", {
      chain: "bitcoin",
      network: "regtest",
      address: wallet.address,
      amount: "2500000",
    });
    expect(funded.status, JSON.stringify(funded.body)).to.equal(200);
    expect(funded.body.transactionHash).to.match(/^[0-9a-f]{64}$/);
    expect(funded.body.balance.confirmed.balance).to.equal("2500000");
  });

  it("refuses an address of another network with 400 naming the field", async function () {
    const response = await api.call(
      "GET",
      "/api/v1/wallets?chain=bitcoin&network=regtest&address=tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
    );
    expect(response.status).to.equal(400);
    expect(response.body.error).to.include({ code: "INVALID_ADDRESS", field: "address" });
  });

  it("reports the node in /health without its credentials", async function () {
    const health = await fetch(`${api.baseUrl}/health`).then((response) => response.json());
    expect(health.backends["bitcoin/regtest"].ready).to.equal(true);
    expect(JSON.stringify(health)).not.to.include(regtest.node.password);
  });
});
