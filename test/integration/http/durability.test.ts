import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { eventually, startServer } from "../../helpers/http-server.js";
import { storeVariants } from "../../helpers/postgres-schema.js";

const STORES = storeVariants("hts_restart");

describe("HTTP service — idempotency across restarts, secrets in logs, block time", function () {
  for (const store of STORES) {
    it(`replays a launch for a retried Idempotency-Key, even after a restart, and sends nothing new — ${store.name}`, async function () {
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-restart-"));
      const database = await store.database(this);
      const storage = { dataDir, ...(database.url ? { databaseUrl: database.url } : {}) };
      try {
        let api = await startServer(storage);
        const { body: wallet } = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
        await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
        const request = {
          chain: "ethereum",
          network: "sepolia",
          type: "ERC20",
          token: { name: "Once", symbol: "ONE", initialSupply: "1" },
          sender: wallet.address,
          privateKey: wallet.privateKey,
        };
        const headers = { "Idempotency-Key": "launch-once" };
        const first = await api.call("POST", "/api/v1/tokens", request, headers);
        expect(first.status).to.equal(200);
        const retry = await api.call("POST", "/api/v1/tokens", request, headers);
        expect(retry.body).to.deep.equal(first.body);
        expect(retry.headers.get("idempotent-replayed")).to.equal("true");
        await api.stop({ keepData: true });

        api = await startServer(storage);
        const afterRestart = await api.call("POST", "/api/v1/tokens", request, headers);
        expect(afterRestart.status).to.equal(200);
        expect(afterRestart.body).to.deep.equal(first.body);
        // The simulated chain came back from its journal: the contract exists and the sender's nonce moved once only.
        const tokens = await api.call(
          "GET",
          `/api/v1/wallets?chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${first.body.contractAddress}`,
        );
        expect(tokens.body.balances.ONE.balance).to.equal("1");
        const nonce = await api.server.service
          .evmChain(
            api.server.service.networks().find((pair) => pair.network === "sepolia")!,
            "test",
          )
          .then((chain) => chain.provider.getTransactionCount(wallet.address, "pending"));
        expect(nonce).to.equal(1);
        const listed = await api.call("GET", "/api/v1/operations");
        expect(listed.body.items.filter((item: { kind: string }) => item.kind === "launch")).to.have.length(1);
        await api.stop({ keepData: true });
      } finally {
        await rm(dataDir, { recursive: true, force: true });
        await database.drop();
      }
    });
  }

  it("keeps private keys out of the logs of a launch, a failed launch and a mint", async function () {
    const api = await startServer();
    try {
      const { body: wallet } = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
      const { body: poor } = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
      await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
        chain: "ethereum",
        network: "sepolia",
        type: "ERC721",
        token: { name: "Quiet", symbol: "QT" },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      expect(launched.status).to.equal(200);
      await api.call("POST", "/api/v1/tokens/mint", {
        chain: "ethereum",
        network: "sepolia",
        type: "ERC721",
        contractAddress: launched.body.contractAddress,
        to: poor.address,
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      const failed = await api.call("POST", "/api/v1/tokens", {
        chain: "ethereum",
        network: "sepolia",
        type: "ERC20",
        token: { name: "X", symbol: "X" },
        sender: poor.address,
        privateKey: poor.privateKey,
      });
      expect(failed.status).to.equal(422);
      const logs = api.logs.text();
      expect(api.logs.lines.length).to.be.greaterThan(4);
      for (const key of [wallet.privateKey, poor.privateKey]) {
        expect(logs).not.to.include(key.slice(2));
        expect(logs.toLowerCase()).not.to.include(key.slice(2).toLowerCase());
      }
      const line = JSON.parse(api.logs.lines.find((entry) => entry.includes('"path":"/api/v1/tokens"'))!);
      expect(line).to.include({ method: "POST", path: "/api/v1/tokens" });
      expect(line).to.have.property("latencyMs");
      expect(line.keyId).to.match(/^env-/);
    } finally {
      await api.stop();
    }
  });

  it("with --block-time 2 a balance read right after a launch does not show the tokens yet; after mining it does", async function () {
    const api = await startServer({ blockTimeSeconds: 2 });
    try {
      const { body: wallet } = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "mainnet" });
      await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "mainnet", address: wallet.address });
      const launched = await api.call("POST", "/api/v1/tokens", {
        chain: "ethereum",
        network: "mainnet",
        type: "ERC20",
        token: { name: "Slow", symbol: "SLW", initialSupply: "7" },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      expect(launched.status).to.equal(200);
      const status = await api.call("GET", `/api/v1/transactions/${launched.body.transactionHash}?chain=ethereum&network=mainnet`);
      expect(status.body.status).to.equal("pending");
      const early = await api.call(
        "GET",
        `/api/v1/wallets?chain=ethereum&network=mainnet&address=${wallet.address}&erc20TokenContractAddresses=${launched.body.contractAddress}`,
      );
      expect(early.status).to.equal(422);
      expect(early.body.error.code).to.equal("NOT_A_TOKEN_CONTRACT");
      const later = await eventually(
        () =>
          api.call(
            "GET",
            `/api/v1/wallets?chain=ethereum&network=mainnet&address=${wallet.address}&erc20TokenContractAddresses=${launched.body.contractAddress}`,
          ),
        (response) => response.status === 200,
        10_000,
        250,
      );
      expect(later.body.balances.SLW.balance).to.equal("7");
    } finally {
      await api.stop();
    }
  });
});
