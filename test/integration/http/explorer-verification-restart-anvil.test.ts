import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { explorerEnvironment, startExplorerStub, type ExplorerStub } from "../../helpers/explorer-stub.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

// A verification outlives the process that took it (Etherscan answers from hand-written fixtures on loopback, tokens on anvil): a service
// started again on the same store carries a pending record on, asking with the guid it kept, never submitting again; two
// replicas on one PostgreSQL submit it once between them; a record pending past TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS
// fails, saying so with the explorer's last words.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const KEY = { sender: ANVIL_ACCOUNT.address, privateKey: ANVIL_ACCOUNT.privateKey };

async function launch(api: RunningServer): Promise<string> {
  const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
    ...SEPOLIA,
    ...KEY,
    type: "ERC20",
    token: { name: "Restarted", symbol: "RST", initialSupply: "1" },
  });
  expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
  return launched.body.contractAddress as string;
}

const record = (api: RunningServer, id: string) => api.call("GET", `/api/v1/verifications/${id}`);

describe("explorer verification across restarts and replicas (Etherscan answers from fixtures, tokens on anvil)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let etherscan: ExplorerStub;

  before(async function () {
    node = await startAnvil();
    etherscan = await startExplorerStub("etherscan");
  });

  after(async function () {
    await etherscan?.stop();
    await node?.stop();
  });

  const env = () => ({
    TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url,
    TOKEN_SERVICE_VERIFY_POLL_SECONDS: "0.05",
    ...explorerEnvironment({ etherscan }),
  });

  it("fixture: a service started again on the same store goes on asking about a pending record, and does not submit it again", async function () {
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-verify-restart-"));
    try {
      const first = await startServer({ dataDir, env: env() });
      const address = await launch(first);
      etherscan.script("submit-accepted", ["check-pending"]);
      const accepted = await first.call("POST", `/api/v1/tokens/${address}/verify`, { ...SEPOLIA, explorer: "etherscan" });
      expect(accepted.status).to.equal(202);
      const pending = await eventually(
        () => record(first, accepted.body.id),
        (answer) => answer.body.explorerReference !== null && answer.body.explorerMessage === "Pending in queue",
      );
      expect(etherscan.submissions).to.have.length(1);
      await first.stop({ keepData: true });

      // The explorer decides while no service runs; the next one asks with the guid the first kept.
      etherscan.script("submit-accepted", ["check-pass"]);
      const second = await startServer({ dataDir, env: env() });
      try {
        const verified = await eventually(
          () => record(second, accepted.body.id),
          (answer) => answer.body.status !== "pending",
        );
        expect(verified.body).to.deep.include({ status: "verified", explorerMessage: "Pass - Verified" });
        expect(etherscan.submissions).to.have.length(0);
        expect(etherscan.checks).to.deep.equal([pending.body.explorerReference]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("fixture: two replicas on one PostgreSQL submit a record once between them, both asking about it under the lease", async function () {
    const schema = await freshPostgresSchema(this, "hts_verify_replicas");
    const shared = { ...env(), TOKEN_SERVICE_SIMULATED_CHAINS: "off" };
    const replicas = [
      await startServer({ databaseUrl: schema.url, env: shared }),
      await startServer({ databaseUrl: schema.url, env: shared }),
    ];
    try {
      const address = await launch(replicas[0]!);
      etherscan.script("submit-accepted", ["check-pending"]);
      const accepted = await replicas[0]!.call("POST", `/api/v1/tokens/${address}/verify`, { ...SEPOLIA, explorer: "etherscan" });
      await eventually(
        () => record(replicas[1]!, accepted.body.id),
        () => etherscan.checks.length >= 20,
      );
      expect(etherscan.submissions).to.have.length(1);
      etherscan.script("submit-accepted", ["check-pass"]);
      const verified = await eventually(
        () => record(replicas[1]!, accepted.body.id),
        (answer) => answer.body.status !== "pending",
      );
      expect(verified.body.status).to.equal("verified");
      expect(etherscan.submissions).to.have.length(0);
    } finally {
      for (const replica of replicas) await replica.stop();
      await schema.drop();
    }
  });

  it("fixture: a record still pending in the explorer's queue after TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS fails, saying so", async function () {
    const api = await startServer({ env: { ...env(), TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS: "1" } });
    try {
      const address = await launch(api);
      etherscan.script("submit-accepted", ["check-pending"]);
      const accepted = await api.call("POST", `/api/v1/tokens/${address}/verify`, { ...SEPOLIA, explorer: "etherscan" });
      const failed = await eventually(
        () => record(api, accepted.body.id),
        (answer) => answer.body.status !== "pending",
      );
      expect(failed.body.status).to.equal("failed");
      expect(failed.body.explorerMessage).to.match(
        /^still not verified by Etherscan after \d+ s \(TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS\); its last answer: Pending in queue$/,
      );
      expect(etherscan.submissions).to.have.length(1);
    } finally {
      await api.stop();
    }
  });
});
