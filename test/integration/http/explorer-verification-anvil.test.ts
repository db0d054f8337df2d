import { expect } from "chai";
import { Wallet } from "ethers";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import {
  expectSubmission,
  explorerEnvironment,
  startExplorerStub,
  type ExpectedVerification,
  type ExplorerStub,
  type StubExplorer,
} from "../../helpers/explorer-stub.js";
import { TEST_API_KEY, eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { createTokenServiceClient, type VerificationRecord, type VerifyTokenBody } from "../../../src/client/index.js";

// POST /tokens/{address}/verify against explorer answers from fixtures (test/fixtures/explorers/, served on loopback): for each
// explorer a verified, a failed (with the explorer's words), a pending-then-verified and an already-verified submission
// of a token launched on anvil; each submits once, with the standard JSON input, contract, compiler and constructor
// arguments GET /tokens/{address}/verification gives, and ends in a final record. Then the refusals.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const KEY = { sender: ANVIL_ACCOUNT.address, privateKey: ANVIL_ACCOUNT.privateKey };
const EXPLORERS: StubExplorer[] = ["etherscan", "sourcify", "blockscout"];

/** The contract page each explorer's record links to (Sourcify's only for sourcify.dev: the stub is another server). */
function expectedUrl(explorer: StubExplorer, stub: ExplorerStub, address: string): string | null {
  if (explorer === "etherscan") return `https://sepolia.etherscan.io/address/${address}#code`;
  if (explorer === "blockscout") return `${stub.url}/address/${address}#code`;
  return null;
}

describe("explorer verification (Etherscan, Blockscout and Sourcify answers from hand-written fixtures, tokens on anvil)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let api: RunningServer;
  const stubs = {} as Record<StubExplorer, ExplorerStub>;
  let expected: ExpectedVerification;

  before(async function () {
    node = await startAnvil();
    for (const explorer of EXPLORERS) stubs[explorer] = await startExplorerStub(explorer);
    api = await startServer({
      env: {
        TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url,
        TOKEN_SERVICE_VERIFY_POLL_SECONDS: "0.05",
        ...explorerEnvironment(stubs),
      },
    });
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      ...KEY,
      type: "ERC20",
      token: { name: "Verified", symbol: "VER", initialSupply: "1000", options: { burnable: true, access: "ownable" } },
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    const input = await api.call("GET", `/api/v1/tokens/${launched.body.contractAddress}/verification?chain=ethereum&network=sepolia`);
    expect(input.status).to.equal(200);
    expected = input.body;
  });

  after(async function () {
    await api?.stop();
    for (const stub of Object.values(stubs)) await stub.stop();
    await node?.stop();
  });

  /** Submits the token to the explorer and reads its record until final. */
  async function verify(explorer: StubExplorer) {
    const accepted = await api.call("POST", `/api/v1/tokens/${expected.address.toLowerCase()}/verify`, { ...SEPOLIA, explorer });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(202);
    expect(accepted.body).to.deep.include({ status: "pending", explorer, ...SEPOLIA, address: expected.address });
    expect(accepted.body.createdAt).to.be.a("string");
    const final = await eventually(
      () => api.call("GET", `/api/v1/verifications/${accepted.body.id}`),
      (answer) => answer.body.status !== "pending",
      30_000,
      25,
    );
    expect(final.status).to.equal(200);
    return final.body;
  }

  for (const explorer of EXPLORERS) {
    describe(explorer, function () {
      it(`fixture: ${explorer} verifies the submission, which carries the token's verification input`, async function () {
        const stub = stubs[explorer];
        stub.script("submit-accepted", ["check-pass"]);
        const record = await verify(explorer);
        expect(record.status).to.equal("verified");
        expect(record.explorerMessage).to.match(explorer === "sourcify" ? /^exact_match/ : /^Pass - Verified$/);
        expect(record.url).to.equal(expectedUrl(explorer, stub, expected.address));
        expect(stub.submissions).to.have.length(1);
        expectSubmission(stub, stub.submissions[0], expected, 11155111);
        expect(record.explorerReference).to.equal(stub.checks[0]);
      });

      it(`fixture: ${explorer} fails the verification, and the record keeps its words`, async function () {
        const stub = stubs[explorer];
        stub.script("submit-accepted", ["check-fail"]);
        const record = await verify(explorer);
        expect(record.status).to.equal("failed");
        const words = {
          etherscan: "Fail - Unable to verify. Compiled contract deployment bytecode does NOT match the transaction deployment bytecode.",
          blockscout: "Fail - Unable to verify",
          sourcify: "no_match: The onchain and recompiled bytecodes don't match.",
        }[explorer];
        expect(record.explorerMessage).to.equal(words);
        expect(stub.submissions).to.have.length(1);
      });

      it(`fixture: ${explorer} keeps it pending in its queue, then verifies it; submitted once, asked until final`, async function () {
        const stub = stubs[explorer];
        stub.script("submit-accepted", ["check-pending", "check-pending", "check-pending", "check-pass"]);
        const record = await verify(explorer);
        expect(record.status).to.equal("verified");
        expect(stub.submissions).to.have.length(1);
        expect(stub.checks).to.have.length(4);
        expect(new Set(stub.checks).size).to.equal(1);
      });

      it(`fixture: ${explorer} answers that the contract is already verified, which counts as verified`, async function () {
        const stub = stubs[explorer];
        stub.script("submit-already-verified");
        const record = await verify(explorer);
        expect(record.status).to.equal("verified");
        expect(record.explorerMessage).to.match(/already verified/i);
        expect(record.explorerReference).to.equal(null);
        expect(stub.checks).to.have.length(0);
      });
    });
  }

  it("fixture: Etherscan does not see the contract yet; the submission is made again until it does, then verified", async function () {
    const stub = stubs.etherscan;
    stub.script(["submit-not-indexed", "submit-not-indexed", "submit-accepted"], ["check-pass"]);
    const record = await verify("etherscan");
    expect(record.status).to.equal("verified");
    expect(stub.submissions).to.have.length(3);
    expect(stub.checks).to.have.length(1);
  });

  it("fixture: an explorer's refusal of the submission itself fails the record with its words (Etherscan, Sourcify)", async function () {
    stubs.etherscan.script("submit-invalid-key");
    const etherscan = await verify("etherscan");
    expect(etherscan).to.deep.include({
      status: "failed",
      explorerMessage: "Invalid API Key (#err2)|ETHERSCANV2",
      explorerReference: null,
    });
    stubs.sourcify.script("submit-unsupported-chain");
    const sourcify = await verify("sourcify");
    expect(sourcify).to.deep.include({
      status: "failed",
      explorerMessage: "unsupported_chain: The chain with chainId 11155111 is not supported for verification",
    });
    expect(stubs.sourcify.checks).to.have.length(0);
  });

  it("fixture: the typed client submits and reads the record (hardhat-token-service/client)", async function () {
    stubs.sourcify.script("submit-accepted", ["check-pass"]);
    const client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
    const body: VerifyTokenBody = { ...SEPOLIA, explorer: "sourcify" };
    const { data: accepted, response } = await client.POST("/api/v1/tokens/{address}/verify", {
      params: { path: { address: expected.address } },
      body,
    });
    expect(response.status).to.equal(202);
    let record: VerificationRecord | undefined = accepted;
    while (record?.status === "pending") {
      await new Promise((resolve) => setTimeout(resolve, 25));
      record = (await client.GET("/api/v1/verifications/{id}", { params: { path: { id: accepted!.id } } })).data;
    }
    expect(record).to.deep.include({ status: "verified", explorer: "sourcify", address: expected.address });
  });

  it("answers the pending record again for a second request while the first is pending (one submission)", async function () {
    const stub = stubs.etherscan;
    stub.script("submit-accepted", ["check-pending"]);
    const path = `/api/v1/tokens/${expected.address}/verify`;
    const first = await api.call("POST", path, { ...SEPOLIA, explorer: "etherscan" });
    const second = await api.call("POST", path, { ...SEPOLIA, explorer: "etherscan" });
    expect(second.body.id).to.equal(first.body.id);
    await eventually(
      () => api.call("GET", `/api/v1/verifications/${first.body.id}`),
      (answer) => answer.body.explorerReference !== null,
    );
    expect(stub.submissions).to.have.length(1);
    // Ends it, for the tests after.
    stub.script("submit-accepted", ["check-pass"]);
    await eventually(
      () => api.call("GET", `/api/v1/verifications/${first.body.id}`),
      (answer) => answer.body.status === "verified",
    );
  });

  describe("refusals", function () {
    it("a simulated pair: 422 SIMULATED_NETWORK_VERIFICATION naming the network", async function () {
      const answer = await api.call("POST", `/api/v1/tokens/${expected.address}/verify`, {
        chain: "ethereum",
        network: "holesky",
        explorer: "sourcify",
      });
      expect(answer.status).to.equal(422);
      expect(answer.body.error).to.deep.include({ code: "SIMULATED_NETWORK_VERIFICATION", field: "network" });
    });

    it("a contract no launch of this key deployed: 404 LAUNCH_NOT_FOUND; a bad explorer or address: 400", async function () {
      const stranger = await api.call("POST", `/api/v1/tokens/${Wallet.createRandom().address}/verify`, {
        ...SEPOLIA,
        explorer: "sourcify",
      });
      expect(stranger.status).to.equal(404);
      expect(stranger.body.error).to.deep.include({ code: "LAUNCH_NOT_FOUND", field: "address" });
      const explorer = await api.call("POST", `/api/v1/tokens/${expected.address}/verify`, { ...SEPOLIA, explorer: "polygonscan" });
      expect(explorer.status).to.equal(400);
      expect(explorer.body.error.field).to.equal("explorer");
      const address = await api.call("POST", "/api/v1/tokens/0x1234/verify", { ...SEPOLIA, explorer: "sourcify" });
      expect(address.status).to.equal(400);
      expect(address.body.error.field).to.equal("address");
    });

    it("an unknown verification id: 404 VERIFICATION_NOT_FOUND", async function () {
      for (const id of ["0b6f1c2e-8a4d-4f7e-9c51-3d2a7e6b5f10", "nope"]) {
        const answer = await api.call("GET", `/api/v1/verifications/${id}`);
        expect(answer.status).to.equal(404);
        expect(answer.body.error).to.deep.include({ code: "VERIFICATION_NOT_FOUND", field: "id" });
      }
    });

    it("an explorer without its key or instance: 422 EXPLORER_NOT_CONFIGURED naming the variable", async function () {
      const bare = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url } });
      try {
        for (const [explorer, variable] of [
          ["etherscan", "TOKEN_SERVICE_ETHERSCAN_API_KEY"],
          ["blockscout", "TOKEN_SERVICE_BLOCKSCOUT_ETHEREUM_SEPOLIA"],
        ] as const) {
          const answer = await bare.call("POST", `/api/v1/tokens/${expected.address}/verify`, { ...SEPOLIA, explorer });
          expect(answer.status).to.equal(422);
          expect(answer.body.error).to.deep.include({ code: "EXPLORER_NOT_CONFIGURED", field: "explorer" });
          expect(answer.body.error.details).to.deep.equal({ explorer, variable });
          expect(answer.body.error.message).to.include(variable);
        }
      } finally {
        await bare.stop();
      }
    });
  });
});
