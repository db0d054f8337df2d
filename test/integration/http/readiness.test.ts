import { expect } from "chai";

import { startAnvil, ANVIL_ACCOUNT, type AnvilNode } from "../../helpers/anvil.js";
import { closedPort } from "../../helpers/service.js";
import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

// Readiness (docs/operations.md#probes; issue 34, item 1): GET /health/ready answers 503 with its reasons while writes
// cannot be accepted (a locked keystore, a live pair with unfinished records and no node answering), and 200 while
// they can, a live pair without work being down included. Keyless, a reason names its backend only.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;

async function ready(api: RunningServer, keyed = true) {
  const response = await fetch(`${api.baseUrl}/health/ready`, { headers: keyed ? { "x-api-key": TEST_API_KEY } : {} });
  return { status: response.status, body: (await response.json()) as { ready: boolean; reasons: string[] } };
}

describe("HTTP service — /health/ready: whether writes can be accepted, and why not", function () {
  this.timeout(120_000);

  it("ready on simulated chains; a live pair down without work keeps it ready, while /health reports it degraded", async function () {
    const api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_HOLESKY: `http://127.0.0.1:${await closedPort()}` } });
    try {
      expect(await ready(api)).to.deep.include({ status: 200 });
      expect((await ready(api)).body).to.deep.include({ ready: true, reasons: [] });
      expect((await fetch(`${api.baseUrl}/health`)).status, "/health: a live node is down").to.equal(503);
    } finally {
      await api.stop();
    }
  });

  it("not ready while a live pair with a pending record has no node answering: its reason names the pair", async function () {
    let node: AnvilNode | undefined = await startAnvil({ args: ["--no-mining"] });
    const api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url, TOKEN_SERVICE_HEALTH_CACHE_SECONDS: "0" } });
    try {
      const launched = await api.call("POST", "/api/v1/tokens", {
        ...SEPOLIA,
        type: "ERC20",
        token: { name: "Waiting", symbol: "WAIT" },
        sender: ANVIL_ACCOUNT.address,
        privateKey: ANVIL_ACCOUNT.privateKey,
      });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      expect(launched.body.status).to.equal("pending");
      expect((await ready(api)).status, "the node answers: ready").to.equal(200);
      await node.stop();
      node = undefined;
      const down = await ready(api);
      expect(down.status).to.equal(503);
      expect(down.body.ready).to.equal(false);
      expect(down.body.reasons).to.have.length(1);
      expect(down.body.reasons[0]).to.match(/^ethereum\/sepolia: .*with unfinished records$/);
      const keyless = await ready(api, false);
      expect(keyless.status).to.equal(503);
      expect(keyless.body.reasons).to.deep.equal(["ethereum/sepolia: not ready"]);
    } finally {
      await api.stop();
      await node?.stop();
    }
  });

  it("not ready while the keystore holding its wallets is locked; ready again with the passphrase", async function () {
    const passphrase = "a passphrase long enough for the keystore";
    let api = await startServer({ env: { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: passphrase } });
    const dataDir = api.dataDir;
    try {
      expect((await api.call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" })).status).to.equal(201);
      expect((await ready(api)).status).to.equal(200);
      await api.stop({ keepData: true });
      api = await startServer({ dataDir, env: {} });
      const locked = await ready(api);
      expect(locked.status).to.equal(503);
      expect(locked.body.reasons).to.have.length(1);
      expect(locked.body.reasons[0]).to.match(/^keystore: locked/);
      await api.stop({ keepData: true });
      api = await startServer({ dataDir, env: { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: passphrase } });
      expect((await ready(api)).body).to.deep.include({ ready: true, reasons: [] });
    } finally {
      await api.stop();
    }
  });
});
