import { expect } from "chai";
import { Contract, Wallet, ZeroAddress, ZeroHash, id, parseEther } from "ethers";

import {
  burnToken,
  createTokenServiceClient,
  grantRole,
  launchToken,
  pauseToken,
  revokeRole,
  transferOwnership,
  type TokenServiceClient,
} from "../../../src/client/index.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_MANAGED_CONTRACT, EXAMPLE_RECIPIENT, EXAMPLE_TOKEN_CONTRACT } from "../../../src/http/examples.js";
import { API_ROUTES } from "../../../src/http/routes/index.js";
import { TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { httpWriteSetups, webhookEventsOf, type Setup } from "../../helpers/http-write-setups.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const token = [
  "function balanceOf(address) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function paused() view returns (bool)",
  "function hasRole(bytes32, address) view returns (bool)",
  "function owner() view returns (address)",
];
const MINTER_ROLE = id("MINTER_ROLE");
const PAUSER_ROLE = id("PAUSER_ROLE");

/** A documented example body, by its route's operationId and its name. */
function example(operationId: string, name: string): { path: string; value: Record<string, unknown> } {
  const route = API_ROUTES.find((candidate) => candidate.operationId === operationId)!;
  return { path: `/api/v1${route.paths[0]!}`, value: route.bodyExamples![name]!.value };
}

