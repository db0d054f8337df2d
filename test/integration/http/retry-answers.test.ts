import { expect } from "chai";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { settledRecords } from "../../helpers/records.js";
import { startTcpRelay, type TcpRelay } from "../../helpers/tcp-relay.js";

// An answer that says "retry" (429, 503) is given only when the request did nothing: counted on a real node (anvil), not
// in the answers. A client that retries every such answer as told must never launch twice.

const PAIR = { chain: "ethereum", network: "sepolia" };
const sender = ANVIL_ACCOUNT;

function launch(api: RunningServer, index: number) {
  return api.call("POST", "/api/v1/tokens", {
    ...PAIR,
    type: "ERC20",
    token: { name: `Retry ${index}`, symbol: `RT${index}` },
    sender: sender.address,
    privateKey: sender.privateKey,
  });
}

/**
 * The records the service holds once all are final, and the sender's transactions the node holds then: what a request
 * started, answered or not, has reached the node by the time its record is final.
 */
async function outcome(api: RunningServer, anvil: AnvilNode, before: number): Promise<{ records: number; onNode: number }> {
  const records = await settledRecords(api, eventually);
  const onNode = Number(await anvil.rpc("eth_getTransactionCount", [sender.address, "pending"])) - before;
  return { records: records.length, onNode };
}

describe("answers that say retry leave no trace, counted on anvil", function () {
  this.timeout(120_000);
  let anvil: AnvilNode;

  beforeEach(async function () {
    anvil = await startAnvil({ chainId: 11155111 });
  });

  afterEach(async function () {
    await anvil?.stop();
  });

  it("429 RATE_LIMITED: the launches on the node are the launches answered 2xx", async function () {
    const api = await startServer({ rpcUrls: { "ethereum/sepolia": anvil.url }, rateLimit: { limit: 12, windowMs: 2_000 } });
    try {
      const before = Number(await anvil.rpc("eth_getTransactionCount", [sender.address, "pending"]));
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => launch(api, index)));
      const accepted = answers.filter((answer) => answer.status === 200 || answer.status === 202).length;
      const limited = answers.filter((answer) => answer.status === 429);
      expect(accepted + limited.length, JSON.stringify(answers.map((answer) => answer.status))).to.equal(30);
      expect(limited.length).to.be.greaterThan(0);
      for (const answer of limited) {
        expect(answer.body.error.code).to.equal("RATE_LIMITED");
        expect(Number(answer.headers.get("retry-after"))).to.be.greaterThan(0);
      }
      expect(await outcome(api, anvil, before)).to.deep.equal({ records: accepted, onNode: accepted });
    } finally {
      await api.stop();
    }
  });

  describe("503 SERVICE_UNAVAILABLE: PostgreSQL cut off in the middle of a burst", function () {
    let relay: TcpRelay | undefined;
    let schema: { url: string; drop(): Promise<void> } | undefined;

    afterEach(async function () {
      await relay?.close();
      await schema?.drop();
    });

    it("the launches on the node are the launches answered 2xx; every other answer is a 503 to retry", async function () {
      schema = await freshPostgresSchema(this, "hts_retry");
      const target = new URL(schema.url);
      relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
      const throughRelay = new URL(schema.url);
      throughRelay.hostname = "127.0.0.1";
      throughRelay.port = String(relay.port);
      const api = await startServer({ rpcUrls: { "ethereum/sepolia": anvil.url }, databaseUrl: throughRelay.toString() });
      try {
        const before = Number(await anvil.rpc("eth_getTransactionCount", [sender.address, "pending"]));
        // The path to the database goes down once the burst's first launches are answered, with the rest in flight.
        let answered = 0;
        let cut: Promise<void> | undefined;
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            launch(api, index).then((answer) => {
              if (++answered === 3) cut = relay!.cut();
              return answer;
            }),
          ),
        );
        await cut;
        const accepted = answers.filter((answer) => answer.status === 200 || answer.status === 202).length;
        const unavailable = answers.filter((answer) => answer.status === 503);
        expect(
          accepted + unavailable.length,
          JSON.stringify(answers.filter((answer) => answer.status !== 503).map((answer) => [answer.status, answer.body])),
        ).to.equal(40);
        for (const answer of unavailable) {
          expect(["SERVICE_UNAVAILABLE", "STORAGE_UNAVAILABLE"]).to.include(answer.body.error.code);
          expect(Number(answer.headers.get("retry-after"))).to.be.greaterThan(0);
        }
        expect(unavailable.length, "some launches met the outage").to.be.greaterThan(0);
        await relay.restore();
        expect(await outcome(api, anvil, before), `${accepted} answered 2xx, ${unavailable.length} answered 503`).to.deep.equal({
          records: accepted,
          onNode: accepted,
        });
      } finally {
        await api.stop();
      }
    });
  });
});
