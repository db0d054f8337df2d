import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet as EthersWallet, toQuantity } from "ethers";
import { configVariable } from "hardhat/config";
import hardhat from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { createTokenService } from "../../src/api.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { createFixtureProjectHRE, fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { rpc, startCountingProxy } from "../helpers/json-rpc-servers.js";
import { startServe } from "../helpers/serve-process.js";

/** A real JSON-RPC node on a socket (EDR behind Hardhat's HTTP server) serving `chainId`. */
async function startNode(chainId: number): Promise<{ server: JsonRpcServer; url: string }> {
  const server = await hardhat.network.createServer({ override: { chainId } } as never, "127.0.0.1", 0);
  const { address, port } = await server.listen();
  return { server, url: `http://${address}:${port}` };
}

describe("Hardhat networks make pairs live (test/fixture-projects/networks, tasks through the CLI)", function () {
  const cwd = fixtureProjectRoot("networks");
  let dataDir: string;
  let sepolia: { server: JsonRpcServer; url: string };
  let hoodi: { server: JsonRpcServer; url: string };
  const deployer = EthersWallet.createRandom();
  /** Every run that held the deployer's key: none may print it. */
  const keyedRuns: CliResult[] = [];

  /** `npx hardhat <args>` in the fixture project, with only the given configuration variables set. */
  const run = (args: string[], variables: Record<string, string> = {}) =>
    runHardhat(args, { cwd, env: cleanEnvironment({ NETWORKS_TOKEN_SERVICE_DATA_DIR: dataDir, ...variables }) });
  const withSepolia = () => ({ NETWORKS_SEPOLIA_RPC_URL: sepolia.url, NETWORKS_DEPLOYER_KEY: deployer.privateKey });

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-networks-"));
    sepolia = await startNode(11155111);
    hoodi = await startNode(560048);
    // The faucet refuses live networks: the deployer is funded on the node itself.
    await rpc(sepolia.url, "hardhat_setBalance", [deployer.address, toQuantity(10n ** 19n)]);
  });

  after(async function () {
    await sepolia?.server.close();
    await hoodi?.server.close();
    await rm(dataDir, { recursive: true, force: true });
    for (const result of keyedRuns) {
      expect(result.stdout + result.stderr).not.to.include(deployer.privateKey.slice(2));
    }
  });

  describe("--network sepolia (an HTTP network without chainId)", function () {
    let contract: string;

    it("token:launch goes to that network's node, signed with its account, and says so", async function () {
      const result = await run(
        ["token:launch", "--network", "sepolia", "--type", "erc20", "--name", "Live", "--symbol", "LIV", "--initial-supply", "5"],
        withSepolia(),
      );
      keyedRuns.push(result);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.include(
        "ERC20 LIV launched on ethereum/sepolia (live network: configuration variable NETWORKS_SEPOLIA_RPC_URL via Hardhat network sepolia)",
      );
      contract = /contractAddress\s+(0x[0-9a-fA-F]{40})/.exec(result.stdout)![1]!;
      // On the node itself, asked directly: the contract's code is there.
      expect(await rpc(sepolia.url, "eth_getCode", [contract, "latest"])).to.match(/^0x[0-9a-f]{100,}$/);
    });

    it("balance reads the token from the node; --chain may be given when it agrees", async function () {
      const result = await run(
        ["balance", "--network", "sepolia", "--chain", "ethereum", "--address", deployer.address, "--erc20", contract, "--json"],
        withSepolia(),
      );
      expect(result.code, result.stderr).to.equal(0);
      const json = JSON.parse(result.stdout);
      expect(json).to.include({ chain: "ethereum", network: "sepolia", simulated: false });
      expect(json.balances.LIV).to.include({ balance: "5000000000000000000", uiBalance: "5" });
    });

    it("refuses --chain or --chain-network that disagree with the network, naming the options", async function () {
      const chain = await run(["balance", "--network", "sepolia", "--chain", "bitcoin", "--address", deployer.address], withSepolia());
      expect(chain.code).to.equal(1);
      expect(chain.stderr).to.match(
        /^Error in community plugin hardhat-token-service: INVALID_ARGUMENT \(--chain\): --chain bitcoin disagrees with --network sepolia/,
      );
      expect(chain.stderr).to.include("ethereum/sepolia (chain id 11155111)");

      const network = await run(
        ["balance", "--network", "sepolia", "--chain-network", "holesky", "--address", deployer.address],
        withSepolia(),
      );
      expect(network.code).to.equal(1);
      expect(network.stderr).to.match(
        /^Error in community plugin hardhat-token-service: INVALID_ARGUMENT \(--chain-network\): --chain-network holesky disagrees with --network sepolia/,
      );
    });

    it("refuses a node that serves another chain than the pair named (CHAIN_ID_MISMATCH)", async function () {
      const result = await run(
        ["balance", "--network", "sepolia", "--chain", "binance_smart_chain", "--chain-network", "testnet", "--address", deployer.address],
        withSepolia(),
      );
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(/^Error in community plugin hardhat-token-service: CHAIN_ID_MISMATCH/);
      expect(result.stderr).to.include("serves chain id 11155111, expected 97");
    });

    it("serve --network sepolia serves ethereum/sepolia from that node", async function () {
      const serve = await startServe({
        apiKey: "networks-test-key",
        cwd,
        dataDir: path.join(dataDir, "serve-sepolia"),
        args: ["--network", "sepolia"],
        env: withSepolia(),
      });
      try {
        expect(serve.output()).to.match(
          /ethereum\/sepolia\s+chain id 11155111\s+LIVE\s+configuration variable NETWORKS_SEPOLIA_RPC_URL via Hardhat network sepolia/,
        );
        const read = await serve.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${deployer.address}`);
        expect(read.status, JSON.stringify(read.body)).to.equal(200);
        expect(read.body).to.include({ simulated: false });
        const onNode = BigInt((await rpc(sepolia.url, "eth_getBalance", [deployer.address, "latest"])) as string);
        expect(read.body.balances.ETH.balance).to.equal(onNode.toString());
      } finally {
        expect(await serve.stop()).to.equal(0);
      }
    });

    it("fails only when used while its url variable is unset, naming the variable", async function () {
      const unset = await run(["balance", "--network", "sepolia", "--address", deployer.address]);
      expect(unset.code).to.equal(1);
      expect(unset.stderr).to.match(
        /^Error in community plugin hardhat-token-service: BACKEND_NOT_CONFIGURED \(--network\): --network sepolia connects through/,
      );
      expect(unset.stderr).to.include("NETWORKS_SEPOLIA_RPC_URL");
      // Typed for --chain-network? The hint names the options that select the service's own pair.
      expect(unset.stderr).to.include(
        "Hint: --network selects a Hardhat network (here sepolia, a live node); --chain ethereum --chain-network sepolia without --network selects the service's ethereum/sepolia pair (base, arbitrum, optimism have one too: --chain base …)",
      );
      expect(unset.stderr).not.to.match(/unexpected error|^\s+at /im);

      const named = await run([
        "balance",
        "--network",
        "sepolia",
        "--chain",
        "ethereum",
        "--chain-network",
        "sepolia",
        "--address",
        deployer.address,
      ]);
      expect(named.code).to.equal(1);
      expect(named.stderr).to.include("NETWORKS_SEPOLIA_RPC_URL (Hardhat network sepolia)");

      // Without --network, ethereum/sepolia is simulated, and no variable of the config is needed.
      const simulated = await run([
        "balance",
        "--chain",
        "ethereum",
        "--chain-network",
        "sepolia",
        "--address",
        deployer.address,
        "--json",
      ]);
      expect(simulated.code, simulated.stderr).to.equal(0);
      expect(JSON.parse(simulated.stdout)).to.include({ simulated: true });
    });
  });

  describe("networks matched by chainId", function () {
    it("makes the pair live for every task; an unset url fails that pair alone", async function () {
      const unset = await run(["balance", "--chain", "ethereum", "--chain-network", "hoodi", "--address", deployer.address]);
      expect(unset.code).to.equal(1);
      expect(unset.stderr).to.include("BACKEND_NOT_CONFIGURED").and.to.include("NETWORKS_HOODI_RPC_URL (Hardhat network hoodi)");

      // Behind a proxy that wants the network's httpHeaders, as a provider wants its key.
      const proxy = await startCountingProxy(hoodi.url, { requireHeader: { name: "x-node-key", value: "networks-fixture-key" } });
      let live: CliResult;
      try {
        live = await run(["balance", "--chain", "ethereum", "--chain-network", "hoodi", "--address", deployer.address], {
          NETWORKS_HOODI_RPC_URL: proxy.url,
        });
      } finally {
        await proxy.close();
      }
      expect(proxy.requests.flat()).to.include("eth_getBalance");
      expect(live.code, live.stderr).to.equal(0);
      expect(live.stdout).to.include(
        "on ethereum/hoodi (live network: configuration variable NETWORKS_HOODI_RPC_URL via Hardhat network hoodi)",
      );
    });

    it("refuses a node of another chain than the network's chainId (CHAIN_ID_MISMATCH)", async function () {
      const result = await run(["balance", "--network", "bscTestnet", "--address", deployer.address], {
        NETWORKS_BSC_TESTNET_RPC_URL: sepolia.url,
      });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(/^Error in community plugin hardhat-token-service: CHAIN_ID_MISMATCH/);
      expect(result.stderr).to.include("binance_smart_chain/testnet");
    });

    it("serve shows each matched pair LIVE with the network it came from, before any variable is read", async function () {
      const serve = await startServe({
        apiKey: "networks-test-key",
        cwd,
        dataDir: path.join(dataDir, "serve"),
        env: { NETWORKS_HOODI_RPC_URL: hoodi.url },
      });
      try {
        const banner = serve.output();
        expect(banner).to.match(
          /ethereum\/hoodi\s+chain id 560048\s+LIVE\s+configuration variable NETWORKS_HOODI_RPC_URL via Hardhat network hoodi/,
        );
        // Its variable unset, bscTestnet still makes its pair live: the request for it names the variable.
        expect(banner).to.match(
          /binance_smart_chain\/testnet\s+chain id 97\s+LIVE\s+configuration variable NETWORKS_BSC_TESTNET_RPC_URL via Hardhat network bscTestnet/,
        );
        expect(banner).to.match(/ethereum\/sepolia\s+chain id 11155111\s+SIMULATED/);
        const read = await serve.call("GET", `/api/v1/wallets?chain=ethereum&network=hoodi&address=${deployer.address}`);
        expect(read.status, JSON.stringify(read.body)).to.equal(200);
        expect(read.body).to.include({ simulated: false });
        const unset = await serve.call("GET", `/api/v1/wallets?chain=binance_smart_chain&network=testnet&address=${deployer.address}`);
        expect(unset.status).to.equal(503);
        expect(unset.body.error.message).to.include("NETWORKS_BSC_TESTNET_RPC_URL");
      } finally {
        expect(await serve.stop()).to.equal(0);
      }
    });
  });

  describe("programmatic API on the fixture's HRE", function () {
    afterEach(function () {
      delete process.env.NETWORKS_SEPOLIA_RPC_URL;
    });

    it("createTokenService({ hre }) under --network sepolia (a script's `hardhat run --network sepolia`) reads that node", async function () {
      process.env.NETWORKS_SEPOLIA_RPC_URL = sepolia.url;
      const hre = await createFixtureProjectHRE("networks", {
        network: "sepolia",
        adjust: (config) => ({ ...config, tokenService: { ...config.tokenService, dataDir: path.join(dataDir, "script") } }),
      });
      const service = await createTokenService({ hre, env: {} });
      try {
        const sepoliaPair = service.networks().find((pair) => pair.chain === "ethereum" && pair.network === "sepolia");
        expect(sepoliaPair).to.include({
          simulated: false,
          endpoint: "configuration variable NETWORKS_SEPOLIA_RPC_URL via Hardhat network sepolia",
        });
        const read = await service.getBalances({ chain: "ethereum", network: "sepolia", address: deployer.address });
        expect(read.simulated).to.equal(false);
        expect(read.balances.ETH!.balance).to.equal(
          BigInt((await rpc(sepolia.url, "eth_getBalance", [deployer.address, "latest"])) as string).toString(),
        );
      } finally {
        await service.close();
      }
    });
  });

  describe("precedence: TOKEN_SERVICE_RPC_* > tokenService.rpc > networks (programmatic API on the fixture's HRE)", function () {
    it("says where each live pair's endpoint comes from", async function () {
      const hre = await createFixtureProjectHRE("networks", {
        adjust: (config) => ({
          ...config,
          tokenService: {
            ...config.tokenService,
            dataDir: path.join(dataDir, "api"),
            rpc: {
              ethereum: { hoodi: "http://127.0.0.1:1/hoodi-from-rpc" },
              binance_smart_chain: { testnet: configVariable("UNSET_BSC") },
            },
          },
        }),
      });
      const endpoints = async (env: NodeJS.ProcessEnv) => {
        const service = await createTokenService({ hre, env });
        try {
          return Object.fromEntries(service.networks().map((pair) => [`${pair.chain}/${pair.network}`, pair.endpoint]));
        } finally {
          await service.close();
        }
      };
      const fromConfig = await endpoints({});
      expect(fromConfig["ethereum/hoodi"]).to.equal("127.0.0.1:1 via tokenService.rpc");
      expect(fromConfig["binance_smart_chain/testnet"]).to.equal("configuration variable UNSET_BSC via tokenService.rpc");
      expect(fromConfig["ethereum/sepolia"]).to.equal("in-process EDR (simulated)");

      const fromEnv = await endpoints({ TOKEN_SERVICE_RPC_ETHEREUM_HOODI: "http://127.0.0.2:8545" });
      expect(fromEnv["ethereum/hoodi"]).to.equal("127.0.0.2:8545 via TOKEN_SERVICE_RPC_ETHEREUM_HOODI");
    });
  });
});
