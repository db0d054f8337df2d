import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Contract, Wallet as EthersWallet, getAddress } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork } from "../../src/api.js";

import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { independentProvider } from "../helpers/token-client.js";

const TASK_DESCRIPTIONS: Record<string, string> = {
  "wallet:create": "Create a wallet (address and private key) on a chain and network",
  faucet: "Give an address native currency on a simulated chain",
  "token:launch": "Launch an OpenZeppelin-based ERC20, ERC721 or ERC1155 token contract",
  "token:mint": "Mint ERC20 supply within the cap, an ERC721 token or an ERC1155 id",
  "token:transfer": "Send native currency, or an ERC20, ERC721 or ERC1155 token",
  "token:approve": "Let a spender move the sender's ERC20, ERC721 or ERC1155 tokens",
  balance: "Read the native, ERC20 and ERC721 balances of an address",
};

describe("tasks through Hardhat's CLI (a child process in the consumer project)", function () {
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let deployer: { address: string; privateKey: string };
  /** Output of every run that held the deployer's key: none may print it. */
  const keyedRuns: CliResult[] = [];

  const hardhat = (...args: string[]) => runHardhat(args, { cwd, env });
  async function hardhatJson(...args: string[]): Promise<any> {
    const result = await hardhat(...args, "--json");
    expect(result.code, `hardhat ${args.join(" ")}\n${result.stderr}`).to.equal(0);
    return { ...result, json: JSON.parse(result.stdout) };
  }

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-cli-"));
    env = cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir });
  });

  after(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("`hardhat --help` lists every task with its description", async function () {
    const result = await hardhat("--help");
    expect(result.code).to.equal(0);
    for (const [name, description] of Object.entries(TASK_DESCRIPTIONS)) {
      expect(result.stdout).to.match(new RegExp(`^\\s+${name}\\s+${description.replace(/[()]/g, "\\$&")}`, "m"));
    }
  });

  it("`hardhat token:launch --help` offers --chain-network and --private-key-env, and no way to pass a key itself", async function () {
    const result = await hardhat("token:launch", "--help");
    expect(result.code).to.equal(0);
    for (const option of [
      "--chain",
      "--chain-network",
      "--private-key-env",
      "--sender",
      "--initial-supply",
      "--total-supply",
      "--json",
      "--no-wait",
    ]) {
      expect(result.stdout).to.include(option);
    }
    // --private-key is declared only to be refused with a pointer to --private-key-env, and its help says so.
    expect(result.stdout).to.match(
      /^\s+--private-key\s+Not accepted \(shell history would keep the key\).*--private-key-env \(default: none\)$/m,
    );
    // Amounts a person types are in whole tokens, and the help says so.
    expect(result.stdout).to.match(/--initial-supply\s+ERC20: supply minted at launch, in whole tokens at --decimals/);
    const faucet = await hardhat("faucet", "--help");
    expect(faucet.stdout).to.match(/--amount\s+Amount in whole units of the native currency, e.g. 5 or 0.25 \(default: 10\)/);
  });

  it("wallet:create --json prints one wallet whose key derives its address", async function () {
    const { json } = await hardhatJson("wallet:create", ...pair);
    expect(Object.keys(json).sort()).to.deep.equal(["address", "chain", "network", "privateKey"]);
    expect(json).to.include({ chain: "ethereum", network: "sepolia" });
    expect(new EthersWallet(json.privateKey).address).to.equal(json.address);
    deployer = json;
    env.DEPLOYER_KEY = deployer.privateKey;
  });

  it("wallet:create for bitcoin prints a human-readable wallet", async function () {
    const result = await hardhat("wallet:create", "--chain", "bitcoin", "--chain-network", "regtest", "--address-type", "p2tr");
    expect(result.code).to.equal(0);
    expect(result.stdout).to.include("New bitcoin/regtest wallet (p2tr)");
    expect(result.stdout).to.match(/address\s+bcrt1p[0-9a-z]+/);
    expect(result.stdout).to.match(/privateKey\s+c[1-9A-HJ-NP-Za-km-z]{51}/);
  });

  it("faucet funds the wallet on the simulated chain", async function () {
    // --amount is in whole ETH, as the default (10) is; the JSON keeps smallest units beside the display amount.
    const result = await hardhatJson("faucet", ...pair, "--address", deployer.address, "--amount", "3");
    keyedRuns.push(result);
    expect(result.json).to.deep.include({
      address: deployer.address,
      simulated: true,
      amount: { balance: "3000000000000000000", uiBalance: "3" },
    });

    const human = await hardhat("faucet", ...pair, "--address", deployer.address);
    keyedRuns.push(human);
    expect(human.code).to.equal(0);
    expect(human.stdout).to.include(`Funded ${deployer.address} with 10 ETH on ethereum/sepolia (simulated in-process chain)`);
    expect(human.stdout).to.include("balance now 13 ETH");
  });

  let erc20: string;
  let erc721: string;

  it("token:launch erc20 --private-key-env waits for mining and prints the contract", async function () {
    const result = await hardhatJson(
      "token:launch",
      ...pair,
      "--type",
      "erc20",
      "--name",
      "CLI Coin",
      "--symbol",
      "CLI",
      "--decimals",
      "4",
      "--initial-supply",
      "100",
      "--total-supply",
      "200",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(result);
    expect(result.json).to.include({
      status: "mined",
      type: "ERC20",
      sender: deployer.address,
      chain: "ethereum",
      network: "sepolia",
      simulated: true,
    });
    expect(result.json.blockNumber).to.be.a("number");
    erc20 = getAddress(result.json.contractAddress);
  });

  it("token:launch erc721 prints a human-readable result", async function () {
    const result = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc721",
      "--name",
      "CLI Art",
      "--symbol",
      "CART",
      "--uri",
      "ipfs://cli/",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(result);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.include("ERC721 CART launched on ethereum/sepolia (simulated in-process chain)");
    const address = /contractAddress\s+(0x[0-9a-fA-F]{40})/.exec(result.stdout)?.[1];
    expect(address).to.be.a("string");
    expect(result.stdout).to.match(/status\s+mined \(block \d+\)/);
    erc721 = address!;
  });

  it("token:mint mints an NFT (reporting its id) and more ERC20 supply", async function () {
    const collector = EthersWallet.createRandom().address;
    const nft = await hardhatJson(
      "token:mint",
      ...pair,
      "--type",
      "erc721",
      "--contract",
      erc721,
      "--to",
      collector,
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(nft);
    expect(nft.json).to.include({ status: "mined", type: "ERC721", tokenId: "1", to: collector, contractAddress: erc721 });

    const own = await hardhatJson("token:mint", ...pair, "--type", "erc721", "--contract", erc721, "--private-key-env", "DEPLOYER_KEY");
    keyedRuns.push(own);
    expect(own.json).to.include({ tokenId: "2", to: deployer.address });

    // Whole tokens at the token's 4 decimals: 0.5 CLI is 5000 smallest units.
    const coins = await hardhat(
      "token:mint",
      ...pair,
      "--type",
      "erc20",
      "--contract",
      erc20,
      "--amount",
      "0.5",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(coins);
    expect(coins.code, coins.stderr).to.equal(0);
    expect(coins.stdout).to.include(`Minted 0.5 CLI of ${erc20} to ${deployer.address}`);
    expect(coins.stdout).to.match(/status\s+mined/);
  });

  it("balance --erc20 --erc721 reads native, ERC20 and ERC721 balances", async function () {
    const result = await hardhatJson("balance", ...pair, "--address", deployer.address, "--erc20", erc20, "--erc721", erc721);
    keyedRuns.push(result);
    expect(result.json).to.include({ address: deployer.address, simulated: true });
    expect(result.json.balances.CLI).to.deep.equal({
      balance: "1005000",
      uiBalance: "100.5",
      contractAddress: erc20,
      decimals: 4,
      symbol: "CLI",
    });
    expect(Number(result.json.balances.ETH.uiBalance)).to.be.within(12, 13);
    expect(result.json.erc721[0]).to.deep.include({ balance: "1", tokenIds: ["2"], symbol: "CART", tokenAddress: erc721 });

    const human = await hardhat("balance", ...pair, "--address", deployer.address, "--erc20", erc20, "--erc721", erc721);
    keyedRuns.push(human);
    expect(human.code).to.equal(0);
    expect(human.stdout).to.include(`Balances of ${deployer.address} on ethereum/sepolia (simulated in-process chain)`);
    expect(human.stdout).to.match(/CLI\s+100\.5 {2}\[0x/);
    expect(human.stdout).to.match(/CART\s+1 token\(s\): #2/);
  });

  it("token:transfer sends ETH and ERC20 in whole units and an NFT; the recipient's balances show them", async function () {
    const friend = EthersWallet.createRandom().address;
    const signer = ["--private-key-env", "DEPLOYER_KEY"];
    const eth = await hardhatJson("token:transfer", ...pair, "--to", friend, "--amount", "0.25", ...signer);
    keyedRuns.push(eth);
    expect(eth.json).to.include({ status: "mined", type: "NATIVE", to: friend, amount: "250000000000000000", sender: deployer.address });

    // Whole tokens at the token's 4 decimals: 1.5 CLI is 15000 smallest units.
    const coins = await hardhat(
      "token:transfer",
      ...pair,
      "--type",
      "erc20",
      "--contract",
      erc20,
      "--to",
      friend,
      "--amount",
      "1.5",
      ...signer,
    );
    keyedRuns.push(coins);
    expect(coins.code, coins.stderr).to.equal(0);
    expect(coins.stdout).to.include(
      `Sent 1.5 CLI (${erc20}) from ${deployer.address} to ${friend} on ethereum/sepolia (simulated in-process chain)`,
    );
    expect(coins.stdout).to.match(/status\s+mined \(block \d+\)/);

    const nft = await hardhatJson(
      "token:transfer",
      ...pair,
      "--type",
      "erc721",
      "--contract",
      erc721,
      "--to",
      friend,
      "--token-id",
      "2",
      ...signer,
    );
    keyedRuns.push(nft);
    expect(nft.json).to.include({ status: "mined", type: "ERC721", tokenId: "2", contractAddress: erc721 });

    const balances = await hardhatJson("balance", ...pair, "--address", friend, "--erc20", erc20, "--erc721", erc721);
    expect(balances.json.balances.ETH).to.deep.equal({ balance: "250000000000000000", uiBalance: "0.25" });
    expect(balances.json.balances.CLI).to.include({ balance: "15000", uiBalance: "1.5" });
    expect(balances.json.erc721[0]).to.deep.include({ balance: "1", tokenIds: ["2"] });

    const tooMuch = await hardhat(
      "token:transfer",
      ...pair,
      "--type",
      "erc20",
      "--contract",
      erc20,
      "--to",
      friend,
      "--amount",
      "1000",
      ...signer,
    );
    keyedRuns.push(tooMuch);
    expect(tooMuch.code).to.equal(1);
    expect(tooMuch.stderr).to.include("Error in community plugin hardhat-token-service: INSUFFICIENT_TOKEN_BALANCE (--amount)");
    expect(tooMuch.stderr).to.include("ERC20InsufficientBalance");
  });

  let items: string;
  const itemHolder = EthersWallet.createRandom().address;

  it("token:mint --type erc1155 mints an amount of one id of a collection", async function () {
    const launched = await hardhatJson(
      "token:launch",
      ...pair,
      "--type",
      "erc1155",
      "--name",
      "CLI Items",
      "--uri",
      "ipfs://items/{id}.json",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(launched);
    items = getAddress(launched.json.contractAddress);
    const minted = await hardhat(
      "token:mint",
      ...pair,
      "--type",
      "erc1155",
      "--contract",
      items,
      "--to",
      itemHolder,
      "--token-id",
      "3",
      "--amount",
      "5",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(minted);
    expect(minted.code, minted.stderr).to.equal(0);
    expect(minted.stdout).to.include(`Minted 5 of token #3 of ${items} to ${itemHolder} on ethereum/sepolia (simulated in-process chain)`);
  });

  it("token:approve sets an ERC20 allowance in whole units and makes an ERC721 operator; the chain, replayed, answers them and the ERC1155 mint", async function () {
    const spender = EthersWallet.createRandom().address;
    const signer = ["--private-key-env", "DEPLOYER_KEY"];
    // 2.5 CLI at the token's 4 decimals: an allowance of 25000 smallest units.
    const allowance = await hardhat("token:approve", ...pair, "--contract", erc20, "--spender", spender, "--amount", "2.5", ...signer);
    keyedRuns.push(allowance);
    expect(allowance.code, allowance.stderr).to.equal(0);
    expect(allowance.stdout).to.include(
      `Approved ${spender} to spend 2.5 CLI of ${deployer.address} (${erc20}) on ethereum/sepolia (simulated in-process chain)`,
    );
    expect(allowance.stdout).to.match(/status\s+mined \(block \d+\)/);

    const operator = await hardhatJson(
      "token:approve",
      ...pair,
      "--type",
      "erc721",
      "--contract",
      erc721,
      "--spender",
      spender,
      "--all",
      "true",
      ...signer,
    );
    keyedRuns.push(operator);
    expect(operator.json).to.include({ status: "mined", type: "ERC721", all: true, spender, sender: deployer.address });

    const bad = await hardhat(
      "token:approve",
      ...pair,
      "--type",
      "erc721",
      "--contract",
      erc721,
      "--spender",
      spender,
      "--all",
      "yes",
      ...signer,
    );
    keyedRuns.push(bad);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include("Error in community plugin hardhat-token-service: INVALID_ARGUMENT (--all): all must be true or false");

    // Read back by an ethers client of the test's own, on the chain the data directory's journal replays in this process.
    const service = await createTokenService({ hre, env: {}, dataDir });
    try {
      const node = independentProvider(await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test"));
      const approvals = [
        "function allowance(address owner, address spender) view returns (uint256)",
        "function isApprovedForAll(address owner, address operator) view returns (bool)",
        "function balanceOf(address owner, uint256 id) view returns (uint256)",
      ];
      expect(await new Contract(erc20, approvals, node).getFunction("allowance")(deployer.address, spender)).to.equal(25000n);
      expect(await new Contract(erc721, approvals, node).getFunction("isApprovedForAll")(deployer.address, spender)).to.equal(true);
      expect(await new Contract(items, approvals, node).getFunction("balanceOf")(itemHolder, 3n)).to.equal(5n);
    } finally {
      await service.close();
    }
  });

  it("keeps the simulated chain in the configured data directory between runs", async function () {
    const chains = await readdir(path.join(dataDir, "chains"));
    expect(chains).to.include("ethereum-sepolia.jsonl");
    expect(existsSync(path.join(cwd, ".token-service")), "nothing written outside the data directory").to.equal(false);
  });

  it("an error exits with code 1 and names the option the user typed", async function () {
    const network = await hardhat("balance", "--chain", "ethereum", "--chain-network", "goerli", "--address", deployer.address);
    expect(network.code).to.equal(1);
    expect(network.stderr).to.include(
      'Error in community plugin hardhat-token-service: UNSUPPORTED_NETWORK (--chain-network): unknown network "goerli"',
    );

    const address = await hardhat("balance", ...pair, "--address", "0x1234");
    expect(address.code).to.equal(1);
    expect(address.stderr).to.include("Error in community plugin hardhat-token-service: INVALID_ADDRESS (--address)");

    const supply = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc20",
      "--name",
      "X",
      "--symbol",
      "X",
      "--initial-supply",
      "11",
      "--total-supply",
      "10",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(supply);
    expect(supply.code).to.equal(1);
    expect(supply.stderr).to.include("Error in community plugin hardhat-token-service: INVALID_ARGUMENT (--initial-supply)");

    const places = await hardhat(
      "token:mint",
      ...pair,
      "--type",
      "erc20",
      "--contract",
      erc20,
      "--amount",
      "0.00001",
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    expect(places.code).to.equal(1);
    expect(places.stderr).to.include(
      "Error in community plugin hardhat-token-service: INVALID_ARGUMENT (--amount): amount has more than 4 decimal places",
    );

    const malformed = await hardhat("faucet", ...pair, "--address", deployer.address, "--amount", "1,5");
    expect(malformed.code).to.equal(1);
    expect(malformed.stderr).to.include(
      "Error in community plugin hardhat-token-service: INVALID_ARGUMENT (--amount): amount must be a non-negative decimal amount in whole units",
    );

    const json = await hardhat("faucet", "--chain", "ethereum", "--address", deployer.address, "--json");
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stdout)).to.deep.equal({
      error: {
        code: "INVALID_ARGUMENT",
        message: "network is required; for ethereum one of: mainnet, sepolia, holesky, hoodi, rinkeby, testnet",
        field: "network",
      },
    });
  });

  it("refuses a key that does not derive --sender, naming --private-key-env", async function () {
    const someoneElse = EthersWallet.createRandom().address;
    const result = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc721",
      "--name",
      "X",
      "--symbol",
      "X",
      "--sender",
      someoneElse,
      "--private-key-env",
      "DEPLOYER_KEY",
    );
    keyedRuns.push(result);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include("Error in community plugin hardhat-token-service: KEY_SENDER_MISMATCH (--private-key-env)");

    const missing = await hardhat(
      "token:launch",
      ...pair,
      "--type",
      "erc721",
      "--name",
      "X",
      "--symbol",
      "X",
      "--private-key-env",
      "NOT_SET_ANYWHERE",
    );
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include("NOT_SET_ANYWHERE is not set");
  });

  it("reports a user's mistake as a plugin error with its code: no 'unexpected error', no stack trace", async function () {
    const result = await hardhat("balance", ...pair, "--address", "nope");
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/^Error in community plugin hardhat-token-service: INVALID_ADDRESS \(--address\): /);
    expect(result.stdout + result.stderr).not.to.match(/unexpected error/i);
    expect(result.stdout + result.stderr, "a stack trace").not.to.match(/^\s+at /m);

    // With --json the error object is on stdout as before; the exit code and the one-line report are the same.
    const json = await hardhat("balance", ...pair, "--address", "nope", "--json");
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stdout).error).to.include({ code: "INVALID_ADDRESS", field: "address" });
    expect(json.stderr).not.to.match(/^\s+at /m);
  });

  it("refuses --private-key 0x… pointing to --private-key-env, without printing the key", async function () {
    for (const task of [
      ["token:launch", ...pair, "--type", "erc20", "--name", "X", "--symbol", "X"],
      ["token:mint", ...pair, "--type", "erc20", "--contract", erc20, "--amount", "1"],
    ]) {
      const result = await hardhat(...task, "--private-key", deployer.privateKey);
      keyedRuns.push(result);
      expect(result.code, result.stderr).to.equal(1);
      expect(result.stderr).to.match(/^Error in community plugin hardhat-token-service: INVALID_ARGUMENT \(--private-key\): /);
      expect(result.stderr).to.include("--private-key-env DEPLOYER_KEY");
      expect(result.stderr).not.to.match(/^\s+at /m);
    }
  });

  it("hints at --chain/--chain-network when --network names a Hardhat network whose url is unset, or no network at all", async function () {
    // The consumer project's sepolia network reads its url from CONSUMER_SEPOLIA_RPC_URL, unset here.
    const unset = await hardhat("balance", "--network", "sepolia", "--address", deployer.address);
    expect(unset.code).to.equal(1);
    expect(unset.stderr).to.match(/^Error in community plugin hardhat-token-service: BACKEND_NOT_CONFIGURED \(--network\): /);
    expect(unset.stderr).to.include("CONSUMER_SEPOLIA_RPC_URL");
    expect(unset.stderr).to.include(
      "--network selects a Hardhat network (here sepolia, a live node); --chain ethereum --chain-network sepolia without --network selects the service's ethereum/sepolia pair",
    );
    expect(unset.stderr).not.to.match(/^\s+at /m);

    const unknown = await hardhat("balance", "--network", "holesky", "--address", deployer.address);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(
      /^Error in community plugin hardhat-token-service: UNSUPPORTED_NETWORK \(--network\): --network holesky is no Hardhat network of this project/,
    );
    expect(unknown.stderr).to.include("--chain ethereum --chain-network holesky without --network");
  });

  it("never prints the private key from token:launch, token:mint, balance or faucet", function () {
    expect(keyedRuns.length).to.be.at.least(10);
    const bare = deployer.privateKey.slice(2).toLowerCase();
    for (const run of keyedRuns) {
      expect(run.stdout.toLowerCase()).not.to.include(bare);
      expect(run.stderr.toLowerCase()).not.to.include(bare);
    }
  });
});
