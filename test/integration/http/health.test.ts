import { expect } from "chai";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { startCountingProxy, type CountingProxy } from "../../helpers/json-rpc-servers.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

describe("HTTP service — /health tells the truth and spares the nodes", function () {
  let holesky: JsonRpcServer;
  let mainnetNode: JsonRpcServer;
  let proxy: CountingProxy;
  let api: RunningServer;

  before(async function () {
    holesky = await hre.network.createServer({ override: { chainId: 17000 } } as never, "127.0.0.1", 0);
    proxy = await startCountingProxy(`http://127.0.0.1:${(await holesky.listen()).port}`);
    // A live node that answers, but serves Ethereum mainnet where sepolia is configured.
    mainnetNode = await hre.network.createServer({ override: { chainId: 1 } } as never, "127.0.0.1", 0);
    const wrongChain = `http://127.0.0.1:${(await mainnetNode.listen()).port}`;
    api = await startServer({
      env: {
        TOKEN_SERVICE_RPC_ETHEREUM_HOLESKY: proxy.url,
        TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: wrongChain,
        TOKEN_SERVICE_HEALTH_CACHE_SECONDS: "60",
      },
    });
  });

  after(async function () {
    await api?.stop();
    await proxy?.close();
    await holesky?.close();
    await mainnetNode?.close();
  });

  it("reports a node on the wrong chain as such, not as a node that does not answer", async function () {
    const health = await api.call("GET", "/health");
    expect(health.status).to.equal(503);
    expect(health.body.status).to.equal("degraded");
    const sepolia = health.body.backends["ethereum/sepolia"];
    expect(sepolia.ready).to.equal(false);
    expect(sepolia.detail).to.include("serves chain id 1, expected 11155111");
    expect(sepolia.detail).not.to.include("not answering");
    expect(health.body.backends["ethereum/holesky"]).to.include({ ready: true, simulated: false });
  });

  it("does not call ready what it did not probe", async function () {
    const { body } = await api.call("GET", "/health");
    // The public Esplora default gets no health-check traffic, so its readiness is unknown.
    expect(body.backends["bitcoin/mainnet"].ready).to.equal(null);
    expect(body.backends["bitcoin/mainnet"].detail).to.include("not probed");
  });

  it("answers repeated and concurrent checks from one probe while the result is fresh", async function () {
    await api.call("GET", "/health");
    const before = proxy.requests.length;
    expect(before).to.be.greaterThan(0);
    for (let index = 0; index < 5; index++) await api.call("GET", "/health");
    await Promise.all(Array.from({ length: 10 }, () => api.call("GET", "/health")));
    expect(proxy.requests.length).to.equal(before);
  });

  it("probes again once the cached result is older than the setting", async function () {
    const uncached = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_HOLESKY: proxy.url, TOKEN_SERVICE_HEALTH_CACHE_SECONDS: "0" } });
    try {
      await uncached.call("GET", "/health");
      const before = proxy.requests.length;
      await uncached.call("GET", "/health");
      await uncached.call("GET", "/health");
      expect(proxy.requests.length).to.equal(before + 2);
    } finally {
      await uncached.stop();
    }
  });
});
