import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Contract, Wallet, ZeroAddress } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenServiceClient, delegateVotes, launchToken, type TokenServiceClient } from "../../../src/client/index.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_RECIPIENT, EXAMPLE_VOTES_CONTRACT } from "../../../src/http/examples.js";
import { API_ROUTES } from "../../../src/http/routes/index.js";
import { captureOutput } from "../../helpers/capture-output.js";
import { createFixtureProjectHRE } from "../../helpers/fixture-projects.js";
import { TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { httpWriteSetups, type Setup } from "../../helpers/http-write-setups.js";

// ERC20Votes' delegation, the write kind made through domain/kinds/ (docs/design.md, "Adding a write kind"): over HTTP
// on the simulated chain with each store, with the typed client signing locally, and as the token:delegate task.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const votesAbi = ["function getVotes(address) view returns (uint256)", "function delegates(address) view returns (address)"];

for (const { name, start } of httpWriteSetups("hts_token_delegate").filter((setup) => setup.name.startsWith("simulated"))) {
  describe(`HTTP delegate (ERC20Votes) — ${name}`, function () {
    this.timeout(120_000);
    let setup: Setup;
    let api: RunningServer;
    let client: TokenServiceClient;

    before(async function () {
      setup = await start(this);
      api = setup.api;
      client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
    });

    after(async function () {
      await setup?.close();
    });

    const launch = async (signer: Wallet, options: Record<string, unknown>) =>
      (
        await launchToken(
          client,
          { ...SEPOLIA, type: "ERC20", token: { name: "Council", symbol: "CNL", initialSupply: "100", options } },
          signer,
          { wait: "mined" },
        )
      ).contractAddress;

    it("delegates the sender's votes, records the write as kind delegate, and lists it by kind", async function () {
      const signer = await setup.funded("1");
      const council = await launch(signer, { votes: true });
      const onNode = new Contract(council, votesAbi, setup.node);
      // Tokens (100 in smallest units), but no votes until the holder delegates.
      expect(await onNode.getFunction("getVotes")(signer.address)).to.equal(0n);

      const delegatee = Wallet.createRandom().address;
      const sent = await api.call("POST", "/api/v1/tokens/delegate?wait=mined", {
        ...SEPOLIA,
        contractAddress: council.toLowerCase(),
        delegatee: delegatee.toLowerCase(),
        sender: signer.address,
        privateKey: signer.privateKey,
      });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      expect(sent.body).to.include({ status: "mined", contractAddress: council, delegatee, sender: signer.address, simulated: true });
      expect(sent.body).not.to.have.property("type");
      expect(await onNode.getFunction("getVotes")(delegatee)).to.equal(100n);
      expect(await onNode.getFunction("delegates")(signer.address)).to.equal(delegatee);

      const record = await api.call("GET", `/api/v1/operations/${sent.body.id}`);
      expect(record.body).to.include({ kind: "delegate", type: null, status: "mined", contractAddress: council });
      expect(record.body.params).to.deep.equal({ contractAddress: council, delegatee });
      const listed = await api.call("GET", "/api/v1/operations?kind=delegate");
      expect(listed.body.items.map((item: { id: string }) => item.id)).to.include(sent.body.id);

      // Back to itself, prepared, signed locally by the typed client and submitted.
      const own = await delegateVotes(client, { ...SEPOLIA, contractAddress: council, delegatee: signer.address }, signer, {
        wait: "mined",
      });
      expect(own).to.include({ status: "mined", delegatee: signer.address });
      expect(await onNode.getFunction("getVotes")(signer.address)).to.equal(100n);
      expect(await onNode.getFunction("getVotes")(delegatee)).to.equal(0n);
      // The zero address takes the votes back from everyone.
      const nobody = await api.call("POST", "/api/v1/tokens/delegate?wait=mined", {
        ...SEPOLIA,
        contractAddress: council,
        delegatee: ZeroAddress,
        sender: signer.address,
        privateKey: signer.privateKey,
      });
      expect(nobody.body).to.include({ status: "mined", delegatee: ZeroAddress });
      expect(await onNode.getFunction("getVotes")(signer.address)).to.equal(0n);
    });

    it("refuses before signing: a token without votes (naming the option), a bad field (naming it), an unknown field", async function () {
      const signer = await setup.funded("1");
      const plain = await launch(signer, { burnable: true });
      const key = { sender: signer.address, privateKey: signer.privateKey };
      const nonce = await setup.node.getTransactionCount(signer.address, "pending");
      const cases: Array<[Record<string, unknown>, number, string, string]> = [
        [{ contractAddress: plain, delegatee: signer.address }, 422, "NOT_SUPPORTED_BY_TOKEN", "contractAddress"],
        [{ contractAddress: plain, delegatee: "0x12" }, 400, "INVALID_ADDRESS", "delegatee"],
        [{ contractAddress: plain }, 400, "INVALID_ARGUMENT", "delegatee"],
        [{ contractAddress: plain, delegatee: signer.address, votes: "all" }, 400, "INVALID_ARGUMENT", "votes"],
        [{ contractAddress: "0x12", delegatee: signer.address }, 400, "INVALID_ADDRESS", "contractAddress"],
      ];
      for (const [fields, status, code, field] of cases) {
        const answer = await api.call("POST", "/api/v1/tokens/delegate", { ...SEPOLIA, ...fields, ...key });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
        expect(answer.body.error, JSON.stringify(fields)).to.include({ code, field });
      }
      const refused = await api.call("POST", "/api/v1/tokens/delegate", {
        ...SEPOLIA,
        contractAddress: plain,
        delegatee: signer.address,
        ...key,
      });
      expect(refused.body.error.details).to.include({ option: "votes", function: "delegate(address)" });
      // Nothing was signed or sent.
      expect(await setup.node.getTransactionCount(signer.address, "pending")).to.equal(nonce);
    });

    it("the documented examples work as written: the votes launch, the delegation, then its prepare signed and submitted", async function () {
      const example = (operationId: string, name: string) => {
        const route = API_ROUTES.find((candidate) => candidate.operationId === operationId)!;
        return { path: `/api/v1${route.paths[0]!}`, value: route.bodyExamples![name]!.value };
      };
      expect(API_ROUTES.find((route) => route.operationId === "delegateVotes")!.paths).to.deep.equal(["/tokens/delegate"]);
      const launch = example("launchToken", "votes");
      const launched = await api.call("POST", `${launch.path}?wait=mined`, launch.value);
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      expect(launched.body.contractAddress).to.equal(EXAMPLE_VOTES_CONTRACT);
      const onNode = new Contract(EXAMPLE_VOTES_CONTRACT, votesAbi, setup.node);

      const delegation = example("delegateVotes", "account");
      expect(delegation.value).to.include({ contractAddress: EXAMPLE_VOTES_CONTRACT, delegatee: EXAMPLE_RECIPIENT });
      const delegated = await api.call("POST", `${delegation.path}?wait=mined`, delegation.value);
      expect(delegated.status, JSON.stringify(delegated.body)).to.equal(200);
      expect(await onNode.getFunction("getVotes")(EXAMPLE_RECIPIENT)).to.equal(10n ** 21n);

      const prepare = example("delegateVotes", "prepare");
      const prepared = await api.call("POST", prepare.path, prepare.value);
      expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
      expect(prepared.body.unsignedTransaction.to).to.equal(EXAMPLE_VOTES_CONTRACT);
      const signedTransaction = await new Wallet(EXAMPLE_ACCOUNT.privateKey).signTransaction(prepared.body.unsignedTransaction);
      const submitted = await api.call("POST", `${prepare.path}?wait=mined`, { ...prepare.value, signedTransaction });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(200);
      expect(submitted.body).to.include({ status: "mined", delegatee: EXAMPLE_RECIPIENT });
    });
  });
}

describe("token:delegate, run in process in a consumer project", function () {
  this.timeout(120_000);
  let dataDir: string;
  let hre: HardhatRuntimeEnvironment;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-delegate-"));
    hre = await createFixtureProjectHRE("consumer", {
      adjust: (config) => ({ ...config, tokenService: { ...config.tokenService, dataDir } }),
    });
  });

  after(async function () {
    delete process.env.DELEGATE_TEST_KEY;
    await rm(dataDir, { recursive: true, force: true });
  });

  const run = async (name: string, args: Record<string, unknown>) => {
    const output = await captureOutput(() => hre.tasks.getTask(name).run({ chain: "ethereum", chainNetwork: "sepolia", ...args }));
    expect(output.stderr, `${name} wrote to stderr`).to.equal("");
    return output.stdout;
  };

  it("delegates the votes of a token launched with the votes option, and prints the kind's headline", async function () {
    const holder = Wallet.createRandom();
    await run("faucet", { address: holder.address, amount: "1" });
    process.env.DELEGATE_TEST_KEY = holder.privateKey;
    const launched = JSON.parse(
      await run("token:launch", {
        type: "erc20",
        name: "Council",
        symbol: "CNL",
        initialSupply: "7",
        options: "votes",
        privateKeyEnv: "DELEGATE_TEST_KEY",
        json: true,
      }),
    );
    const delegatee = Wallet.createRandom().address;
    const delegated = JSON.parse(
      await run("token:delegate", { contract: launched.contractAddress, delegatee, privateKeyEnv: "DELEGATE_TEST_KEY", json: true }),
    );
    expect(delegated).to.include({ status: "mined", delegatee, sender: holder.address, contractAddress: launched.contractAddress });
    const text = await run("token:delegate", {
      contract: launched.contractAddress,
      delegatee: holder.address,
      privateKeyEnv: "DELEGATE_TEST_KEY",
    });
    expect(text).to.include(
      `Delegated the votes of ${holder.address} on ${launched.contractAddress} to ${holder.address} on ethereum/sepolia`,
    );
    expect(text).to.match(/status +mined/);
  });
});
