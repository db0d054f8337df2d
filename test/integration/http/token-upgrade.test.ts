import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Contract, Wallet, dataSlice, getAddress } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenServiceClient, launchToken, type TokenServiceClient } from "../../../src/client/index.js";
import { IMPLEMENTATION_SLOT } from "../../../src/chains/evm/write/upgrade.js";
import { captureOutput } from "../../helpers/capture-output.js";
import { createFixtureProjectHRE } from "../../helpers/fixture-projects.js";
import { TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { httpWriteSetups, type Setup } from "../../helpers/http-write-setups.js";

// The upgrade write (docs/decisions/0066-upgrade-write.md) over HTTP, on the simulated chain (EDR) with the embedded
// store and on anvil (a live node): UUPS and transparent tokens launched burnable, upgraded to burnable and pausable
// (state kept, the new function working, the implementation slot moved, the implementation shared by a second token),
// and the refusals before anything is signed (the sender's nonce unchanged on the node).

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const tokenAbi = [
  "function name() view returns (string)",
  "function balanceOf(address) view returns (uint256)",
  "function transfer(address to, uint256 amount) returns (bool)",
  "function pause()",
  "function paused() view returns (bool)",
];

const setups = httpWriteSetups("hts_token_upgrade").filter((setup) => /SQLite/i.test(setup.name));

for (const { name, start } of setups) {
  const live = name.startsWith("anvil");
  describe(`HTTP upgrade — ${name}`, function () {
    this.timeout(600_000);
    let setup: Setup;
    let api: RunningServer;
    let client: TokenServiceClient;
    let owner: Wallet;

    before(async function () {
      setup = await start(this);
      api = setup.api;
      client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
      owner = await setup.funded("10");
    });

    after(async function () {
      await setup?.close();
    });

    const launch = async (options: Record<string, unknown>, type = "ERC20") =>
      (
        await launchToken(client, { ...SEPOLIA, type, token: { name: "Upgraded", symbol: "UPG", initialSupply: "1000", options } }, owner, {
          wait: "mined",
        })
      ).contractAddress;

    const slot = async (proxy: string) => getAddress(dataSlice(await setup.node.getStorage(proxy, IMPLEMENTATION_SLOT), 12));
    const upgrade = (contractAddress: string, options: Record<string, unknown>, by: Wallet = owner, extra: object = {}) =>
      api.call("POST", "/api/v1/tokens/upgrade?wait=mined", {
        ...SEPOLIA,
        contractAddress,
        options,
        sender: by.address,
        privateKey: by.privateKey,
        ...extra,
      });

    for (const kind of live ? ["uups"] : ["uups", "transparent"]) {
      it(`upgrades a ${kind} token burnable → burnable + pausable, keeping its state; once only; the implementation shared`, async function () {
        const before = { burnable: true, access: "ownable", upgradeable: kind };
        const after = { ...before, pausable: true };
        const token = await launch(before);
        const holder = Wallet.createRandom().address;
        const onChain = new Contract(token, tokenAbi, owner.connect(setup.node));
        await (await onChain.getFunction("transfer")(holder, 250n)).wait();
        const previous = await slot(token);

        const sent = await upgrade(token, after);
        expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
        expect(sent.body).to.include({ status: "mined", contractAddress: token, sender: owner.address, upgradeable: kind, type: "ERC20" });
        expect(sent.body.previousImplementation).to.equal(previous);
        expect(sent.body.implementation.operationId).to.be.a("string");
        const implementation = sent.body.implementation.address as string;
        expect(await slot(token))
          .to.equal(implementation)
          .and.not.equal(previous);
        // The state is the proxy's: kept. The new function works.
        expect(await onChain.getFunction("name")()).to.equal("Upgraded");
        expect(await onChain.getFunction("balanceOf")(holder)).to.equal(250n);
        await (await onChain.getFunction("pause")()).wait();
        expect(await onChain.getFunction("paused")()).to.equal(true);
        // The token read names the new implementation.
        const read = await api.call("GET", `/api/v1/tokens/${token}?chain=ethereum&network=sepolia`);
        expect(read.body.upgradeable, JSON.stringify(read.body)).to.include({ kind, implementation });
        // The records: the implementation's deployment, then the upgrade.
        const deployment = await api.call("GET", `/api/v1/operations/${sent.body.implementation.operationId}`);
        expect(deployment.body).to.include({ kind: "deployImplementation", status: "mined", contractAddress: implementation });
        const record = await api.call("GET", `/api/v1/operations/${sent.body.id}`);
        expect(record.body).to.include({ kind: "upgrade", status: "mined", contractAddress: token });

        // The verification input answers the implementation the token runs now, the upgrade's.
        const verification = await api.call("GET", `/api/v1/tokens/${token}/verification?chain=ethereum&network=sepolia`);
        expect(verification.status, JSON.stringify(verification.body)).to.equal(200);
        expect(verification.body.implementation).to.include({
          address: implementation,
          contractName: `ServiceERC20BurnablePausableOwnable${kind === "uups" ? "UUPS" : "Transparent"}`,
          constructorArguments: "0x",
        });
        expect(verification.body.implementation.upgrade).to.deep.equal({ operationId: sent.body.id });

        // The same upgrade again: nothing to do.
        const again = await upgrade(token, after);
        expect(again.status, JSON.stringify(again.body)).to.equal(409);
        expect(again.body.error).to.include({ code: "NOTHING_TO_UPGRADE", field: "options" });

        // A second token with the same options is upgraded to the same implementation, not deployed again.
        const second = await launch(before);
        const reused = await upgrade(second, after);
        expect(reused.status, JSON.stringify(reused.body)).to.equal(200);
        expect(reused.body.implementation).to.deep.equal({ address: implementation, operationId: null });
        expect(await slot(second)).to.equal(implementation);
      });
    }

    it("refuses a sender that may not upgrade before signing anything (its nonce unchanged)", async function () {
      const token = await launch({ burnable: true, access: "ownable", upgradeable: "uups" });
      const stranger = await setup.funded("1");
      const nonce = await setup.node.getTransactionCount(stranger.address);
      const refused = await upgrade(token, { burnable: true, pausable: true, access: "ownable", upgradeable: "uups" }, stranger);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
      expect(refused.body.error).to.include({ code: "NOT_UPGRADER", field: "sender" });
      expect(refused.body.error.details).to.include({ error: "OwnableUnauthorizedAccount" });
      expect(await setup.node.getTransactionCount(stranger.address)).to.equal(nonce);
    });

    if (live) return;

    it("refuses a transparent token's upgrade from anyone but its ProxyAdmin's owner", async function () {
      const token = await launch({ burnable: true, access: "ownable", upgradeable: "transparent" });
      const stranger = await setup.funded("1");
      const refused = await upgrade(token, { burnable: true, pausable: true, access: "ownable", upgradeable: "transparent" }, stranger);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
      expect(refused.body.error).to.include({ code: "NOT_UPGRADER", field: "sender" });
      expect(refused.body.error.details).to.include({ error: "OwnableUnauthorizedAccount", owner: owner.address });
      expect(await setup.node.getTransactionCount(stranger.address)).to.equal(0);
    });

    it("answers 404 for a token this API key did not launch, and 4xx naming the field for hostile input", async function () {
      const nonce = async () => setup.node.getTransactionCount(owner.address);
      const uups = await launch({ burnable: true, access: "ownable", upgradeable: "uups" });
      const plain = await launch({ burnable: true, access: "ownable" });
      const sentBefore = await nonce();
      const cases: Array<[string, Promise<{ status: number; body: any }>, number, string, string]> = [
        ["not launched here", upgrade(Wallet.createRandom().address, { burnable: true }), 404, "LAUNCH_NOT_FOUND", "contractAddress"],
        ["a bad option", upgrade(uups, { burnable: "yes", upgradeable: "uups" }), 400, "INVALID_ARGUMENT", "options.burnable"],
        ["an unknown option", upgrade(uups, { wings: true, upgradeable: "uups" }), 400, "INVALID_ARGUMENT", "options.wings"],
        [
          "another proxy kind",
          upgrade(uups, { burnable: true, access: "ownable", upgradeable: "transparent" }),
          422,
          "UPGRADE_INCOMPATIBLE",
          "options.upgradeable",
        ],
        [
          "not upgradeable any more",
          upgrade(uups, { burnable: true, access: "ownable" }),
          422,
          "UPGRADE_INCOMPATIBLE",
          "options.upgradeable",
        ],
        [
          "another access",
          upgrade(uups, { burnable: true, access: "roles", upgradeable: "uups" }),
          422,
          "UPGRADE_INCOMPATIBLE",
          "options.access",
        ],
        [
          "an option an initializer sets",
          upgrade(uups, { burnable: true, capped: true, access: "ownable", upgradeable: "uups" }),
          422,
          "UPGRADE_INCOMPATIBLE",
          "options.capped",
        ],
        [
          "a token launched without a proxy",
          upgrade(plain, { burnable: true, pausable: true, access: "ownable" }),
          422,
          "UPGRADE_INCOMPATIBLE",
          "contractAddress",
        ],
        [
          "the same options",
          upgrade(uups, { burnable: true, access: "ownable", upgradeable: "uups" }),
          409,
          "NOTHING_TO_UPGRADE",
          "options",
        ],
        [
          "a signed transaction",
          upgrade(uups, { burnable: true, pausable: true, access: "ownable", upgradeable: "uups" }, owner, {
            privateKey: undefined,
            signedTransaction: "0x02",
          }),
          400,
          "INVALID_ARGUMENT",
          "signedTransaction",
        ],
        [
          "no key (no prepare)",
          upgrade(uups, { burnable: true, pausable: true, access: "ownable", upgradeable: "uups" }, owner, { privateKey: undefined }),
          400,
          "INVALID_ARGUMENT",
          "privateKey",
        ],
      ];
      for (const [what, answer, status, code, field] of cases) {
        const { status: got, body } = await answer;
        expect(got, `${what}: ${JSON.stringify(body)}`).to.equal(status);
        expect(body.error, what).to.include({ code, field });
      }
      expect(await nonce()).to.equal(sentBefore);
    });
  });
}

describe("token:upgrade, run in process in a consumer project", function () {
  this.timeout(600_000);
  let dataDir: string;
  let hre: HardhatRuntimeEnvironment;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-upgrade-"));
    hre = await createFixtureProjectHRE("consumer", {
      adjust: (config) => ({ ...config, tokenService: { ...config.tokenService, dataDir } }),
    });
  });

  after(async function () {
    delete process.env.UPGRADE_TEST_KEY;
    await rm(dataDir, { recursive: true, force: true });
  });

  const run = async (name: string, args: Record<string, unknown>) => {
    const output = await captureOutput(() => hre.tasks.getTask(name).run({ chain: "ethereum", chainNetwork: "sepolia", ...args }));
    expect(output.stderr, `${name} wrote to stderr`).to.equal("");
    return output.stdout;
  };

  it("upgrades a token the tasks launched, and prints the implementations", async function () {
    const owner = Wallet.createRandom();
    await run("faucet", { address: owner.address, amount: "1" });
    process.env.UPGRADE_TEST_KEY = owner.privateKey;
    const launched = JSON.parse(
      await run("token:launch", {
        type: "erc721",
        name: "Shelf",
        symbol: "SHF",
        uri: "https://example.com/",
        options: "burnable,access=ownable,upgradeable=transparent",
        privateKeyEnv: "UPGRADE_TEST_KEY",
        json: true,
      }),
    );
    const text = await run("token:upgrade", {
      contract: launched.contractAddress,
      options: "burnable,enumerable,access=ownable,upgradeable=transparent",
      privateKeyEnv: "UPGRADE_TEST_KEY",
    });
    expect(text).to.include(
      `Upgraded ${launched.contractAddress} to ServiceERC721BurnableEnumerableOwnableTransparent on ethereum/sepolia`,
    );
    expect(text)
      .to.match(/implementation +0x[0-9a-fA-F]{40}\n/)
      .and.to.match(/status +mined/);
  });
});
