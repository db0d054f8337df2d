import { DatabaseSync } from "node:sqlite";
import { expect } from "chai";
import pg from "pg";

import { resolveNetwork } from "../../../src/domain/chains.js";
import { isDataException, isDatabaseUnavailable } from "../../../src/http/database-errors.js";
import { eventually, startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { freshPostgresSchema, requirePostgres } from "../../helpers/postgres-schema.js";
import { parseRawResponse, rawConnection, within } from "../../helpers/raw-http.js";
import { closedPort } from "../../helpers/service.js";
import { startTcpRelay, type TcpRelay } from "../../helpers/tcp-relay.js";

function expectUnavailable(response: { status: number; body: any; headers: Headers }): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(503);
  expect(response.body.error.code).to.equal("SERVICE_UNAVAILABLE");
  expect(Number(response.headers.get("retry-after"))).to.be.greaterThan(0);
}

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("Database outage — 503 with Retry-After, never 500", function () {
  describe("the errors real database clients raise", function () {
    it("a refused connection, a terminated backend and a closed SQLite database are outages; a bad value is not", async function () {
      const serverUrl = await requirePostgres(this);
      const nobody = `postgresql://postgres@127.0.0.1:${await closedPort()}/test`;
      const refused = await failureOf(() => new pg.Client({ connectionString: nobody }).connect());
      expect(isDatabaseUnavailable(refused), String(refused)).to.equal(true);

      const victim = new pg.Client({ connectionString: serverUrl });
      victim.on("error", () => undefined);
      await victim.connect();
      const [{ pid }] = (await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows as [{ pid: number }];
      const sleeping = failureOf(() => victim.query("SELECT pg_sleep(30)"));
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await eventually(
        async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'", [pid])).rowCount,
        (count) => count === 1,
        10_000,
        20,
      );
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      const terminated = await sleeping;
      expect((terminated as { code?: string }).code).to.equal("57P01");
      expect(isDatabaseUnavailable(terminated)).to.equal(true);

      const badValue = await failureOf(() => admin.query("SELECT $1::bigint", ["99999999999999999999"]));
      expect(isDatabaseUnavailable(badValue)).to.equal(false);
      expect(isDataException(badValue)).to.equal(true);
      await admin.end();
      await victim.end().catch(() => undefined);

      const embedded = new DatabaseSync(":memory:");
      embedded.close();
      const closed = await failureOf(async () => embedded.prepare("SELECT 1"));
      expect(isDatabaseUnavailable(closed), String(closed)).to.equal(true);
    });
  });

  describe("PostgreSQL server behind a network path that goes down", function () {
    let api: RunningServer;
    let relay: TcpRelay;
    let schema: { url: string; drop(): Promise<void> };

    before(async function () {
      schema = await freshPostgresSchema(this, "hts_outage");
      const target = new URL(schema.url);
      relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
      const throughRelay = new URL(schema.url);
      throughRelay.hostname = "127.0.0.1";
      throughRelay.port = String(relay.port);
      api = await startServer({ databaseUrl: throughRelay.toString() });
    });

    after(async function () {
      await api?.stop();
      await relay?.close();
      await schema?.drop();
    });

    it("answers 503 SERVICE_UNAVAILABLE with Retry-After while the database is unreachable, and recovers", async function () {
      expect((await api.call("GET", "/api/v1/operations")).status).to.equal(200);
      await relay.cut();

      expectUnavailable(await api.call("GET", "/api/v1/operations"));
      expectUnavailable(await api.call("GET", "/api/v1/operations"));
      // A key that is not configured is looked up in the database: the outage is answered once, and the
      // connection stays usable (a second answer to the same request would make Express destroy it).
      const connection = await rawConnection(
        api.baseUrl,
        "GET /api/v1/networks HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: hts_not_configured\r\n\r\n",
      );
      try {
        await eventually(
          async () => connection.received(),
          (text) => text.includes("SERVICE_UNAVAILABLE") || connection.isClosed(),
          10_000,
          10,
        );
        expect(parseRawResponse(connection.received()).status).to.equal(503);
        connection.socket.write("GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        await within(connection.closed, 10_000, "second request answered");
        expect(connection.received().match(/HTTP\/1\.1 \d{3}/g)).to.deep.equal(["HTTP/1.1 503", "HTTP/1.1 200"]);
      } finally {
        connection.socket.destroy();
      }
      const health = await api.call("GET", "/health");
      expect(health.status).to.equal(503);
      expect(health.body.backends.database.ready).to.equal(false);
      const metrics = await fetch(`${api.baseUrl}/metrics`, { headers: { "x-api-key": TEST_API_KEY } });
      expect(metrics.status, "the scrape answers while the database is down").to.equal(200);
      expect(await metrics.text()).to.match(/^token_service_database_ready 0$/m);

      await relay.restore();
      await eventually(
        () => api.call("GET", "/api/v1/operations"),
        (response) => response.status === 200,
        20_000,
      );
      expect(api.logs.text()).not.to.include('"code":"INTERNAL"');
    });
  });

  describe("PostgreSQL lost while wait=mined launches wait: an answer after the broadcast is never 'retry'", function () {
    let api: RunningServer;
    let relay: TcpRelay;
    let schema: { url: string; drop(): Promise<void> };
    let direct: pg.Client;

    before(async function () {
      schema = await freshPostgresSchema(this, "hts_outage_wait");
      const target = new URL(schema.url);
      relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
      const throughRelay = new URL(schema.url);
      throughRelay.hostname = "127.0.0.1";
      throughRelay.port = String(relay.port);
      // Blocks every 3 s: a launch waits for mining long enough for the database to go away under it.
      api = await startServer({ databaseUrl: throughRelay.toString(), blockTimeSeconds: 3, waitTimeoutMs: 30_000 });
      direct = new pg.Client({ connectionString: schema.url });
      await direct.connect();
    });

    after(async function () {
      await direct?.end();
      await api?.stop();
      await relay?.close();
      await schema?.drop();
    });

    it("answers 202 with the operation's id and state; a retry with the same key gets that operation, not a second launch", async function () {
      const pair = { chain: "ethereum", network: "sepolia" };
      const wallet = (await api.call("POST", "/api/v1/wallets", pair)).body;
      await api.call("POST", "/api/v1/faucet", { ...pair, address: wallet.address });
      const body = (index: number) => ({
        ...pair,
        type: "ERC20",
        token: { name: `Outage ${index}`, symbol: `OUT${index}` },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      const keys = [0, 1, 2].map((index) => `outage-wait-${index}-${Date.now()}`);
      const launches = keys.map((key, index) => api.call("POST", "/api/v1/tokens?wait=mined", body(index), { "Idempotency-Key": key }));
      // Two clients without a key: told 202 with the operation, they have nothing to retry.
      const keyless = [3, 4].map((index) => api.call("POST", "/api/v1/tokens?wait=mined", body(index)));
      // Once all three are recorded (read past the relay), the database goes away while they wait for their block.
      await eventually(
        async () => (await direct.query("SELECT count(*)::int AS n FROM operations WHERE kind = 'launch'")).rows[0].n as number,
        (count) => count === 5,
        20_000,
        20,
      );
      await relay.cut();
      const answers = await Promise.all(launches);
      for (const answer of await Promise.all(keyless)) {
        expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
        expect(answer.body.id).to.be.a("string");
      }
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
        expect(answer.body.id).to.be.a("string");
        expect(["signed", "pending"]).to.include(answer.body.status);
      }
      await relay.restore();

      const retries = await Promise.all(
        keys.map((key, index) => api.call("POST", "/api/v1/tokens?wait=mined", body(index), { "Idempotency-Key": key })),
      );
      retries.forEach((retry, index) => {
        expect(retry.status, JSON.stringify(retry.body)).to.be.oneOf([200, 202]);
        expect(retry.body.id, "the same operation").to.equal(answers[index]!.body.id);
        expect(retry.headers.get("idempotent-replayed")).to.equal("true");
      });
      const settled = await eventually(
        async () => (await direct.query("SELECT status, contract_address FROM operations WHERE kind = 'launch'")).rows,
        (rows) => rows.every((row) => row.status === "mined"),
        30_000,
      );
      expect(settled, "five intents, five launches").to.have.length(5);
      const chain = await api.server.service.evmChain(resolveNetwork("ethereum", "sepolia"), "read");
      expect(await chain.provider.getTransactionCount(wallet.address), "no launch was sent twice").to.equal(5);
    });
  });

  describe("the embedded database, closed", function () {
    let api: RunningServer;

    before(async function () {
      api = await startServer();
    });

    after(async function () {
      await api?.stop();
    });

    it("answers 503 with Retry-After, not 500", async function () {
      await api.server.store.close();
      expectUnavailable(await api.call("GET", "/api/v1/operations"));
      const grant = { chain: "ethereum", network: "sepolia", address: "0x0000000000000000000000000000000000000001" };
      expectUnavailable(await api.call("POST", "/api/v1/faucet", grant, { "Idempotency-Key": "outage-1" }));
    });
  });
});
