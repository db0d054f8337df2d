import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { eventually } from "../../helpers/http-server.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const API_KEY = "crash-test-key-0123456789";
const PAIR = { chain: "ethereum", network: "sepolia" };
const ROUNDS = 2;
const BURST = 16;

interface Launch {
  key: string;
  body: Record<string, unknown>;
}

async function listRecords(serve: ServeProcess): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await serve.call("GET", `/api/v1/operations?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

const VARIANTS = [
  { name: "embedded SQLite", database: async (_context: Mocha.Context) => ({ env: {}, drop: async () => {} }) },
  {
    name: "PostgreSQL server",
    database: async (context: Mocha.Context) => {
      const schema = await freshPostgresSchema(context, "hts_crash");
      // Short leases: a dead process's claims and records are taken over within seconds.
      return {
        env: { DATABASE_URL: schema.url, TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS: "4", TOKEN_SERVICE_LEASE_SECONDS: "3" },
        drop: schema.drop,
      };
    },
  },
];

for (const variant of VARIANTS) {
  describe(`crash recovery (${variant.name}): kill -9 of serve mid-burst, restart at once on the same data`, function () {
    let dataDir: string;
    let serve: ServeProcess | undefined;
    let drop = async () => {};

    before(async function () {
      dataDir = await mkdtemp(path.join(tmpdir(), "hts-crash-"));
    });

    after(async function () {
      await serve?.stop();
      await drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("answers every idempotent retry with its original outcome, sends no launch twice, and brings every record to mined", async function () {
      this.timeout(300_000);
      const database = await variant.database(this);
      drop = database.drop;
      serve = await startServe({ dataDir, apiKey: API_KEY, env: database.env });
      const wallet = (await serve.call("POST", "/api/v1/wallets", PAIR)).body;
      expect((await serve.call("POST", "/api/v1/faucet", { ...PAIR, address: wallet.address })).status).to.equal(200);

      const launches: Launch[] = [];
      const answered = new Map<string, any>();
      for (let round = 0; round < ROUNDS; round++) {
        const burst = Array.from({ length: BURST }, (_, index) => ({
          key: `crash-${round}-${index}`,
          body: {
            ...PAIR,
            type: "ERC20",
            token: { name: `Crash ${round}-${index}`, symbol: `C${round}X${index}`, initialSupply: "1" },
            sender: wallet.address,
            privateKey: wallet.privateKey,
          },
        }));
        launches.push(...burst);
        let settled = 0;
        const current = serve;
        const inflight = burst.map((launch) =>
          current
            .call("POST", "/api/v1/tokens", launch.body, { "idempotency-key": launch.key })
            .then((response) => {
              if (response.status === 200) answered.set(launch.key, response.body);
            })
            .catch(() => undefined)
            .finally(() => settled++),
        );
        // Crash once a few launches were answered and the rest are somewhere between claim, signature and broadcast.
        await eventually(
          async () => settled,
          (count) => count >= 4,
          60_000,
          5,
        );
        await serve.crash();
        await Promise.all(inflight);
        serve = await startServe({ dataDir, apiKey: API_KEY, env: database.env });
      }
      expect(answered.size, "some launches were answered before each crash").to.be.greaterThan(0);
      // The banner says what the restart replayed.
      expect(serve.output()).to.match(/ethereum-sepolia\.jsonl: \d+ entries, [\d.]+ KiB, replayed in [\d.]+ s/);

      for (const launch of launches) {
        const retry = await eventually(
          () => serve!.call("POST", "/api/v1/tokens", launch.body, { "idempotency-key": launch.key }),
          (response) => response.body?.error?.code !== "IDEMPOTENCY_IN_PROGRESS",
          30_000,
          200,
        );
        expect(retry.status, `${launch.key}: ${JSON.stringify(retry.body)}`).to.equal(200);
        const first = answered.get(launch.key);
        if (first !== undefined) {
          expect(retry.body.transactionHash, launch.key).to.equal(first.transactionHash);
          expect(retry.body.contractAddress, launch.key).to.equal(first.contractAddress);
        }
      }

      const records = await eventually(
        () => listRecords(serve!),
        (items) => items.filter((item) => item.kind === "launch").every((item) => ["mined", "failed", "dropped"].includes(item.status)),
        60_000,
        250,
      );
      const launched = records.filter((item) => item.kind === "launch");
      for (const record of launched) expect(record.status, JSON.stringify(record.transitions)).to.equal("mined");
      const names = launched.map((record) => record.params.name).sort();
      expect(names, "one record per logical launch").to.deep.equal(
        launches.map((launch) => (launch.body.token as { name: string }).name).sort(),
      );
      expect(new Set(launched.map((record) => record.nonce)).size, "distinct nonces").to.equal(launched.length);

      for (const [key, first] of answered) {
        const status = await serve.call("GET", `/api/v1/transactions/${first.transactionHash}?chain=ethereum&network=sepolia`);
        expect(status.body.status, `${key} answered before the crash is on chain`).to.equal("mined");
        const balance = await serve.call(
          "GET",
          `/api/v1/wallets?chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${first.contractAddress}`,
        );
        expect(balance.status, JSON.stringify(balance.body)).to.equal(200);
      }
    });
  });
}
