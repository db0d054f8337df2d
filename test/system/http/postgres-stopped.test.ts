import { expect } from "chai";
import pg from "pg";

import { resolveNetwork } from "../../../src/domain/chains.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { ownPostgres, type OwnPostgres } from "../../helpers/own-postgres.js";

describe("PostgreSQL stopped with `pg_ctl stop -m immediate` while wait=mined launches wait (a server of the test's own)", function () {
  let postgres: OwnPostgres;
  let api: RunningServer | undefined;

  before(async function () {
    postgres = await ownPostgres();
  });

  after(async function () {
    await api?.stop();
    postgres?.remove();
  });

  it("answers every launch 202 with its operation; keyed retries get that operation once the server is back; no launch twice", async function () {
    api = await startServer({ databaseUrl: postgres.url, blockTimeSeconds: 3, waitTimeoutMs: 30_000 });
    const pair = { chain: "ethereum", network: "sepolia" };
    const wallet = (await api.call("POST", "/api/v1/wallets", pair)).body;
    await api.call("POST", "/api/v1/faucet", { ...pair, address: wallet.address });
    const body = (index: number) => ({
      ...pair,
      type: "ERC20",
      token: { name: `Stopped ${index}`, symbol: `ST${index}` },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    const keys = [0, 1, 2].map((index) => `pg-stopped-${index}-${Date.now()}`);
    const keyed = keys.map((key, index) => api!.call("POST", "/api/v1/tokens?wait=mined", body(index), { "Idempotency-Key": key }));
    const keyless = [3, 4].map((index) => api!.call("POST", "/api/v1/tokens?wait=mined", body(index)));
    const direct = new pg.Client({ connectionString: postgres.url });
    await direct.connect();
    await eventually(
      async () => (await direct.query("SELECT count(*)::int AS n FROM operations WHERE kind = 'launch'")).rows[0].n as number,
      (count) => count === 5,
      20_000,
      20,
    );
    await direct.end();
    postgres.stopImmediately();
    const answers = await Promise.all([...keyed, ...keyless]);
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
      expect(answer.body.id).to.be.a("string");
      expect(["signed", "pending"]).to.include(answer.body.status);
    }
    postgres.start();
    const retries = await Promise.all(
      keys.map((key, index) =>
        eventually(
          () => api!.call("POST", "/api/v1/tokens?wait=mined", body(index), { "Idempotency-Key": key }),
          (retry) => retry.status !== 503,
          30_000,
        ),
      ),
    );
    retries.forEach((retry, index) => {
      expect(retry.status, JSON.stringify(retry.body)).to.be.oneOf([200, 202]);
      expect(retry.body.id, "the same operation").to.equal(answers[index]!.body.id);
    });
    for (const answer of answers)
      await eventually(
        () => api!.call("GET", `/api/v1/operations/${answer.body.id}`),
        (read) => read.body.status === "mined",
        60_000,
      );
    const chain = await api.server.service.evmChain(resolveNetwork("ethereum", "sepolia"), "read");
    expect(await chain.provider.getTransactionCount(wallet.address), "five intents, five launches").to.equal(5);
  });
});
