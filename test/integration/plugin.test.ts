import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet as EthersWallet } from "ethers";
import { configVariable } from "hardhat/config";
import { createHardhatRuntimeEnvironment } from "hardhat/hre";
import { HardhatPluginError } from "hardhat/plugins";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService, configuredRpcUrls, type LazyEndpoint } from "../../src/api.js";
import { validateTokenServiceConfig } from "../../src/hardhat/config.js";
import { ErrorCode } from "../../src/domain/errors.js";
import tokenServicePlugin from "../../src/index.js";
import { captureOutput } from "../helpers/capture-output.js";
import { expectServiceError } from "../helpers/errors.js";
import { modesUnder, notPrivate, underUmask } from "../helpers/file-modes.js";
import { createFixtureProjectHRE, fixtureProjectRoot } from "../helpers/fixture-projects.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const TASKS = ["wallet:create", "faucet", "token:launch", "token:mint", "token:speed-up", "token:cancel", "balance"];

/** Runs a task of the fixture project in this process and parses its --json output. */
async function runJsonTask(
  hre: HardhatRuntimeEnvironment,
  name: string,
  args: Record<string, unknown>,
): Promise<{ json: any; stdout: string; stderr: string }> {
  const output = await captureOutput(() => hre.tasks.getTask(name).run({ ...args, json: true }));
  expect(output.stderr, `${name} wrote to stderr`).to.equal("");
  return { ...output, json: JSON.parse(output.stdout) };
}

