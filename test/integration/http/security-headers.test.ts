import { expect } from "chai";

import { startServer, type RunningServer } from "../../helpers/http-server.js";

describe("HTTP service — security headers on every answer", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  it("sends nosniff, no framing, no referrer and a content security policy everywhere, and no-store under /api and /v1", async function () {
    const pair = { chain: "ethereum", network: "sepolia" };
    const answers = {
      health: await api.call("GET", "/health"),
      openapi: await api.call("GET", "/openapi.json"),
      notFound: await api.call("GET", "/nowhere"),
      wallet: await api.call("POST", "/api/v1/wallets", pair),
      v1Networks: await api.call("GET", "/v1/networks"),
      badRequest: await api.call("POST", "/api/v1/wallets", { chain: "nowhere" }),
      unauthorized: await api.call("GET", "/api/v1/networks", undefined, { "x-api-key": "wrong" }),
    };
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.headers.get("x-content-type-options"), name).to.equal("nosniff");
      expect(answer.headers.get("x-frame-options"), name).to.equal("DENY");
      expect(answer.headers.get("referrer-policy"), name).to.equal("no-referrer");
      expect(answer.headers.get("content-security-policy"), name).to.include("default-src 'self'");
      expect(answer.headers.get("strict-transport-security"), `${name}: HSTS is the TLS terminator's`).to.equal(null);
    }
    expect(answers.wallet.body.privateKey).to.be.a("string");
    for (const name of ["wallet", "v1Networks", "badRequest", "unauthorized"] as const)
      expect(answers[name].headers.get("cache-control"), name).to.equal("no-store");
    expect(answers.unauthorized.status).to.equal(401);
  });
});

describe("HTTP service — /health without a key says only what is ready", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  it("answers readiness per backend keyless, the details (store location, endpoints) only with a valid key", async function () {
    const keyless = await fetch(`${api.baseUrl}/health`);
    const minimal = (await keyless.json()) as { status: string; backends: Record<string, Record<string, unknown>> };
    expect(keyless.status).to.equal(200);
    expect(minimal.status).to.equal("ok");
    expect(Object.keys(minimal.backends)).to.include.members(["database", "storage"]);
    for (const [name, backend] of Object.entries(minimal.backends)) expect(Object.keys(backend), name).to.deep.equal(["ready"]);
    expect(JSON.stringify(minimal)).to.not.include(api.dataDir);

    const detailed = await api.call("GET", "/health");
    expect(detailed.body.backends.database.detail).to.include("sqlite");
    const wrong = await fetch(`${api.baseUrl}/health`, { headers: { "x-api-key": "not-a-key" } });
    expect(wrong.status, "a wrong key is refused, not answered keyless").to.equal(401);
  });
});
