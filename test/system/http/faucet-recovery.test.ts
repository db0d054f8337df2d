import { randomUUID } from "node:crypto";
import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet } from "ethers";

import { openStore } from "../../../src/store/open-store.js";
import { eventually, startServer } from "../../helpers/http-server.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const PAIR = { chain: "ethereum", network: "sepolia" };

function signedGrant(id: string, address: string, amount: string) {
  return {
    id,
    apiKeyId: null,
    kind: "faucet" as const,
    ...PAIR,
    tokenType: null,
    params: { address, amount },
    sender: null,
    transactionHash: null,
    contractAddress: null,
    status: "signed" as const,
    error: null,
    reason: "grant recorded",
  };
}

describe("faucet grants: recorded before the balance changes, finished exactly once after a crash", function () {
  it("finishes a grant the journal holds without granting again, and makes one the crash cut off before it happened", async function () {
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-grant-"));
    try {
      // The state a process leaves when it dies between the journal line and the `mined` write (A), and between the
      // `signed` write and the grant (B).
      const [a, b] = [Wallet.createRandom().address, Wallet.createRandom().address];
      const [grantA, grantB] = [randomUUID(), randomUUID()];
      const store = await openStore({ dataDir });
      await store.insertOperation(signedGrant(grantA, a, "7000"));
      await store.insertOperation(signedGrant(grantB, b, "9000"));
      await store.close();
      await mkdir(path.join(dataDir, "chains"), { recursive: true });
      await appendFile(
        path.join(dataDir, "chains/ethereum-sepolia.jsonl"),
        `${JSON.stringify({ op: "fund", address: a, amount: "7000", grant: grantA })}\n`,
      );

      const api = await startServer({ dataDir });
      try {
        const records = await eventually(
          () => Promise.all([grantA, grantB].map((id) => api.server.store.getOperation(id))),
          (found) => found.every((record) => record?.status === "mined"),
          30_000,
        );
        expect(records[0]!.transitions.at(-1)!.reason).to.equal("granted (found in the chain's journal)");
        expect(records[0]!.result, "what a retry's answer reports as the balance").to.deep.equal({ balance: "7000" });
        expect(records[1]!.transitions.at(-1)!.reason).to.match(/^granted after a restart/);
        for (const [address, amount] of [
          [a, "7000"],
          [b, "9000"],
        ]) {
          const balance = await api.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${address}`);
          expect(balance.body.balances.ETH.balance, `${address} was granted once`).to.equal(amount);
        }
      } finally {
        await api.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describe("kill -9 of serve during concurrent grants with Idempotency-Keys", function () {
    const API_KEY = "faucet-crash-key-0123456789";
    let dataDir: string;
    let serve: ServeProcess | undefined;

    before(async function () {
      dataDir = await mkdtemp(path.join(tmpdir(), "hts-grant-crash-"));
    });

    after(async function () {
      await serve?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("answers every retry with its first outcome and grants each key's amount exactly once", async function () {
      this.timeout(240_000);
      serve = await startServe({ dataDir, apiKey: API_KEY });
      const grants: Array<{ key: string; body: { chain: string; network: string; address: string; amount: string } }> = [];
      const answered = new Map<string, any>();
      for (let round = 0; round < 2; round++) {
        const burst = Array.from({ length: 24 }, (_, index) => ({
          key: `grant-${round}-${index}`,
          body: { ...PAIR, address: Wallet.createRandom().address, amount: String(1_000 + round * 100 + index) },
        }));
        grants.push(...burst);
        let settled = 0;
        const current = serve;
        const inflight = burst.map((grant) =>
          current
            .call("POST", "/api/v1/faucet", grant.body, { "idempotency-key": grant.key })
            .then((response) => {
              if (response.status === 200) answered.set(grant.key, response.body);
            })
            .catch(() => undefined)
            .finally(() => settled++),
        );
        await eventually(
          async () => settled,
          (count) => count >= 3,
          60_000,
          2,
        );
        await serve.crash();
        await Promise.all(inflight);
        serve = await startServe({ dataDir, apiKey: API_KEY });
      }
      expect(answered.size, "some grants were answered before each crash").to.be.greaterThan(0);

      for (const grant of grants) {
        const retry = await eventually(
          () => serve!.call("POST", "/api/v1/faucet", grant.body, { "idempotency-key": grant.key }),
          (response) => response.body?.error?.code !== "IDEMPOTENCY_IN_PROGRESS",
          30_000,
          200,
        );
        expect(retry.status, `${grant.key}: ${JSON.stringify(retry.body)}`).to.equal(200);
        expect(retry.body.amount.balance).to.equal(grant.body.amount);
        const first = answered.get(grant.key);
        if (first !== undefined) expect(retry.body.id, grant.key).to.equal(first.id);
        const balance = await serve.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${grant.body.address}`);
        expect(balance.body.balances.ETH.balance, `${grant.key}: granted exactly once`).to.equal(grant.body.amount);
      }
      const listed = await serve.call("GET", "/api/v1/operations?limit=100");
      const faucets = listed.body.items.filter((item: { kind: string }) => item.kind === "faucet");
      expect(faucets.map((item: { status: string }) => item.status)).to.satisfy((statuses: string[]) =>
        statuses.every((status) => status === "mined"),
      );
      expect(new Set(faucets.map((item: any) => item.params.address)).size, "one record per key").to.equal(faucets.length);
    });
  });
});
