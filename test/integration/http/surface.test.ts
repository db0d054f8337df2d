import { Validator } from "@seriousme/openapi-schema-validator";
import { expect } from "chai";
import { get as httpGet } from "node:http";

import { API_ROUTES } from "../../../src/http/routes/index.js";
import { isLoopbackHost } from "../../../src/http/listen.js";
import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

describe("HTTP service — endpoints, aliases, auth, OpenAPI, health", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  it("creates Bitcoin wallets with a WIF key and an addressType", async function () {
    const response = await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "testnet" });
    expect(response.status).to.equal(200);
    expect(response.body.address).to.match(/^tb1q/);
    expect(response.body.addressType).to.equal("p2wpkh");
    expect(response.body.privateKey).to.match(/^c[1-9A-HJ-NP-Za-km-z]{51}$/);
    const taproot = await api.call("POST", "/v1/wallets", { chain: "bitcoin", network: "mainnet", addressType: "p2tr" });
    expect(taproot.body.address).to.match(/^bc1p/);
  });

  it("answers a POST without an ETag, as JSON of its exact length; a GET keeps Express's weak ETag and its 304", async function () {
    const created = await fetch(`${api.baseUrl}/api/v1/wallets`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": TEST_API_KEY },
      body: JSON.stringify({ chain: "ethereum", network: "sepolia" }),
    });
    const text = await created.text();
    expect(created.status).to.equal(200);
    expect(created.headers.get("etag")).to.equal(null);
    expect(created.headers.get("content-type")).to.equal("application/json; charset=utf-8");
    expect(Number(created.headers.get("content-length"))).to.equal(Buffer.byteLength(text));
    expect(JSON.parse(text)).to.include({ chain: "ethereum", network: "sepolia" });

    const document = await fetch(`${api.baseUrl}/openapi.json`);
    const etag = document.headers.get("etag");
    expect(etag).to.match(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    await document.arrayBuffer();
    // Not fetch(): with If-None-Match it adds Cache-Control: no-cache, which rightly makes any answer fresh.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      httpGet(`${api.baseUrl}/openapi.json`, { headers: { "if-none-match": etag! } }, (answer) => {
        answer.resume();
        resolve(answer.statusCode);
      }).once("error", reject),
    );
    expect(status).to.equal(304);
  });

  it("answers every versioned route under /api/v1 and /v1", async function () {
    for (const prefix of ["/api/v1", "/v1"]) {
      const networks = await api.call("GET", `${prefix}/networks`);
      expect(networks.status).to.equal(200);
      const sepolia = networks.body.networks.find(
        (pair: { chain: string; network: string }) => pair.chain === "ethereum" && pair.network === "sepolia",
      );
      expect(sepolia).to.include({ chainId: 11155111, nativeSymbol: "ETH", simulated: true });
      const bsc = networks.body.networks.find(
        (pair: { chain: string; network: string }) => pair.chain === "binance_smart_chain" && pair.network === "mainnet",
      );
      expect(bsc).to.include({ chainId: 56, nativeSymbol: "BNB" });
    }
  });

  it("accepts the key as ?apiKey= and as x-api-key", async function () {
    const viaQuery = await fetch(`${api.baseUrl}/api/v1/networks?apiKey=${TEST_API_KEY}`);
    expect(viaQuery.status).to.equal(200);
    const viaHeader = await fetch(`${api.baseUrl}/api/v1/networks`, { headers: { "x-api-key": TEST_API_KEY } });
    expect(viaHeader.status).to.equal(200);
  });

  it("accepts keys created by apikey:create (stored as a hash only)", async function () {
    const created = await api.server.store.createApiKey("ci");
    const response = await fetch(`${api.baseUrl}/api/v1/networks`, { headers: { "x-api-key": created.key } });
    expect(response.status).to.equal(200);
    const stored = JSON.stringify(await api.server.store.listApiKeys());
    expect(stored).not.to.include(created.key);
  });

  it("serves /health, /openapi.json and /docs without a key", async function () {
    const health = await fetch(`${api.baseUrl}/health`);
    expect(health.status).to.equal(200);
    const body = await health.json();
    expect(body.status).to.equal("ok");
    expect(body.backends.database.ready).to.equal(true);
    expect(body.backends["ethereum/sepolia"], "keyless: readiness only").to.deep.equal({ ready: true });
    const detailed = await (await fetch(`${api.baseUrl}/health`, { headers: { "x-api-key": TEST_API_KEY } })).json();
    expect(detailed.backends["ethereum/sepolia"]).to.include({ ready: true, simulated: true });

    const docs = await fetch(`${api.baseUrl}/docs`);
    expect(docs.status).to.equal(200);
    expect(docs.headers.get("content-type")).to.match(/text\/html/);
    const page = await docs.text();
    for (const asset of ["/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js", "/docs/initializer.js"]) {
      expect(page).to.include(asset);
      expect((await fetch(`${api.baseUrl}${asset}`)).status, asset).to.equal(200);
    }
    expect(await (await fetch(`${api.baseUrl}/docs/initializer.js`)).text()).to.include('url: "/openapi.json"');
  });

  it("publishes an OpenAPI 3.1 document that lists every route and validates as one", async function () {
    const response = await fetch(`${api.baseUrl}/openapi.json`);
    const document = await response.json();
    expect(document.openapi).to.equal("3.1.0");
    const validation = await new Validator().validate(document);
    expect(validation.valid, JSON.stringify(validation.errors)).to.equal(true);
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method} ${path}`),
    );
    for (const route of API_ROUTES) {
      expect(documented).to.include(`${route.method} /api/v1${route.paths[0]!.replace(/:(\w+)/g, "{$1}")}`);
    }
    // The document's key-in-body form, then the caller-signed submit and the prepare (issue 10 §1).
    for (const path of ["/api/v1/tokens", "/api/v1/tokens/mint"]) {
      const branches = document.paths[path].post.requestBody.content["application/json"].schema.anyOf as Array<{ required: string[] }>;
      expect(
        branches.map((branch) => ["privateKey", "signedTransaction"].filter((field) => branch.required.includes(field))),
      ).to.deep.equal([["privateKey"], ["signedTransaction"], []]);
    }
    expect(document.paths["/api/v1/tokens"].post.requestBody.content["application/json"].schema.anyOf[0].properties).to.have.keys(
      "chain",
      "network",
      "type",
      "token",
      "sender",
      "salt",
      "privateKey",
    );
    // Structural validation: every operation has responses, every $ref resolves, every path parameter is declared.
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(methods)) {
        expect(operation.operationId).to.be.a("string");
        expect(Object.keys(operation.responses)).to.have.length.greaterThan(0);
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          expect(
            operation.parameters.some(
              (parameter: { in: string; name: string }) => parameter.in === "path" && `{${parameter.name}}` === name,
            ),
          ).to.equal(true);
        }
      }
    }
    expect(JSON.stringify(document)).not.to.match(/"\$ref":"(?!#\/)/);
  });

  it("knows which hosts are loopback (serve --no-auth is refused elsewhere)", function () {
    expect(isLoopbackHost("127.0.0.1")).to.equal(true);
    expect(isLoopbackHost("::1")).to.equal(true);
    expect(isLoopbackHost("localhost")).to.equal(true);
    expect(isLoopbackHost("0.0.0.0")).to.equal(false);
    expect(isLoopbackHost("192.168.1.5")).to.equal(false);
  });

  it("accepts keyless calls when auth is off", async function () {
    const open = await startServer({ auth: false });
    try {
      const response = await fetch(`${open.baseUrl}/api/v1/networks`);
      expect(response.status).to.equal(200);
    } finally {
      await open.stop();
    }
  });
});
