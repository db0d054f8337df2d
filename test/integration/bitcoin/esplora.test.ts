import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../../src/api.js";
import { bitcoinBackendsFromEnv } from "../../../src/chains/bitcoin/backends.js";
import { EsploraBackend } from "../../../src/chains/bitcoin/esplora.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import { expectServiceError } from "../../helpers/errors.js";
import { closedPort } from "../../helpers/service.js";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "esplora");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

const MAINNET_RECORDED = "1111111111111111111114oLvT2";
const TESTNET_RECEIVING = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const TESTNET_SPENDING = "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 playing Esplora: each test sets what `/api/address/:address` answers. */
class RecordedEsplora {
  readonly requests: Array<{ path: string; accept: string | undefined }> = [];
  handler: Handler = (_request, response) => response.writeHead(500).end();
  private server: Server | undefined;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.requests.push({ path: request.url ?? "", accept: request.headers.accept });
      this.handler(request, response);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  answer(status: number, body: string, contentType = "application/json"): void {
    this.handler = (_request, response) => response.writeHead(status, { "content-type": contentType }).end(body);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe("bitcoin balances from Esplora (recorded responses on a local HTTP server)", function () {
  const esplora = new RecordedEsplora();
  let service: TokenService;

  before(async function () {
    await esplora.start();
    service = await createTokenService({
      hre,
      env: { TOKEN_SERVICE_ESPLORA_BITCOIN_MAINNET: esplora.baseUrl, TOKEN_SERVICE_ESPLORA_BITCOIN_TESTNET: `${esplora.baseUrl}/` },
      requestTimeoutMs: 1_000,
    });
  });

  after(async function () {
    await service?.close();
    await esplora.stop();
  });

  beforeEach(function () {
    esplora.requests.length = 0;
  });

  it("recorded: mempool.space's answer for a mainnet address becomes an exact BTC balance", async function () {
    esplora.answer(200, fixture(`mainnet-address-${MAINNET_RECORDED}.json`));
    const result = await service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED });
    expect(result).to.deep.include({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED, simulated: false });
    expect(result.balances).to.deep.equal({
      BTC: {
        balance: "80942504341",
        uiBalance: "809.42504341",
        confirmed: { balance: "80942504341", uiBalance: "809.42504341" },
        unconfirmed: { balance: "0", uiBalance: "0" },
      },
    });
    expect(esplora.requests).to.deep.equal([{ path: `/api/address/${MAINNET_RECORDED}`, accept: "application/json" }]);
  });

  it("recorded shape: coins waiting in the mempool count as unconfirmed (testnet4, base URL with a trailing slash)", async function () {
    esplora.answer(200, fixture("testnet4-pending-receive.json"));
    const result = await service.getBalances({ chain: "bitcoin", network: "testnet", address: TESTNET_RECEIVING });
    expect(result.balances.BTC).to.deep.equal({
      balance: "125000",
      uiBalance: "0.00125",
      confirmed: { balance: "100000", uiBalance: "0.001" },
      unconfirmed: { balance: "25000", uiBalance: "0.00025" },
    });
    expect(esplora.requests.map((request) => request.path)).to.deep.equal([`/api/address/${TESTNET_RECEIVING}`]);
  });

  it("recorded shape: a spend waiting in the mempool makes unconfirmed negative while confirmed stays", async function () {
    esplora.answer(200, fixture("testnet4-pending-spend.json"));
    const result = await service.getBalances({ chain: "bitcoin", network: "testnet", address: TESTNET_SPENDING });
    expect(result.balances.BTC).to.deep.equal({
      balance: "40000",
      uiBalance: "0.0004",
      confirmed: { balance: "100000", uiBalance: "0.001" },
      unconfirmed: { balance: "-60000", uiBalance: "-0.0006" },
    });
  });

  it("recorded: Esplora's 400 'Address on invalid network' is INVALID_ADDRESS naming address, with the reason", async function () {
    esplora.answer(400, fixture("invalid-network-400.txt"), "text/plain");
    const error = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "testnet", address: TESTNET_RECEIVING }),
      ErrorCode.INVALID_ADDRESS,
      "address",
    );
    expect(error.message).to.include("Address on invalid network");
  });

  it("recorded: Esplora's 400 'Invalid Bitcoin address' is INVALID_ADDRESS naming address", async function () {
    esplora.answer(400, fixture("invalid-address-400.txt"), "text/plain");
    const error = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.INVALID_ADDRESS,
      "address",
    );
    expect(error.message).to.include("Invalid Bitcoin address");
  });

  it("an address of another network is refused before any request (tb1 on mainnet)", async function () {
    await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: TESTNET_RECEIVING }),
      ErrorCode.INVALID_ADDRESS,
      "address",
    );
    expect(esplora.requests).to.deep.equal([]);
  });

  for (const status of [500, 503]) {
    it(`a ${status} from Esplora is UPSTREAM_UNAVAILABLE with the status`, async function () {
      esplora.answer(status, "upstream trouble", "text/plain");
      const error = await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
        ErrorCode.UPSTREAM_UNAVAILABLE,
        undefined,
      );
      expect(error.details).to.include({ backend: "esplora", status });
      expect(error.message).to.include(String(status));
    });
  }

  it("recorded: a proxy's 502 HTML page is UPSTREAM_UNAVAILABLE", async function () {
    esplora.answer(502, fixture("bad-gateway-502.html"), "text/html");
    const error = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_UNAVAILABLE,
      undefined,
    );
    expect(error.details).to.include({ status: 502, endpoint: `127.0.0.1:${esplora.port}` });
  });

  it("a 200 whose body is not JSON is UPSTREAM_UNAVAILABLE", async function () {
    esplora.answer(200, "<!DOCTYPE html><title>maintenance</title>", "text/html");
    const error = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_UNAVAILABLE,
      undefined,
    );
    expect(error.message).to.include("not JSON");
  });

  it("JSON without the address stats (or with a non-integer sum) is UPSTREAM_UNAVAILABLE", async function () {
    esplora.answer(200, JSON.stringify({ address: MAINNET_RECORDED }));
    await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_UNAVAILABLE,
      undefined,
    );
    const recorded = JSON.parse(fixture(`mainnet-address-${MAINNET_RECORDED}.json`));
    recorded.mempool_stats.funded_txo_sum = "12";
    esplora.answer(200, JSON.stringify(recorded));
    const error = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_UNAVAILABLE,
      undefined,
    );
    expect(error.message).to.include("mempool_stats");
  });

  it("a 429 says the service is rate limited; a 404 asks whether the URL is an Esplora base", async function () {
    esplora.answer(429, "Too Many Requests", "text/plain");
    const limited = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_UNAVAILABLE,
      undefined,
    );
    expect(limited.message).to.match(/rate limit/);
    esplora.answer(404, "Not Found", "text/plain");
    const missing = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_UNAVAILABLE,
      undefined,
    );
    expect(missing.message).to.include("Esplora API base");
  });

  it("an Esplora that never answers is UPSTREAM_TIMEOUT after the configured timeout", async function () {
    esplora.handler = () => undefined;
    const started = Date.now();
    const error = await expectServiceError(
      service.getBalances({ chain: "bitcoin", network: "mainnet", address: MAINNET_RECORDED }),
      ErrorCode.UPSTREAM_TIMEOUT,
      undefined,
    );
    const elapsed = Date.now() - started;
    expect(elapsed).to.be.at.least(900).and.below(10_000);
    expect(error.details).to.include({ backend: "esplora", timeoutMs: 1_000 });
  });

  it("an Esplora that sends headers then stalls the body is UPSTREAM_TIMEOUT too", async function () {
    const backend = new EsploraBackend({ baseUrl: esplora.baseUrl, timeoutMs: 300 });
    esplora.handler = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"address":');
    };
    await expectServiceError(backend.getBalance(MAINNET_RECORDED), ErrorCode.UPSTREAM_TIMEOUT, undefined);
  });

  it("a refused connection is UPSTREAM_UNAVAILABLE naming the reason", async function () {
    const backend = new EsploraBackend({ baseUrl: `http://127.0.0.1:${await closedPort()}/api`, timeoutMs: 2_000 });
    const error = await expectServiceError(backend.getBalance(MAINNET_RECORDED), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
    expect(error.details).to.include({ reason: "ECONNREFUSED" });
  });

  it("ping reads the tip height", async function () {
    const backend = new EsploraBackend({ baseUrl: esplora.baseUrl });
    esplora.answer(200, "871234", "text/plain");
    await backend.ping();
    expect(esplora.requests.map((request) => request.path)).to.deep.equal(["/api/blocks/tip/height"]);
    esplora.answer(200, "<html>", "text/html");
    await expectServiceError(backend.ping(), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
  });
});

describe("Esplora defaults", function () {
  it("mainnet, testnet (testnet4) and signet use mempool.space; regtest has no Esplora", function () {
    const backends = bitcoinBackendsFromEnv({});
    expect(backends.describe("mainnet")).to.deep.equal({ backend: "esplora", endpoint: "https://mempool.space/api" });
    expect(backends.describe("testnet")).to.deep.equal({ backend: "esplora", endpoint: "https://mempool.space/testnet4/api" });
    expect(backends.describe("signet")).to.deep.equal({ backend: "esplora", endpoint: "https://mempool.space/signet/api" });
    expect(backends.get("regtest")).to.equal(undefined);
  });

  it("TOKEN_SERVICE_ESPLORA_BITCOIN_<NETWORK> overrides a default, shown by host only", function () {
    const backends = bitcoinBackendsFromEnv({
      TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET: "https://esplora.example.org:3002/signet/api?key=secret",
    });
    expect(backends.describe("signet")).to.deep.equal({ backend: "esplora", endpoint: "esplora.example.org:3002" });
    expect(backends.describe("mainnet")?.endpoint).to.equal("https://mempool.space/api");
  });
});