describe("plugin in a consumer project (test/fixture-projects/consumer)", function () {
  const root = fixtureProjectRoot("consumer");
  let dataDir: string;
  let hre: HardhatRuntimeEnvironment;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-consumer-"));
    hre = await createFixtureProjectHRE("consumer", {
      adjust: (config) => ({ ...config, tokenService: { ...config.tokenService, dataDir } }),
    });
  });

  after(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("loads the plugin: its tasks are defined and its config is resolved against the project", function () {
    for (const name of TASKS) expect(hre.tasks.getTask(name).description, name).to.be.a("string").and.not.equal("");
    expect(hre.config.paths.root).to.equal(root);
    expect(hre.config.tokenService).to.include({ dataDir, blockTime: 0 });
    expect(hre.config.tokenService.rpc).to.deep.equal({});
    expect(existsSync(path.join(root, "contracts")), "the consumer has no contracts of its own").to.equal(false);
  });

  describe("tasks, run in process", function () {
    const keys: string[] = [];
    let wallet: { address: string; privateKey: string };
    let erc20: string;
    let erc721: string;

    after(function () {
      delete process.env.CONSUMER_TEST_DEPLOYER_KEY;
    });

    it("wallet:create then faucet", async function () {
      const created = await runJsonTask(hre, "wallet:create", { chain: "ethereum", chainNetwork: "sepolia" });
      wallet = created.json;
      keys.push(wallet.privateKey);
      expect(new EthersWallet(wallet.privateKey).address).to.equal(wallet.address);
      expect(created.json).to.include({ chain: "ethereum", network: "sepolia" });

      const funded = await runJsonTask(hre, "faucet", { chain: "ethereum", chainNetwork: "sepolia", address: wallet.address, amount: "5" });
      expect(funded.json).to.deep.include({
        address: wallet.address,
        simulated: true,
        balance: { balance: "5000000000000000000", uiBalance: "5" },
      });
      expect(funded.stdout).not.to.include(wallet.privateKey.slice(2));
    });

    it("token:launch erc20 with the key from a named environment variable, waiting for mining", async function () {
      process.env.CONSUMER_TEST_DEPLOYER_KEY = wallet.privateKey;
      const launched = await runJsonTask(hre, "token:launch", {
        chain: "ethereum",
        chainNetwork: "sepolia",
        type: "erc20",
        name: "Consumer Coin",
        symbol: "CNS",
        decimals: "2",
        initialSupply: "123.45", // whole tokens at 2 decimals
        privateKeyEnv: "CONSUMER_TEST_DEPLOYER_KEY",
      });
      expect(launched.json).to.include({ status: "mined", type: "ERC20", sender: wallet.address, simulated: true });
      expect(launched.stdout).not.to.include(wallet.privateKey.slice(2));
      erc20 = launched.json.contractAddress;
    });

    it("token:launch erc721", async function () {
      const launched = await runJsonTask(hre, "token:launch", {
        chain: "ethereum",
        chainNetwork: "sepolia",
        type: "erc721",
        name: "Consumer Art",
        symbol: "CART",
        uri: "ipfs://consumer/",
        privateKeyEnv: "CONSUMER_TEST_DEPLOYER_KEY",
      });
      expect(launched.json).to.include({ status: "mined", type: "ERC721", sender: wallet.address, simulated: true });
      erc721 = launched.json.contractAddress;
    });

    it("token:mint erc721 reports the minted id", async function () {
      const minted = await runJsonTask(hre, "token:mint", {
        chain: "ethereum",
        chainNetwork: "sepolia",
        type: "erc721",
        contract: erc721,
        privateKeyEnv: "CONSUMER_TEST_DEPLOYER_KEY",
      });
      expect(minted.json).to.include({ status: "mined", tokenId: "1", to: wallet.address, contractAddress: erc721 });
    });

    it("balance --erc20 --erc721 reads what the tasks launched and minted", async function () {
      const result = await runJsonTask(hre, "balance", {
        chain: "ethereum",
        chainNetwork: "sepolia",
        address: wallet.address,
        erc20,
        erc721,
      });
      expect(result.json.simulated).to.equal(true);
      expect(result.json.balances.CNS).to.deep.equal({
        balance: "12345",
        uiBalance: "123.45",
        contractAddress: erc20,
        decimals: 2,
        symbol: "CNS",
      });
      expect(result.json.erc721).to.have.length(1);
      expect(result.json.erc721[0]).to.deep.include({ balance: "1", tokenIds: ["1"], symbol: "CART" });
      for (const key of keys) expect(result.stdout).not.to.include(key.slice(2));
    });

    it("returns a typed error as a failed Result holding a HardhatPluginError with its code, naming the option", async function () {
      // A refusal is returned, not thrown: Hardhat's CLI prints a thrown error with a --show-stack-traces footer.
      let result: { success: boolean; error: unknown } | undefined;
      const output = await captureOutput(async () => {
        result = await hre.tasks.getTask("balance").run({ chain: "ethereum", chainNetwork: "goerli", address: wallet.address });
      });
      expect(result?.success).to.equal(false);
      expect(HardhatPluginError.isHardhatPluginError(result?.error), String(result?.error)).to.equal(true);
      expect((result?.error as HardhatPluginError).pluginId).to.equal("hardhat-token-service");
      expect((result?.error as Error).message).to.match(/^UNSUPPORTED_NETWORK \(--chain-network\): unknown network "goerli"/);
      expect(output.stderr).to.match(/^Error in community plugin hardhat-token-service: UNSUPPORTED_NETWORK \(--chain-network\)/);
    });

    it("never compiled anything in the consumer project", function () {
      expect(existsSync(path.join(root, "artifacts"))).to.equal(false);
    });
  });

  describe("the host's process is left as it was", function () {
    it("faucet and apikey:create create a fresh data directory 0700 and its files 0600 under a 022 umask, which they leave as it was", async function () {
      const fresh = path.join(dataDir, "fresh", "data");
      const own = await createFixtureProjectHRE("consumer", {
        adjust: (config) => ({ ...config, tokenService: { ...config.tokenService, dataDir: fresh } }),
      });
      const { result: afterFaucet, umaskAfter } = await underUmask(0o022, async () => {
        const wallet = (await runJsonTask(own, "wallet:create", { chain: "ethereum", chainNetwork: "sepolia" })).json;
        // Recorded in the embedded store and journalled by the simulated chain.
        await runJsonTask(own, "faucet", { chain: "ethereum", chainNetwork: "sepolia", address: wallet.address, amount: "1" });
        // Read before apikey:create, which sets the modes of whatever it finds in the directory.
        const modes = await modesUnder(fresh);
        await runJsonTask(own, "apikey:create", { label: "modes" });
        return modes;
      });
      expect(umaskAfter, "the process umask").to.equal(0o022);
      expect(afterFaucet).to.include.members(["store.sqlite 600", "chains 700/", "chains/ethereum-sepolia.jsonl 600", ". 700/"]);
      expect(afterFaucet.filter((line) => !line.endsWith(" 700/") && !line.endsWith(" 600"))).to.deep.equal([]);
      expect(await notPrivate(path.join(dataDir, "fresh")), (await modesUnder(fresh)).join("\n")).to.deep.equal([]);
    });
  });

  describe("programmatic API on the consumer's HRE", function () {
    it("shares the tasks' simulated chain when persisted, and keeps a private one in memory otherwise", async function () {
      const persisted = await createTokenService({ hre, persistSimulatedChains: true });
      const inMemory = await createTokenService({ hre });
      try {
        const owner = persisted.createWallet(SEPOLIA);
        await persisted.faucet({ ...SEPOLIA, address: owner.address });
        const launched = await persisted.launch({
          ...SEPOLIA,
          type: "erc20",
          token: { name: "API", symbol: "API", initialSupply: "3" },
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        expect((await persisted.waitForTransaction({ ...SEPOLIA, transactionHash: launched.transactionHash })).status).to.equal("mined");

        const read = await persisted.getBalances({
          ...SEPOLIA,
          address: owner.address,
          erc20TokenContractAddresses: [launched.contractAddress],
        });
        expect(read.balances.API!.balance).to.equal("3");

        // While it is open, a second persisted service is refused: a journal has one writer.
        const rival = await createTokenService({ hre, persistSimulatedChains: true });
        await expectServiceError(
          rival.getTokenBalance({ ...SEPOLIA, address: owner.address, tokenAddress: launched.contractAddress, type: "erc20" }),
          ErrorCode.DATA_DIR_IN_USE,
          undefined,
        );
        await rival.close();

        // Once it is closed, a second persisted service (a new process, in effect) replays the journal and sees the token.
        await persisted.close();
        const reopened = await createTokenService({ hre, persistSimulatedChains: true });
        try {
          const again = await reopened.getTokenBalance({
            ...SEPOLIA,
            address: owner.address,
            tokenAddress: launched.contractAddress,
            type: "erc20",
          });
          expect(again.balance).to.equal("3");
        } finally {
          await reopened.close();
        }

        // The in-memory service has its own fresh chain: the contract does not exist there.
        await expectServiceError(
          inMemory.getTokenBalance({ ...SEPOLIA, address: owner.address, tokenAddress: launched.contractAddress, type: "erc20" }),
          ErrorCode.NOT_A_TOKEN_CONTRACT,
          "tokenAddress",
          [owner.privateKey],
        );
      } finally {
        await Promise.all([persisted.close(), inMemory.close()]);
      }
    });

    it("createTokenService() without an HRE builds its own with the plugin", async function () {
      const standalone = await createTokenService({ env: {} });
      try {
        const wallet = standalone.createWallet({ chain: "binance_smart_chain", network: "testnet" });
        await standalone.faucet({ chain: "binance_smart_chain", network: "testnet", address: wallet.address, amount: "1" });
        const result = await standalone.getBalances({ chain: "binance_smart_chain", network: "testnet", address: wallet.address });
        expect(result).to.deep.include({ simulated: true, balances: { BNB: { balance: "1", uiBalance: "0.000000000000000001" } } });
      } finally {
        await standalone.close();
      }
    });
  });

  describe("tokenService config", function () {
    afterEach(function () {
      delete process.env.CONSUMER_TEST_SEPOLIA_RPC;
    });

    it("refuses a bad blockTime, dataDir or rpc entry with a validation error naming the path", async function () {
      expect(await validateTokenServiceConfig({ tokenService: { blockTime: -1 } })).to.deep.equal([
        { path: ["tokenService", "blockTime"], message: "Expected a number of seconds, 0 or more." },
      ]);
      expect(await validateTokenServiceConfig({ tokenService: { blockTime: "2" as unknown as number, dataDir: "" } })).to.have.length(2);
      const rpcErrors = await validateTokenServiceConfig({
        tokenService: { rpc: { solana: { mainnet: "http://x" }, ethereum: { goerli: "http://x" }, bitcoin: { mainnet: "http://x" } } },
      });
      expect(rpcErrors.map((error) => error.path.join("."))).to.have.members([
        "tokenService.rpc.solana",
        "tokenService.rpc.ethereum.goerli",
        "tokenService.rpc.bitcoin",
      ]);
      expect(await validateTokenServiceConfig({})).to.deep.equal([]);
      expect(
        await validateTokenServiceConfig({
          tokenService: { blockTime: 0, dataDir: "x", rpc: { binance_smart_chain: { testnet: "http://x" } } },
        }),
      ).to.deep.equal([]);
      // Several endpoints for a pair, tried in order; an empty list or a list of something else is refused at its path.
      expect(
        await validateTokenServiceConfig({
          tokenService: { rpc: { ethereum: { sepolia: ["http://a.example", configVariable("BACKUP_SEPOLIA_RPC")] } } },
        }),
      ).to.deep.equal([]);
      for (const sepolia of [[], [42], "" as unknown]) {
        const errors = await validateTokenServiceConfig({ tokenService: { rpc: { ethereum: { sepolia: sepolia as string[] } } } });
        expect(
          errors.map((error) => error.path.join(".")),
          JSON.stringify(sepolia),
        ).to.deep.equal(["tokenService.rpc.ethereum.sepolia"]);
      }
    });

    it("takes fee ceilings and replace-after blocks per pair, refusing bad ones at their path", async function () {
      const errors = await validateTokenServiceConfig({
        tokenService: {
          feeCaps: { ethereum: { mainnet: 0, sepolia: "1.5e9" }, solana: { mainnet: 1 } },
          replaceAfterBlocks: { polygon: { amoy: 0.5 } },
        },
      });
      expect(errors.map((error) => error.path.join("."))).to.have.members([
        "tokenService.feeCaps.ethereum.mainnet",
        "tokenService.feeCaps.ethereum.sepolia",
        "tokenService.feeCaps.solana",
        "tokenService.replaceAfterBlocks.polygon.amoy",
      ]);
      expect(
        await validateTokenServiceConfig({
          tokenService: { feeCaps: { ethereum: { mainnet: 40, sepolia: "0.05" } }, replaceAfterBlocks: { base: { mainnet: 30 } } },
        }),
      ).to.deep.equal([]);
      const configured = await createHardhatRuntimeEnvironment(
        {
          plugins: [tokenServicePlugin],
          tokenService: { feeCaps: { ethereum: { sepolia: "0.000000001" } }, replaceAfterBlocks: { base: { mainnet: 30 } } },
        },
        {},
        root,
      );
      expect(configured.config.tokenService).to.deep.include({
        feeCaps: { "ethereum/sepolia": "0.000000001" },
        replaceAfterBlocks: { "base/mainnet": 30 },
      });
      const service = await createTokenService({ hre: configured, env: {} });
      try {
        const wallet = service.createWallet({ chain: "ethereum", network: "sepolia" });
        await service.faucet({ chain: "ethereum", network: "sepolia", address: wallet.address });
        const refused = await expectServiceError(
          service.operations.prepareLaunch({
            chain: "ethereum",
            network: "sepolia",
            type: "ERC20",
            token: { name: "A", symbol: "A" },
            sender: wallet.address,
          }),
          ErrorCode.FEE_CAP_EXCEEDED,
          undefined,
        );
        expect(refused.details).to.deep.include({ source: "tokenService.feeCaps.ethereum.sepolia", ceiling: "1" });
      } finally {
        await service.close();
      }
    });

    it("makes Hardhat refuse to start with a bad blockTime", async function () {
      let thrown: unknown;
      try {
        await createHardhatRuntimeEnvironment({ plugins: [tokenServicePlugin], tokenService: { blockTime: -5 } });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, "createHardhatRuntimeEnvironment must reject").to.be.instanceOf(Error);
      expect((thrown as Error).message).to.include("tokenService.blockTime");
    });

    it("resolves an rpc endpoint from a configuration variable, and the pair goes live", async function () {
      const consumer = await createFixtureProjectHRE("consumer");
      const server = await consumer.network.createServer({ override: { chainId: 11155111 } }, "127.0.0.1", 0);
      const { address, port } = await server.listen();
      process.env.CONSUMER_TEST_SEPOLIA_RPC = `http://${address}:${port}`;
      const configured = await createHardhatRuntimeEnvironment(
        { plugins: [tokenServicePlugin], tokenService: { rpc: { ethereum: { sepolia: configVariable("CONSUMER_TEST_SEPOLIA_RPC") } } } },
        {},
        root,
      );
      const service = await createTokenService({ hre: configured, env: {} });
      try {
        expect(Object.keys(configured.config.tokenService.rpc)).to.deep.equal(["ethereum/sepolia"]);
        const sources = configuredRpcUrls(configured);
        expect(Object.keys(sources)).to.deep.equal(["ethereum/sepolia"]);
        const sepolia = sources["ethereum/sepolia"] as LazyEndpoint;
        expect(sepolia.variable).to.equal("CONSUMER_TEST_SEPOLIA_RPC");
        expect(await sepolia.get()).to.equal(process.env.CONSUMER_TEST_SEPOLIA_RPC);
        expect(configured.config.tokenService.blockTime, "default").to.equal(2);
        expect(configured.config.tokenService.dataDir, "default").to.equal(path.join(root, ".token-service"));
        const wallet = service.createWallet(SEPOLIA);
        const result = await service.getBalances({ ...SEPOLIA, address: wallet.address });
        expect(result.simulated).to.equal(false);
        await expectServiceError(service.faucet({ ...SEPOLIA, address: wallet.address }), ErrorCode.LIVE_NETWORK_FAUCET, "network", [
          wallet.privateKey,
        ]);
      } finally {
        await service.close();
        await server.close();
      }
    });

    it("fails clearly, naming the variable, when the configuration variable is not set, and only for its pair", async function () {
      delete process.env.CONSUMER_TEST_SEPOLIA_RPC;
      const configured = await createHardhatRuntimeEnvironment(
        { plugins: [tokenServicePlugin], tokenService: { rpc: { ethereum: { sepolia: configVariable("CONSUMER_TEST_SEPOLIA_RPC") } } } },
        {},
        root,
      );
      const service = await createTokenService({ hre: configured, env: {} });
      try {
        const wallet = service.createWallet(SEPOLIA);
        const refusal = await expectServiceError(
          service.getBalances({ ...SEPOLIA, address: wallet.address }),
          ErrorCode.BACKEND_NOT_CONFIGURED,
          "network",
        );
        expect(refusal.message).to.include("CONSUMER_TEST_SEPOLIA_RPC");
        expect((await service.getBalances({ chain: "ethereum", network: "holesky", address: wallet.address })).simulated).to.equal(true);
      } finally {
        await service.close();
      }
    });
  });
});
