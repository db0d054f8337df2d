import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet as EthersWallet, parseEther, toQuantity } from "ethers";
import { configVariable } from "hardhat/config";
import { createHardhatRuntimeEnvironment } from "hardhat/hre";

import tokenServicePlugin from "../../src/index.js";
import { validateTokenServiceConfig } from "../../src/hardhat/config.js";
import type { TokenServiceChainUserConfig } from "../../src/types.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { rpc } from "../helpers/json-rpc-servers.js";
import { startServe } from "../helpers/serve-process.js";

describe("chains declared in configuration (test/fixture-projects/chains, tasks through the CLI)", function () {
  const cwd = fixtureProjectRoot("chains");
  let dataDir: string;
  let devnet: AnvilNode;
  let orphan: AnvilNode;
  const keyedRuns: CliResult[] = [];

  const run = (args: string[], variables: Record<string, string> = {}) =>
    runHardhat(args, { cwd, env: cleanEnvironment({ CHAINS_TOKEN_SERVICE_DATA_DIR: dataDir, ...variables }) });
  const json = (result: CliResult) => {
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout);
  };

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-chains-"));
    [devnet, orphan] = await Promise.all([startAnvil({ chainId: 990302 }), startAnvil({ chainId: 990309 })]);
  });

  after(async function () {
    await Promise.all([devnet?.stop(), orphan?.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  let owner: { address: string; privateKey: string };

  it("the new built-in chains work through the tasks too: --chain base --chain-network sepolia, --chain polygon --chain-network amoy", async function () {
    const address = EthersWallet.createRandom().address;
    const base = await run(["faucet", "--chain", "base", "--chain-network", "sepolia", "--address", address]);
    expect(base.code, base.stderr).to.equal(0);
    expect(base.stdout).to.include(`Funded ${address} with 10 ETH on base/sepolia (simulated in-process chain)`);
    const polygon = await run(["faucet", "--chain", "polygon", "--chain-network", "testnet", "--address", address, "--amount", "2.5"]);
    expect(polygon.code, polygon.stderr).to.equal(0);
    expect(polygon.stdout).to.include(`Funded ${address} with 2.5 POL on polygon/amoy (simulated in-process chain)`);
  });

  describe("tokenService.chains", function () {
    const acme = ["--chain", "acme", "--chain-network", "mainnet"];

    it("wallet:create, faucet, token:launch and balance on a declared chain, simulated with its chain id", async function () {
      owner = json(await run(["wallet:create", ...acme, "--json"]));
      expect(owner).to.include({ chain: "acme", network: "mainnet" });

      const funded = await run(["faucet", ...acme, "--address", owner.address, "--amount", "3"]);
      expect(funded.code, funded.stderr).to.equal(0);
      expect(funded.stdout).to.include(`Funded ${owner.address} with 3 ACM on acme/mainnet (simulated in-process chain)`);

      const launched = await run(
        [
          "token:launch",
          ...acme,
          "--type",
          "erc20",
          "--name",
          "Acme",
          "--symbol",
          "ACME",
          "--initial-supply",
          "5",
          "--private-key-env",
          "ACME_KEY",
          "--json",
        ],
        { ACME_KEY: owner.privateKey },
      );
      keyedRuns.push(launched);
      const launch = json(launched);
      // Signed for the declared chain id (EIP-155), which the simulated node, made with that chain id, checks.
      expect(launch).to.include({ status: "mined", chain: "acme", network: "mainnet", simulated: true });

      const balance = json(await run(["balance", ...acme, "--address", owner.address, "--erc20", launch.contractAddress, "--json"]));
      expect(balance).to.include({ chain: "acme", network: "mainnet", simulated: true });
      expect(balance.balances.ACME).to.include({ balance: "5000000000000000000", uiBalance: "5" });
      expect(Number(balance.balances.ACM.uiBalance)).to.be.within(2.9, 3);
    });

    it("a declared network with an rpc configuration variable is live through it", async function () {
      const account = EthersWallet.createRandom().address;
      await rpc(devnet.url, "anvil_setBalance", [account, toQuantity(parseEther("4"))]);
      const live = await run(["balance", "--chain", "acme", "--chain-network", "devnet", "--address", account], {
        CHAINS_ACME_DEVNET_RPC_URL: devnet.url,
      });
      expect(live.code, live.stderr).to.equal(0);
      expect(live.stdout).to.include(
        `Balances of ${account} on acme/devnet (live network: configuration variable CHAINS_ACME_DEVNET_RPC_URL via tokenService.chains)`,
      );
      expect(live.stdout).to.match(/ACM\s+4\b/);

      const unset = await run(["balance", "--chain", "acme", "--chain-network", "devnet", "--address", account]);
      expect(unset.code).to.equal(1);
      expect(unset.stderr).to.include("BACKEND_NOT_CONFIGURED").and.to.include("CHAINS_ACME_DEVNET_RPC_URL (tokenService.chains)");
    });

    it("serve serves the declared chain over HTTP, and /api/v1/networks says where it was declared", async function () {
      const serve = await startServe({ apiKey: "chains-test-key", cwd, dataDir: path.join(dataDir, "serve") });
      try {
        expect(serve.output()).to.match(/acme\/mainnet\s+chain id 990301\s+SIMULATED/);
        const networks = await serve.call("GET", "/api/v1/networks");
        expect(
          networks.body.networks.find((pair: { chain: string; network: string }) => pair.chain === "acme" && pair.network === "mainnet"),
        ).to.include({
          chainId: 990301,
          nativeSymbol: "ACM",
          declaredIn: "tokenService.chains",
          simulated: true,
        });
        const wallet = await serve.call("POST", "/api/v1/wallets", { chain: "acme", network: "mainnet" });
        expect(wallet.status).to.equal(200);
        await serve.call("POST", "/api/v1/faucet", { chain: "acme", network: "mainnet", address: wallet.body.address });
        const launch = await serve.call("POST", "/api/v1/tokens?wait=mined", {
          chain: "acme",
          network: "mainnet",
          type: "erc721",
          token: { name: "Acme Art", symbol: "AART" },
          sender: wallet.body.address,
          privateKey: wallet.body.privateKey,
        });
        expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
        expect(launch.body).to.include({ status: "mined", chain: "acme", network: "mainnet" });
      } finally {
        expect(await serve.stop()).to.equal(0);
      }
    });
  });

  describe("--network with a chain id no chain has", function () {
    const account = EthersWallet.createRandom().address;
    const ORPHAN = JSON.stringify({ orphan: { nativeSymbol: "ORP", networks: { mainnet: { chainId: 990309 } } } });

    it("says exactly how to declare the chain, in the config or in the environment", async function () {
      const result = await run(["balance", "--network", "orphan", "--address", account], { CHAINS_ORPHAN_RPC_URL: orphan.url });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(
        /^Error in community plugin hardhat-token-service: UNSUPPORTED_NETWORK \(--network\): Hardhat network orphan is configured with chain id 990309/,
      );
      expect(result.stderr).to.include(
        'tokenService: { chains: { orphan: { nativeSymbol: "ETH", nativeDecimals: 18, networks: { mainnet: { chainId: 990309 } } } } }',
      );
      expect(result.stderr).to.include(
        `TOKEN_SERVICE_CHAINS='{"orphan":{"nativeSymbol":"ETH","nativeDecimals":18,"networks":{"mainnet":{"chainId":990309}}}}'`,
      );
    });

    it("works once TOKEN_SERVICE_CHAINS declares it: the declared pair, live through the network's url", async function () {
      await rpc(orphan.url, "anvil_setBalance", [account, toQuantity(parseEther("2"))]);
      const result = await run(["balance", "--network", "orphan", "--address", account, "--json"], {
        CHAINS_ORPHAN_RPC_URL: orphan.url,
        TOKEN_SERVICE_CHAINS: ORPHAN,
      });
      const read = json(result);
      expect(read).to.include({ chain: "orphan", network: "mainnet", simulated: false });
      expect(read.balances.ORP).to.include({ balance: parseEther("2").toString() });
    });

    it("a chain declared in TOKEN_SERVICE_CHAINS serves the tasks without --network: simulated, or live through a Hardhat network with its chain id", async function () {
      const declared = JSON.stringify({
        ...JSON.parse(ORPHAN),
        envchain: { nativeSymbol: "ENV", networks: { testnet: { chainId: 990320 } } },
      });
      const envchain = ["--chain", "envchain", "--chain-network", "testnet"];
      const wallet = json(await run(["wallet:create", ...envchain, "--json"], { TOKEN_SERVICE_CHAINS: declared }));
      const funded = json(await run(["faucet", ...envchain, "--address", wallet.address, "--json"], { TOKEN_SERVICE_CHAINS: declared }));
      expect(funded).to.deep.include({
        chain: "envchain",
        network: "testnet",
        simulated: true,
        amount: { balance: parseEther("10").toString(), uiBalance: "10" },
      });

      // The Hardhat network orphan has orphan/mainnet's chain id: it makes that pair live for every task.
      const live = await run(["balance", "--chain", "orphan", "--chain-network", "mainnet", "--address", account], {
        CHAINS_ORPHAN_RPC_URL: orphan.url,
        TOKEN_SERVICE_CHAINS: declared,
      });
      expect(live.code, live.stderr).to.equal(0);
      expect(live.stdout).to.include(
        "on orphan/mainnet (live network: configuration variable CHAINS_ORPHAN_RPC_URL via Hardhat network orphan)",
      );
    });

    it("a bad TOKEN_SERVICE_CHAINS fails the task naming the variable and the field", async function () {
      const bad = JSON.stringify({ orphan: { nativeSymbol: "ORP", networks: { mainnet: { chainId: 990301 } } } });
      const result = await run(["wallet:create", "--chain", "orphan", "--chain-network", "mainnet"], { TOKEN_SERVICE_CHAINS: bad });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(
        "TOKEN_SERVICE_CHAINS at orphan.networks.mainnet.chainId: chain id 990301 is already acme/mainnet's: each chain id names one pair (beside the chains of tokenService.chains)",
      );
      expect(result.stderr).not.to.match(/^\s+at /m);
    });
  });

  after(function () {
    // The runs that held a key in a variable never print it.
    for (const result of keyedRuns) expect(result.stdout + result.stderr).not.to.include(owner.privateKey.slice(2));
  });
});

describe("tokenService.chains: a bad declaration is refused, naming the field", function () {
  const acme = (chain: Partial<TokenServiceChainUserConfig> & Record<string, unknown>) => ({
    tokenService: { chains: { acme: chain as TokenServiceChainUserConfig } },
  });
  const errorsOf = async (config: Parameters<typeof validateTokenServiceConfig>[0]) =>
    (await validateTokenServiceConfig(config)).map((error) => `${error.path.join(".")}: ${error.message}`);

  it("accepts a good one, with its endpoint in the network or in tokenService.rpc", async function () {
    expect(
      await errorsOf(acme({ nativeSymbol: "ACM", networks: { mainnet: { chainId: 990401, rpc: configVariable("ACME_RPC") } } })),
    ).to.deep.equal([]);
    expect(
      await errorsOf({
        tokenService: {
          chains: { acme: { nativeSymbol: "ACM", nativeDecimals: 18, rollup: "op-stack", networks: { mainnet: { chainId: 990401 } } } },
          rpc: { acme: { mainnet: "http://127.0.0.1:8545" }, base: { sepolia: "http://127.0.0.1:8546" } },
        },
      }),
    ).to.deep.equal([]);
  });

  it("names each bad field", async function () {
    expect(await errorsOf(acme({ nativeSymbol: "ACM", networks: { mainnet: { chainId: "990402" as unknown as number } } }))).to.deep.equal([
      'tokenService.chains.acme.networks.mainnet.chainId: chainId must be a whole number, 1 or more (got "990402")',
    ]);
    expect(await errorsOf(acme({ networks: { mainnet: { chainId: 990403 } } }))).to.deep.equal([
      "tokenService.chains.acme.nativeSymbol: nativeSymbol is required: the native currency's symbol, e.g. ETH",
    ]);
    expect(await errorsOf(acme({ nativeSymbol: "ACM", nativeDecimals: 40, networks: { mainnet: { chainId: 990404 } } }))).to.deep.equal([
      "tokenService.chains.acme.nativeDecimals: nativeDecimals must be a whole number from 0 to 36 (got 40)",
    ]);
    expect(await errorsOf(acme({ nativeSymbol: "ACM", networks: {} }))).to.deep.equal([
      "tokenService.chains.acme.networks: networks must name at least one network",
    ]);
    expect(await errorsOf(acme({ nativeSymbol: "ACM", rollup: "zk" as never, networks: { mainnet: { chainId: 990405 } } }))).to.deep.equal([
      'tokenService.chains.acme.rollup: rollup must be one of op-stack, arbitrum (or left out) (got "zk")',
    ]);
    expect(await errorsOf(acme({ nativeSymbol: "ACM", gasToken: "x", networks: { mainnet: { chainId: 990406 } } }))).to.deep.equal([
      "tokenService.chains.acme: unknown field gasToken: a chain takes nativeSymbol, nativeDecimals, rollup and networks",
    ]);
    expect(
      await errorsOf({ tokenService: { chains: { Acme: { nativeSymbol: "ACM", networks: { mainnet: { chainId: 990407 } } } } } }),
    ).to.deep.equal([
      'tokenService.chains.Acme: a chain\'s name must be lowercase letters, digits and underscores, starting with a letter, at most 40 characters (got "Acme")',
    ]);
  });

  it("refuses a built-in chain's name and a chain id another pair has", async function () {
    expect(
      await errorsOf({ tokenService: { chains: { base: { nativeSymbol: "ETH", networks: { devnet: { chainId: 990408 } } } } } }),
    ).to.deep.equal([
      "tokenService.chains.base: base is built in (mainnet, sepolia): give its endpoints, not its declaration (docs/chains/)",
    ]);
    expect(await errorsOf(acme({ nativeSymbol: "ACM", networks: { mainnet: { chainId: 137 } } }))).to.deep.equal([
      "tokenService.chains.acme.networks.mainnet.chainId: chain id 137 is already polygon/mainnet's: each chain id names one pair",
    ]);
  });

  it("refuses an endpoint that is no URL without quoting it, and one given twice", async function () {
    const errors = await errorsOf(acme({ nativeSymbol: "ACM", networks: { mainnet: { chainId: 990409, rpc: "node-with-SECRETKEY" } } }));
    expect(errors).to.deep.equal([
      'tokenService.chains.acme.networks.mainnet.rpc: rpc must be a URL or a configuration variable (configVariable("NAME"))',
    ]);
    expect(
      await errorsOf({
        tokenService: {
          chains: { acme: { nativeSymbol: "ACM", networks: { mainnet: { chainId: 990410, rpc: "http://127.0.0.1:1" } } } },
          rpc: { acme: { mainnet: "http://127.0.0.1:2" } },
        },
      }),
    ).to.deep.equal([
      "tokenService.rpc.acme.mainnet: acme/mainnet's endpoint is also tokenService.chains.acme.networks.mainnet.rpc: give it once",
    ]);
    // tokenService.rpc knows the declared chain's networks, and no others.
    expect(
      await errorsOf({
        tokenService: {
          chains: { acme: { nativeSymbol: "ACM", networks: { mainnet: { chainId: 990411 } } } },
          rpc: { acme: { devnet: "http://127.0.0.1:1" } },
        },
      }),
    ).to.deep.equal(["tokenService.rpc.acme.devnet: Expected one of: mainnet."]);
  });

  it("makes Hardhat refuse to start on a bad declaration", async function () {
    const thrown = await createHardhatRuntimeEnvironment({
      plugins: [tokenServicePlugin],
      tokenService: { chains: { acme: { nativeSymbol: "ACM", networks: { mainnet: { chainId: -1 } } } } },
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown, "createHardhatRuntimeEnvironment must reject").to.be.instanceOf(Error);
    expect((thrown as Error).message).to.include("tokenService.chains.acme.networks.mainnet.chainId");
  });
});
