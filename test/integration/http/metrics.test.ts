import { expect } from "chai";

import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

/** The value of one series in a Prometheus exposition, or undefined. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("HTTP service — GET /metrics in Prometheus format (prom-client)", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  it("is protected like the API, and counts requests by route pattern, operations by state, lock waits and node calls", async function () {
    const anonymous = await fetch(`${api.baseUrl}/metrics`);
    expect(anonymous.status).to.equal(401);

    const { body: wallet } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
    await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address });
    const launch = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC721",
      token: { name: "Metered", symbol: "MTR" },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect(launch.body.status).to.equal("mined");
    await api.call(
      "GET",
      `/api/v1/tokens/address=${wallet.address}/balance?chain=ethereum&network=sepolia&type=erc721&tokenAddress=${launch.body.contractAddress}`,
    );
    await api.call("POST", "/api/v1/wallets", { chain: 1 });

    const response = await fetch(`${api.baseUrl}/metrics?apiKey=${TEST_API_KEY}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(sample(text, 'token_service_http_requests_total{method="POST",route="/api/v1/wallets",status="200"}')).to.equal(1);
    expect(sample(text, 'token_service_http_requests_total{method="POST",route="/api/v1/wallets",status="400"}')).to.equal(1);
    // The route pattern, not the path: addresses in paths do not make new series.
    expect(sample(text, 'token_service_http_requests_total{method="GET",route="/api/v1/tokens/:address/balance",status="200"}')).to.equal(
      1,
    );
    expect(text).not.to.include(wallet.address);
    expect(sample(text, 'token_service_http_request_duration_seconds_count{method="POST",route="/api/v1/tokens"}')).to.equal(1);
    expect(sample(text, 'token_service_operations{kind="launch",status="mined"}')).to.equal(1);
    expect(sample(text, 'token_service_operations{kind="faucet",status="mined"}')).to.equal(1);
    expect(sample(text, "token_service_tracker_lag_seconds")).to.be.a("number").and.to.be.at.least(0);
    expect(sample(text, "token_service_sender_lock_wait_seconds_count")).to.be.at.least(1);
    expect(
      sample(text, 'token_service_node_call_duration_seconds_count{pair="ethereum/sepolia",method="eth_sendRawTransaction",outcome="ok"}'),
    ).to.equal(1);
    expect(text).to.include("token_service_process_resident_memory_bytes");
    expect(text).not.to.include(wallet.privateKey.slice(2));
  });

  it("answers without a key when TOKEN_SERVICE_METRICS_PUBLIC=true", async function () {
    const open = await startServer({ env: { TOKEN_SERVICE_METRICS_PUBLIC: "true" } });
    try {
      const response = await fetch(`${open.baseUrl}/metrics`);
      expect(response.status).to.equal(200);
      expect(await response.text()).to.include("token_service_operations");
    } finally {
      await open.stop();
    }
  });
});
