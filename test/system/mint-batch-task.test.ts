import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Contract, Wallet, getAddress } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork } from "../../src/api.js";

import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";
import { independentProvider } from "../helpers/token-client.js";

// `token:mint --recipients` through Hardhat's CLI, as a user runs it in a project: ERC20 and ERC721 batches on the
// simulated chain (inline, and from a JSON file), every balance read back by an ethers client of the test's own; and the
// bad batches refused with the option named, exit code 1, nothing signed.

const READS = [
  "function balanceOf(address) view returns (uint256)",
  "function ownerOf(uint256) view returns (address)",
  "function tokenURI(uint256) view returns (string)",
];
const PLUGIN_ERROR = "Error in community plugin hardhat-token-service: ";

describe("token:mint --recipients: a batch mint through Hardhat's CLI (simulated chain)", function () {
  this.timeout(300_000);
  const cwd = fixtureProjectRoot("consumer");
  const pair = ["--chain", "ethereum", "--chain-network", "sepolia"];
  const signer = ["--private-key-env", "DEPLOYER_KEY"];
  const deployer = Wallet.createRandom();
  const [alice, bob, carol] = [0, 1, 2].map(() => Wallet.createRandom().address) as [string, string, string];
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let coin: string;
  let pass: string;
  const runs: CliResult[] = [];

  const hardhat = async (...args: string[]) => {
    const result = await runHardhat(args, { cwd, env, timeoutMs: 120_000 });
    runs.push(result);
    return result;
  };
  const hardhatJson = async (...args: string[]) => {
    const result = await hardhat(...args, "--json");
    expect(result.code, `hardhat ${args.join(" ")}\n${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout);
  };
  const launch = async (...args: string[]) =>
    getAddress((await hardhatJson("token:launch", ...pair, ...args, ...signer)).contractAddress as string);

  /** Reads the chain as the data directory's journal replays it, with the test's own ethers client (no task running). */
  async function onChain<T>(read: (contract: (address: string) => Contract, nonce: () => Promise<number>) => Promise<T>): Promise<T> {
    const service = await createTokenService({ hre, env: {}, dataDir });
    try {
      const node = independentProvider(await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test"));
      return await read(
        (address) => new Contract(address, READS, node),
        () => node.getTransactionCount(deployer.address),
      );
    } finally {
      await service.close();
    }
  }

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "token-service-mint-batch-"));
    env = cleanEnvironment({ CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir, DEPLOYER_KEY: deployer.privateKey });
    expect((await hardhat("faucet", ...pair, "--address", deployer.address)).code).to.equal(0);
    // 4 decimals, so that whole tokens and smallest units cannot be mistaken for each other.
    coin = await launch("--type", "erc20", "--name", "Coin", "--symbol", "COIN", "--decimals", "4", "--options", "mintable");
    pass = await launch("--type", "erc721", "--name", "Pass", "--symbol", "PASS", "--uri", "ipfs://pass/", "--options", "uriStorage");
  });

  after(async function () {
    await rm(dataDir, { recursive: true, force: true });
    for (const run of runs) expect(`${run.stdout}${run.stderr}`.toLowerCase()).to.not.include(deployer.privateKey.slice(2).toLowerCase());
  });

  it("`token:mint --help` offers --recipients beside the single mint's options", async function () {
    const help = await hardhat("token:mint", "--help");
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/^\s+--recipients\s+A batch in one transaction \(the token's airdrop\), all minted or none/m);
    expect(help.stdout).to.include("Not with --to, --amount, --token-id or --uri");
  });

  it("mints an ERC20 to three recipients in one transaction, amounts in whole tokens, and prints each share", async function () {
    const recipients = [
      { to: alice, amount: "100" },
      { to: bob, amount: "0.25" },
      { to: carol, amount: 7 },
    ];
    const result = await hardhat(
      "token:mint",
      ...pair,
      "--type",
      "erc20",
      "--contract",
      coin,
      "--recipients",
      JSON.stringify(recipients),
      ...signer,
    );
    expect(result.code, result.stderr).to.equal(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).to.equal(
      `Minted 107.25 COIN of ${coin} to 3 recipients in one transaction on ethereum/sepolia (simulated in-process chain)`,
    );
    expect(lines.slice(1, 4)).to.deep.equal([`  ${alice}  100 COIN`, `  ${bob}  0.25 COIN`, `  ${carol}  7 COIN`]);
    expect(lines[4]).to.match(/^ {2}operation {8}[0-9a-f-]{36}$/);
    expect(lines[5]).to.match(/^ {2}transactionHash {2}0x[0-9a-f]{64}$/);
    expect(lines[6]).to.match(/^ {2}status {11}mined \(block \d+\)$/);

    // At 4 decimals: 100 COIN is 1,000,000 smallest units, 0.25 is 2,500.
    const balances = await onChain((token) =>
      Promise.all([alice, bob, carol].map((holder) => token(coin).getFunction("balanceOf")(holder))),
    );
    expect(balances).to.deep.equal([1_000_000n, 2_500n, 70_000n]);
  });

  it("mints an ERC721 to each recipient of a JSON file (a path relative to where it runs), with its own URI, reporting the ids", async function () {
    const file = path.join(dataDir, "passes.json");
    await writeFile(file, JSON.stringify([{ to: alice, uri: "gold.json" }, { to: bob }, { to: alice }]));
    const json = await hardhatJson(
      "token:mint",
      ...pair,
      "--type",
      "erc721",
      "--contract",
      pass,
      "--recipients",
      path.relative(cwd, file),
      ...signer,
    );
    expect(json).to.deep.include({
      status: "mined",
      type: "ERC721",
      contractAddress: pass,
      simulated: true,
      tokenIds: ["1", "2", "3"],
      recipients: [{ to: alice, uri: "gold.json" }, { to: bob }, { to: alice }],
    });
    expect(json.id).to.be.a("string");
    expect(json).to.not.have.property("to");

    const human = await hardhat(
      "token:mint",
      ...pair,
      "--type",
      "erc721",
      "--contract",
      pass,
      "--recipients",
      JSON.stringify([
        { to: carol, tokenId: "10" },
        { to: bob, tokenId: "11" },
      ]),
      ...signer,
    );
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.include(`Minted 2 tokens of ${pass} to 2 recipients in one transaction on ethereum/sepolia`);
    expect(human.stdout).to.include(`  ${carol}  token #10\n  ${bob}  token #11\n`);
    expect(human.stdout).to.match(/^ {2}operation {8}[0-9a-f-]{36}$/m);

    const read = await onChain(async (token) => {
      const nft = token(pass);
      return {
        owners: await Promise.all([1n, 2n, 3n, 10n, 11n].map((id) => nft.getFunction("ownerOf")(id))),
        balances: await Promise.all([alice, bob, carol].map((holder) => nft.getFunction("balanceOf")(holder))),
        goldUri: await nft.getFunction("tokenURI")(1n),
      };
    });
    expect(read.owners).to.deep.equal([alice, bob, alice, carol, bob]);
    expect(read.balances).to.deep.equal([2n, 2n, 1n]);
    expect(read.goldUri).to.equal("ipfs://pass/gold.json");
  });

  describe("bad batches: refused with exit code 1, naming the option, before anything is signed", function () {
    let nonceBefore: number;
    before(async function () {
      nonceBefore = await onChain((_token, nonce) => nonce());
    });
    after(async function () {
      expect(await onChain((_token, nonce) => nonce()), "the deployer's nonce: nothing was sent").to.equal(nonceBefore);
    });

    const mint = (...args: string[]) => hardhat("token:mint", ...pair, "--type", "erc721", "--contract", pass, ...args, ...signer);
    const expectRefused = (result: CliResult, message: string) => {
      expect(result.code, result.stdout).to.equal(1);
      expect(result.stderr).to.include(`${PLUGIN_ERROR}${message}`);
      expect(result.stderr, "no stack trace").not.to.match(/^\s+at /m);
    };

    it("more than 50 recipients", async function () {
      const many = JSON.stringify(Array.from({ length: 51 }, () => ({ to: alice })));
      expectRefused(
        await mint("--recipients", many),
        "INVALID_ARGUMENT (--recipients): recipients names 51 recipients: at most 50 are minted in one transaction; split the batch",
      );
    });

    it("--recipients with a single mint's --to (or --amount)", async function () {
      const batch = JSON.stringify([{ to: alice }]);
      expectRefused(
        await mint("--recipients", batch, "--to", bob),
        "INVALID_ARGUMENT (--to): to does not apply with recipients: each recipient names its own to and what it receives",
      );
      const erc20 = await hardhat(
        "token:mint",
        ...pair,
        "--type",
        "erc20",
        "--contract",
        coin,
        "--recipients",
        JSON.stringify([{ to: alice, amount: "1" }]),
        "--amount",
        "5",
        ...signer,
      );
      expectRefused(erc20, "INVALID_ARGUMENT (--amount): amount does not apply with recipients");
    });

    it("malformed JSON, inline or in a file, and a file that is not there", async function () {
      expectRefused(await mint("--recipients", `[{"to": "${alice}"`), "INVALID_ARGUMENT (--recipients): --recipients is not valid JSON (");
      const file = path.join(dataDir, "broken.json");
      await writeFile(file, "[{to: nobody}]");
      expectRefused(await mint("--recipients", file), `INVALID_ARGUMENT (--recipients): --recipients file ${file} is not valid JSON (`);
      expectRefused(
        await mint("--recipients", path.join(dataDir, "missing.json")),
        `INVALID_ARGUMENT (--recipients): --recipients ${path.join(dataDir, "missing.json")}: there is no such file`,
      );
      // With --json the error is also one object on stdout.
      const json = await mint("--recipients", "[1,", "--json");
      expect(json.code).to.equal(1);
      expect(JSON.parse(json.stdout).error).to.include({ code: "INVALID_ARGUMENT", field: "recipients" });
    });

    it("a recipient the core refuses is named by its place in the list", async function () {
      expectRefused(
        await mint("--recipients", JSON.stringify([{ to: alice }, { to: "0x1234" }])),
        "INVALID_ADDRESS (--recipients): recipients[1].to",
      );
      const tooFine = await hardhat(
        "token:mint",
        ...pair,
        "--type",
        "erc20",
        "--contract",
        coin,
        "--recipients",
        JSON.stringify([{ to: alice, amount: "0.00001" }]),
        ...signer,
      );
      expectRefused(tooFine, "INVALID_ARGUMENT (--recipients): recipients[0].amount has more than 4 decimal places");
    });
  });
});