for (const { name, start } of httpWriteSetups("hts_token_admin")) {
  describe(`HTTP burn, pause, roles and ownership — ${name}`, function () {
    this.timeout(120_000);
    let setup: Setup;
    let api: RunningServer;
    let client: TokenServiceClient;
    const onNode = (contract: string) => new Contract(contract, token, setup.node);
    const records = async () => (await api.call("GET", "/api/v1/operations?limit=100")).body.items.length as number;

    before(async function () {
      setup = await start(this);
      api = setup.api;
      client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
    });

    after(async function () {
      await setup?.close();
    });

    it("the documented examples work as written, in order: launch, burn, pause, unpause, grant, revoke, then each prepared, signed and submitted", async function () {
      const post = async (operationId: string, example_: string, status = 200) => {
        const { path, value } = example(operationId, example_);
        const answer = await api.call("POST", `${path}?wait=mined`, value);
        expect(answer.status, `${operationId} ${example_}: ${JSON.stringify(answer.body)}`).to.equal(status);
        return answer.body;
      };
      expect((await post("launchToken", "signedByService")).contractAddress).to.equal(EXAMPLE_TOKEN_CONTRACT);
      expect((await post("launchToken", "managed")).contractAddress).to.equal(EXAMPLE_MANAGED_CONTRACT);

      const burnt = await post("burnToken", "erc20");
      expect(burnt).to.include({
        status: "mined",
        type: "ERC20",
        contractAddress: EXAMPLE_MANAGED_CONTRACT,
        amount: parseEther("1").toString(),
      });
      expect(await onNode(EXAMPLE_MANAGED_CONTRACT).getFunction("totalSupply")()).to.equal(parseEther("999"));
      const record = await api.call("GET", `/api/v1/operations/${burnt.id}`);
      expect(record.body).to.include({ kind: "burn", type: "ERC20", status: "mined", contractAddress: EXAMPLE_MANAGED_CONTRACT });
      expect(record.body.params).to.deep.equal({
        contractAddress: EXAMPLE_MANAGED_CONTRACT,
        amount: parseEther("1").toString(),
        decimals: 18,
      });

      const paused = await post("pauseToken", "pause");
      expect(paused).to.include({ status: "mined", paused: true }).and.not.to.have.property("type");
      expect(await onNode(EXAMPLE_MANAGED_CONTRACT).getFunction("paused")()).to.equal(true);
      const info = await api.call("GET", `/api/v1/tokens/${EXAMPLE_MANAGED_CONTRACT}?chain=ethereum&network=sepolia`);
      expect(info.body).to.include({ paused: true, owner: EXAMPLE_ACCOUNT.address });
      expect(info.body.features).to.include.members(["pausable", "ownable"]);
      // While paused: a transfer would revert (EnforcedPause, decoded), and a second pause too; nothing is sent.
      const [nonce, before] = [await setup.node.getTransactionCount(EXAMPLE_ACCOUNT.address, "pending"), await records()];
      const transfer = await api.call("POST", "/api/v1/transfers", {
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: EXAMPLE_MANAGED_CONTRACT,
        to: EXAMPLE_RECIPIENT,
        amount: "1",
        sender: EXAMPLE_ACCOUNT.address,
        privateKey: EXAMPLE_ACCOUNT.privateKey,
      });
      expect(transfer.status).to.equal(422);
      expect(transfer.body.error).to.deep.include({ code: "WOULD_REVERT" });
      expect(transfer.body.error.details).to.deep.include({ error: "EnforcedPause", args: {} });
      const twice = await api.call("POST", example("pauseToken", "pause").path, example("pauseToken", "pause").value);
      expect(twice.status).to.equal(422);
      expect(twice.body.error).to.deep.include({ code: "WOULD_REVERT", field: "paused", details: { error: "EnforcedPause", args: {} } });
      expect(await setup.node.getTransactionCount(EXAMPLE_ACCOUNT.address, "pending")).to.equal(nonce);
      expect(await records()).to.equal(before);
      expect(await post("pauseToken", "unpause")).to.include({ paused: false });
      expect(await onNode(EXAMPLE_MANAGED_CONTRACT).getFunction("paused")()).to.equal(false);

      expect(await post("grantRole", "minter")).to.include({ role: "MINTER_ROLE", roleId: MINTER_ROLE, account: EXAMPLE_RECIPIENT });
      expect(await onNode(EXAMPLE_TOKEN_CONTRACT).getFunction("hasRole")(MINTER_ROLE, EXAMPLE_RECIPIENT)).to.equal(true);
      const revoked = await post("revokeRole", "minter");
      expect(await onNode(EXAMPLE_TOKEN_CONTRACT).getFunction("hasRole")(MINTER_ROLE, EXAMPLE_RECIPIENT)).to.equal(false);
      expect((await api.call("GET", `/api/v1/operations/${revoked.id}`)).body).to.include({ kind: "revokeRole", type: null });

      // Every prepare example answers the transaction to sign (a pause's names no standard); signed here, each is then
      // submitted with the same body, in nonce order. The last hands the managed token over.
      const signer = new Wallet(EXAMPLE_ACCOUNT.privateKey);
      const prepared: Array<{ path: string; body: Record<string, unknown> }> = [];
      for (const operationId of ["burnToken", "pauseToken", "grantRole", "revokeRole", "transferOwnership"]) {
        const { path, value } = example(operationId, "prepare");
        const answer = await api.call("POST", path, value);
        expect(answer.status, `${operationId}: ${JSON.stringify(answer.body)}`).to.equal(200);
        expect(answer.body.unsignedTransaction.to).to.be.oneOf([EXAMPLE_MANAGED_CONTRACT, EXAMPLE_TOKEN_CONTRACT]);
        expect(Object.hasOwn(answer.body, "type"), operationId).to.equal(operationId === "burnToken");
        prepared.push({ path, body: { ...value, signedTransaction: await signer.signTransaction(answer.body.unsignedTransaction) } });
      }
      for (const { path, body } of prepared) {
        const submitted = await api.call("POST", `${path}?wait=mined`, body);
        expect(submitted.status, `${path}: ${JSON.stringify(submitted.body)}`).to.equal(200);
        expect(submitted.body.status).to.equal("mined");
      }
      expect(await onNode(EXAMPLE_MANAGED_CONTRACT).getFunction("paused")()).to.equal(true);
      expect(await onNode(EXAMPLE_MANAGED_CONTRACT).getFunction("owner")()).to.equal(EXAMPLE_RECIPIENT);
      // The key-in-body hand-over example is refused now: the example account owns the token no more.
      const handOver = example("transferOwnership", "recipient");
      const refused = await api.call("POST", handOver.path, handOver.value);
      expect(refused.status).to.equal(422);
      expect(refused.body.error.details).to.deep.include({ error: "OwnableUnauthorizedAccount" });
    });

    it("refuses bad input with 400 naming the field, and what the token cannot do or would revert with 422, before signing", async function () {
      const signer = await setup.funded("1");
      const key = { sender: signer.address, privateKey: signer.privateKey };
      const launched = await launchToken(
        client,
        { ...SEPOLIA, type: "ERC20", token: { name: "Lead", symbol: "PB", initialSupply: "1000", options: { burnable: true } } },
        signer,
        { wait: "mined" },
      );
      const lead = launched.contractAddress;
      const [nonce, before] = [await setup.node.getTransactionCount(signer.address, "pending"), await records()];
      const cases: Array<[string, Record<string, unknown>, number, string, string | undefined]> = [
        ["/api/v1/tokens/burn", { type: "ERC20", contractAddress: lead, amount: "0" }, 400, "INVALID_ARGUMENT", "amount"],
        ["/api/v1/tokens/burn", { type: "ERC20", contractAddress: lead, amount: "-1" }, 400, "INVALID_ARGUMENT", "amount"],
        ["/api/v1/tokens/burn", { type: "ERC20", contractAddress: "0x12", amount: "1" }, 400, "INVALID_ADDRESS", "contractAddress"],
        ["/api/v1/tokens/burn", { type: "ERC721", contractAddress: lead, amount: "1" }, 400, "INVALID_ARGUMENT", "tokenId"],
        ["/api/v1/tokens/burn", { type: "ERC20", contractAddress: lead, amount: "1", extra: true }, 400, "INVALID_ARGUMENT", "extra"],
        ["/api/v1/tokens/pause", { contractAddress: lead, paused: "yes" }, 400, "INVALID_ARGUMENT", "paused"],
        ["/api/v1/tokens/pause", { contractAddress: lead }, 400, "INVALID_ARGUMENT", "paused"],
        [
          "/api/v1/tokens/roles/grant",
          { contractAddress: lead, role: "MINTER_ROLE", account: ZeroAddress },
          400,
          "INVALID_ARGUMENT",
          "account",
        ],
        [
          "/api/v1/tokens/roles/grant",
          { contractAddress: lead, role: "not a role", account: EXAMPLE_RECIPIENT },
          400,
          "INVALID_ARGUMENT",
          "role",
        ],
        ["/api/v1/tokens/ownership/transfer", { contractAddress: lead, newOwner: ZeroAddress }, 400, "INVALID_ARGUMENT", "newOwner"],
        ["/api/v1/tokens/burn", { type: "ERC20", contractAddress: lead, amount: "1001" }, 422, "INSUFFICIENT_TOKEN_BALANCE", "amount"],
        ["/api/v1/tokens/pause", { contractAddress: lead, paused: true }, 422, "NOT_SUPPORTED_BY_TOKEN", "contractAddress"],
        [
          "/api/v1/tokens/roles/grant",
          { contractAddress: lead, role: "PAUSER_ROLE", account: EXAMPLE_RECIPIENT },
          422,
          "NOT_SUPPORTED_BY_TOKEN",
          "role",
        ],
        [
          "/api/v1/tokens/ownership/transfer",
          { contractAddress: lead, newOwner: EXAMPLE_RECIPIENT },
          422,
          "NOT_SUPPORTED_BY_TOKEN",
          "contractAddress",
        ],
      ];
      for (const [path, fields, status, code, field] of cases) {
        const answer = await api.call("POST", path, { ...SEPOLIA, ...fields, ...key });
        expect(answer.status, `${path} ${JSON.stringify(fields)}: ${JSON.stringify(answer.body)}`).to.equal(status);
        expect(answer.body.error, path).to.include({ code, field });
        expect(JSON.stringify(answer.body)).not.to.include(signer.privateKey.slice(2));
      }
      const pause = await api.call("POST", "/api/v1/tokens/pause", { ...SEPOLIA, contractAddress: lead, paused: true, ...key });
      expect(pause.body.error.details).to.deep.include({ option: "pausable", function: "pause()" });
      // A sender without the admin role: the token's own error, decoded.
      const notAdmin = await api.call("POST", "/api/v1/tokens/roles/grant", {
        ...SEPOLIA,
        contractAddress: EXAMPLE_TOKEN_CONTRACT,
        role: "MINTER_ROLE",
        account: signer.address,
        ...key,
      });
      expect(notAdmin.status).to.equal(422);
      expect(notAdmin.body.error.code).to.equal("WOULD_REVERT");
      expect(notAdmin.body.error.details).to.deep.include({
        error: "AccessControlUnauthorizedAccount",
        args: { account: signer.address, neededRole: ZeroHash },
      });
      expect(await setup.node.getTransactionCount(signer.address, "pending")).to.equal(nonce);
      expect(await records()).to.equal(before);
    });

    it("the typed client burns, pauses, grants, revokes and hands over with a key that never leaves the caller", async function () {
      const signer = await setup.funded("1");
      const roles = await launchToken(
        client,
        {
          ...SEPOLIA,
          type: "ERC20",
          token: { name: "Tin", symbol: "SN", initialSupply: "500", options: { burnable: true, pausable: true, access: "roles" } },
        },
        signer,
        { wait: "mined" },
      );
      const tin = roles.contractAddress;
      const burnt = await burnToken(client, { ...SEPOLIA, type: "ERC20", contractAddress: tin, amount: "200" }, signer, { wait: "mined" });
      expect(burnt).to.include({ status: "mined", amount: "200", sender: signer.address });
      expect(await onNode(tin).getFunction("balanceOf")(signer.address)).to.equal(300n);
      expect(await pauseToken(client, { ...SEPOLIA, contractAddress: tin, paused: true }, signer, { wait: "mined" })).to.include({
        paused: true,
      });
      expect(await onNode(tin).getFunction("paused")()).to.equal(true);
      await pauseToken(client, { ...SEPOLIA, contractAddress: tin, paused: false }, signer, { wait: "mined" });
      const deputy = Wallet.createRandom().address;
      const granted = await grantRole(client, { ...SEPOLIA, contractAddress: tin, role: "PAUSER_ROLE", account: deputy }, signer, {
        wait: "mined",
      });
      expect(granted).to.include({ status: "mined", roleId: PAUSER_ROLE, account: deputy });
      expect(await onNode(tin).getFunction("hasRole")(PAUSER_ROLE, deputy)).to.equal(true);
      await revokeRole(client, { ...SEPOLIA, contractAddress: tin, role: PAUSER_ROLE, account: deputy }, signer, { wait: "mined" });
      expect(await onNode(tin).getFunction("hasRole")(PAUSER_ROLE, deputy)).to.equal(false);

      const ownable = await launchToken(
        client,
        { ...SEPOLIA, type: "ERC20", token: { name: "Zinc", symbol: "ZN", initialSupply: "1", options: { access: "ownable" } } },
        signer,
        { wait: "mined" },
      );
      const heir = Wallet.createRandom().address;
      const handed = await transferOwnership(client, { ...SEPOLIA, contractAddress: ownable.contractAddress, newOwner: heir }, signer, {
        wait: "mined",
        idempotencyKey: `ownership-${heir}`,
      });
      expect(handed).to.include({ status: "mined", newOwner: heir });
      expect(await onNode(ownable.contractAddress).getFunction("owner")()).to.equal(heir);
    });

    it("an idempotent retry of a burn answers the first outcome and burns once", async function () {
      const signer = await setup.funded("1");
      const key = { sender: signer.address, privateKey: signer.privateKey };
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...SEPOLIA,
        type: "ERC20",
        token: { name: "Iron", symbol: "FE", initialSupply: "100", options: { burnable: true } },
        ...key,
      });
      const iron = launched.body.contractAddress as string;
      const body = { ...SEPOLIA, type: "ERC20", contractAddress: iron, amount: "10", ...key };
      const headers = { "idempotency-key": `burn-${iron}` };
      const first = await api.call("POST", "/api/v1/tokens/burn?wait=mined", body, headers);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const replay = await api.call("POST", "/api/v1/tokens/burn?wait=mined", body, headers);
      expect(replay.headers.get("idempotent-replayed")).to.equal("true");
      expect(replay.body).to.deep.equal(first.body);
      expect(await onNode(iron).getFunction("totalSupply")()).to.equal(90n);
    });

    if (name.startsWith("simulated chain")) {
      it("posts a pause's operation.pending and operation.mined to a subscribed webhook", async function () {
        const signer = await setup.funded("1");
        const key = { sender: signer.address, privateKey: signer.privateKey };
        const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
          ...SEPOLIA,
          type: "ERC20",
          token: { name: "Copper", symbol: "CU", initialSupply: "1", options: { pausable: true } },
          ...key,
        });
        const contractAddress = launched.body.contractAddress as string;
        const events = await webhookEventsOf(api, () =>
          api.call("POST", "/api/v1/tokens/pause", { ...SEPOLIA, contractAddress, paused: true, ...key }),
        );
        expect(events.map((event) => event.json.type)).to.deep.equal(["operation.pending", "operation.mined"]);
        expect(events[1]!.json.data).to.include({ kind: "pause", type: null, status: "mined" });
        expect(events[1]!.json.data.params).to.deep.equal({ contractAddress, paused: true });
      });
    }
  });
}
