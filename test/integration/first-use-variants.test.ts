import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";

import { expect } from "chai";
import { ContractFactory, MaxUint256, Wallet, id, type AbstractProvider } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { FirstUseCompiler, solcOnThread, type SolcRunner } from "../../src/chains/evm/variants/first-use-compiler.js";
import { ERROR_CATALOG, ErrorCode } from "../../src/domain/errors.js";
import { RETRY_ADVICE } from "../../src/domain/retry-advice.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectMined } from "../helpers/service.js";
import {
  DEFAULT_ADMIN_ROLE,
  ERC1155_ABI,
  ERC20_ABI,
  ERC721_ABI,
  expectRevertWith,
  independentProvider,
  token,
} from "../helpers/token-client.js";

// The Wizard's options the build does not precompile (docs/decisions/0062-variants-compiled-on-first-use.md): each is
// launched through the service on a simulated chain (EDR), its contract compiled by solc on the service's first use,
// and its new functions called by the test's own ethers client. Then the compile cache: a second service on the same
// directory compiles nothing (counted by the solc runner it is given), concurrent first uses compile once, and a damaged
// cache file is compiled again.

const require = createRequire(import.meta.url);
const solc = require("solc") as { compile(input: string): string };

const PAIR = { chain: "ethereum", network: "sepolia" };

/** The solc runner the service uses (a thread per compile), counting its compiles. */
function countingSolc(): { runner: SolcRunner; count: () => number } {
  let count = 0;
  return {
    runner: async (input) => {
      count++;
      return solcOnThread(input);
    },
    count: () => count,
  };
}

/** An ERC-1363 receiver and an ERC-3156 borrower of the test's own, compiled here with the project's solc. */
const HELPERS = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
interface IToken { function approve(address, uint256) external returns (bool); function balanceOf(address) external view returns (uint256); }
contract Receiver1363 {
    address public lastFrom; uint256 public lastValue; bytes public lastData;
    function onTransferReceived(address, address from, uint256 value, bytes calldata data) external returns (bytes4) {
        lastFrom = from; lastValue = value; lastData = data;
        return this.onTransferReceived.selector;
    }
}
contract Borrower3156 {
    uint256 public balanceDuringLoan;
    function onFlashLoan(address, address token, uint256 amount, uint256 fee, bytes calldata) external returns (bytes32) {
        balanceDuringLoan = IToken(token).balanceOf(address(this));
        IToken(token).approve(msg.sender, amount + fee);
        return keccak256("ERC3156FlashBorrower.onFlashLoan");
    }
}`;

function compiledHelpers(): Record<string, { abi: unknown[]; bytecode: string }> {
  const input = {
    language: "Solidity",
    sources: { "Helpers.sol": { content: HELPERS } },
    settings: { evmVersion: "shanghai", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  return Object.fromEntries(
    Object.entries(output.contracts["Helpers.sol"]!).map(([name, contract]) => [
      name,
      { abi: contract.abi, bytecode: contract.evm.bytecode.object },
    ]),
  );
}

describe("token options compiled on first use (flashmint, callback, timestamp votes, ERC721 votes, updatableUri)", function () {
  this.timeout(600_000);
  let directory: string;
  let service: TokenService;
  let provider: AbstractProvider;
  let owner: Wallet;
  let other: Wallet;
  const solcRuns = countingSolc();

  async function launched(type: string, fields: Record<string, unknown>): Promise<string> {
    const result = await service.launch({ ...PAIR, type, token: fields, sender: owner.address, privateKey: owner.privateKey });
    await expectMined(service, PAIR, result.transactionHash);
    expect(await provider.getCode(result.contractAddress)).to.not.equal("0x");
    return result.contractAddress;
  }

  const mined = async (sent: Promise<{ wait(): Promise<unknown> }>) => (await sent).wait();

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "first-use-"));
    service = await createTokenService({ hre, env: {}, variantCompiler: new FirstUseCompiler({ directory, solc: solcRuns.runner }) });
    provider = independentProvider(await service.evmChain(resolveNetwork(PAIR.chain, PAIR.network), "test"));
    owner = new Wallet(Wallet.createRandom().privateKey, provider);
    other = new Wallet(Wallet.createRandom().privateKey, provider);
    await service.faucet({ ...PAIR, address: owner.address });
    await service.faucet({ ...PAIR, address: other.address });
  });

  after(async function () {
    await service?.close();
    await rm(directory, { recursive: true, force: true });
  });

  describe('ERC20 with flashmint, callback and votes: "timestamp"', function () {
    let address: string;
    let compiles: number;
    const abi = [
      ...ERC20_ABI,
      "function maxFlashLoan(address) view returns (uint256)",
      "function flashFee(address, uint256) view returns (uint256)",
      "function flashLoan(address, address, uint256, bytes) returns (bool)",
      "function transferAndCall(address, uint256, bytes) returns (bool)",
      "function supportsInterface(bytes4) view returns (bool)",
      "function clock() view returns (uint48)",
      "function CLOCK_MODE() view returns (string)",
      "error ERC1363InvalidReceiver(address receiver)",
      "error ERC3156UnsupportedToken(address token)",
    ];

    before(async function () {
      const before = solcRuns.count();
      address = await launched("ERC20", {
        name: "Flash",
        symbol: "FLS",
        initialSupply: "1000",
        options: { flashmint: true, callback: true, votes: "timestamp", mintable: true },
      });
      compiles = solcRuns.count() - before;
    });

    it("was compiled once, by the service, with the new options' functions", async function () {
      expect(compiles).to.equal(1);
      const cached = await Promise.all(
        (await readdir(directory)).map(
          async (name) => JSON.parse(await readFile(path.join(directory, name), "utf8")) as { contractName: string },
        ),
      );
      expect(cached.map((file) => file.contractName)).to.include("ServiceERC20MintableVotesFlashmintCallbackTimestampRoles");
    });

    it("flashmint: maxFlashLoan is what the supply can still grow by, the fee is 0, and a borrower's loan is repaid", async function () {
      const contract = token(address, abi, owner);
      expect(await contract.maxFlashLoan!(address)).to.equal(MaxUint256 - 1000n);
      expect(await contract.maxFlashLoan!(other.address)).to.equal(0n);
      expect(await contract.flashFee!(address, 500n)).to.equal(0n);
      await expectRevertWith(contract.flashFee!(other.address, 1n), contract, "ERC3156UnsupportedToken");
      const { Borrower3156 } = compiledHelpers();
      const borrower = await new ContractFactory(Borrower3156!.abi as never, Borrower3156!.bytecode, owner).deploy();
      await borrower.waitForDeployment();
      const borrowerAddress = await borrower.getAddress();
      await mined(contract.flashLoan!(borrowerAddress, address, 700n, "0x"));
      expect(await borrower.getFunction("balanceDuringLoan")()).to.equal(700n);
      expect(await contract.balanceOf!(borrowerAddress)).to.equal(0n);
      expect(await contract.totalSupply!()).to.equal(1000n);
    });

    it("callback: transferAndCall to an address without code reverts ERC1363InvalidReceiver; a receiver is called", async function () {
      const contract = token(address, abi, owner);
      expect(await contract.supportsInterface!("0xb0202a11")).to.equal(true);
      await expectRevertWith(contract.transferAndCall!(other.address, 1n, "0x"), contract, "ERC1363InvalidReceiver");
      const { Receiver1363 } = compiledHelpers();
      const receiver = await new ContractFactory(Receiver1363!.abi as never, Receiver1363!.bytecode, owner).deploy();
      await receiver.waitForDeployment();
      await mined(contract.transferAndCall!(await receiver.getAddress(), 5n, "0x1234"));
      expect(await contract.balanceOf!(await receiver.getAddress())).to.equal(5n);
      expect(await receiver.getFunction("lastFrom")()).to.equal(owner.address);
      expect(await receiver.getFunction("lastValue")()).to.equal(5n);
      expect(await receiver.getFunction("lastData")()).to.equal("0x1234");
    });

    it('votes "timestamp": clock() is the block\'s timestamp and CLOCK_MODE says mode=timestamp; votes count after delegating', async function () {
      const contract = token(address, abi, owner);
      expect(await contract.CLOCK_MODE!()).to.equal("mode=timestamp");
      const latest = await provider.getBlock("latest");
      const clock = Number(await contract.clock!());
      expect(clock).to.be.within(latest!.timestamp, latest!.timestamp + 60);
      await mined(contract.delegate!(owner.address));
      expect(await contract.getVotes!(owner.address)).to.equal(await contract.balanceOf!(owner.address));
    });
  });

  describe("ERC721 votes", function () {
    const abi = [
      ...ERC721_ABI,
      "function delegate(address delegatee)",
      "function getVotes(address account) view returns (uint256)",
      "function clock() view returns (uint48)",
      "function CLOCK_MODE() view returns (string)",
    ];

    it("votes: true counts one vote per token once delegated, in block numbers", async function () {
      const address = await launched("ERC721", { name: "Votes", symbol: "VOT", uri: "ipfs://v/", options: { votes: true } });
      const contract = token(address, abi, owner);
      await mined(contract.getFunction("mint(address)")(owner.address));
      await mined(contract.getFunction("mint(address)")(owner.address));
      expect(await contract.getVotes!(owner.address)).to.equal(0n);
      await mined(contract.delegate!(owner.address));
      expect(await contract.getVotes!(owner.address)).to.equal(2n);
      expect(await contract.CLOCK_MODE!()).to.equal("mode=blocknumber&from=default");
      expect(await contract.clock!()).to.equal(BigInt(await provider.getBlockNumber()));
    });

    it('votes: "timestamp" with enumerable and ownable: clock() is the block\'s timestamp', async function () {
      const address = await launched("ERC721", {
        name: "Time",
        symbol: "TIM",
        options: { votes: "timestamp", enumerable: true, access: "ownable" },
      });
      const contract = token(address, abi, owner);
      expect(await contract.CLOCK_MODE!()).to.equal("mode=timestamp");
      await mined(contract.getFunction("mint(address)")(other.address));
      await mined(contract.connect(other).getFunction("delegate")(other.address));
      expect(await contract.getVotes!(other.address)).to.equal(1n);
      expect(await contract.totalSupply!()).to.equal(1n);
    });
  });

  it("ERC1155 updatableUri: the URI setter (the admin, granted URI_SETTER_ROLE) replaces uri(); anyone else is refused", async function () {
    const address = await launched("ERC1155", { name: "Items", uri: "ipfs://old/{id}.json", options: { updatableUri: true } });
    const contract = token(address, [...ERC1155_ABI, "function setURI(string)"], owner);
    expect(await contract.uri!(1n)).to.equal("ipfs://old/{id}.json");
    expect(await contract.hasRole!(id("URI_SETTER_ROLE"), owner.address)).to.equal(true);
    expect(await contract.hasRole!(DEFAULT_ADMIN_ROLE, owner.address)).to.equal(true);
    await mined(contract.setURI!("ipfs://new/{id}.json"));
    expect(await contract.uri!(7n)).to.equal("ipfs://new/{id}.json");
    await expectRevertWith(contract.connect(other).getFunction("setURI")("ipfs://x/"), contract, "AccessControlUnauthorizedAccount");
  });

  it("a second service on the same data directory launches a compiled combination without compiling (nor touching its file)", async function () {
    const options = { updatableUri: true, burnable: true, access: "ownable" };
    await launched("ERC1155", { name: "Once", uri: "ipfs://once/{id}", options });
    const files = (await readdir(directory)).filter((name) => name.endsWith(".json"));
    const before = solcRuns.count();
    const modified = await Promise.all(files.map(async (name) => (await stat(path.join(directory, name))).mtimeMs));

    const second = countingSolc();
    const restarted = await createTokenService({
      hre,
      env: {},
      variantCompiler: new FirstUseCompiler({ directory, solc: second.runner }),
    });
    try {
      await restarted.faucet({ ...PAIR, address: other.address });
      const result = await restarted.launch({
        ...PAIR,
        type: "ERC1155",
        token: { name: "Twice", uri: "ipfs://twice/{id}", options },
        sender: other.address,
        privateKey: other.privateKey,
      });
      await expectMined(restarted, PAIR, result.transactionHash);
    } finally {
      await restarted.close();
    }
    expect(second.count()).to.equal(0);
    expect(solcRuns.count()).to.equal(before);
    expect(await Promise.all(files.map(async (name) => (await stat(path.join(directory, name))).mtimeMs))).to.deep.equal(modified);
  });
});

describe("the first-use compiler's cache", function () {
  this.timeout(600_000);
  const variant = { kind: "ERC1155", features: ["updatableUri"], access: "ownable" } as const;
  let directory: string;

  beforeEach(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "first-use-cache-"));
  });

  afterEach(async function () {
    await rm(directory, { recursive: true, force: true });
  });

  it("concurrent first uses of one variant compile it once, on a thread: this one keeps running meanwhile", async function () {
    const runs = countingSolc();
    const compiler = new FirstUseCompiler({ directory, solc: runs.runner });
    // solc-js on this thread would hold it for the whole compile (seconds): not one tick would run until it ended.
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    const [a, b, c] = await Promise.all([compiler.artifact(variant), compiler.artifact(variant), compiler.artifact(variant)]).finally(() =>
      clearInterval(ticking),
    );
    expect(ticks).to.be.greaterThan(20);
    expect(runs.count()).to.equal(1);
    expect(compiler.compilations).to.equal(1);
    expect(b.bytecode).to.equal(a.bytecode);
    expect(c.bytecode).to.equal(a.bytecode);
  });

  it("refuses the output of another solc version, and tries again on the next launch (a failure is not kept)", async function () {
    let calls = 0;
    // The first answer claims another compiler, as a host project's install of another solc would; then the real one.
    const runner: SolcRunner = async (input) => {
      calls++;
      const real = await solcOnThread(input);
      return calls === 1 ? { ...real, version: "0.8.30+commit.73712a01.Emscripten.clang" } : real;
    };
    const compiler = new FirstUseCompiler({ directory, solc: runner });
    let refused: unknown;
    await compiler.artifact(variant).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.include("solc 0.8.30+commit.73712a01").and.include("0.8.28+commit.7893614a");
    expect(await readdir(directory)).to.deep.equal([]);
    expect((await compiler.artifact(variant)).contractName).to.equal("ServiceERC1155UpdatableUriOwnable");
    expect(calls).to.equal(2);
  });

  it("a damaged cache file (not JSON, or JSON whose bytecode was changed) is compiled again and rewritten", async function () {
    const first = countingSolc();
    const original = await new FirstUseCompiler({ directory, solc: first.runner }).artifact(variant);
    const [file] = (await readdir(directory)).filter((name) => name.endsWith(".json"));
    const cachePath = path.join(directory, file!);
    const good = await readFile(cachePath, "utf8");

    await writeFile(cachePath, good.slice(0, good.length / 2));
    const truncated = countingSolc();
    expect((await new FirstUseCompiler({ directory, solc: truncated.runner }).artifact(variant)).bytecode).to.equal(original.bytecode);
    expect(truncated.count()).to.equal(1);
    expect(await readFile(cachePath, "utf8")).to.equal(good);

    const tampered = JSON.parse(good) as { bytecode: string };
    tampered.bytecode = `${tampered.bytecode.slice(0, -2)}00`;
    await writeFile(cachePath, JSON.stringify(tampered));
    const changed = countingSolc();
    expect((await new FirstUseCompiler({ directory, solc: changed.runner }).artifact(variant)).bytecode).to.equal(original.bytecode);
    expect(changed.count()).to.equal(1);

    const intact = countingSolc();
    await new FirstUseCompiler({ directory, solc: intact.runner }).artifact(variant);
    expect(intact.count()).to.equal(0);
  });
});

describe("first-use options refused with the field and the rule", function () {
  let service: TokenService;
  const sender = Wallet.createRandom();

  before(async function () {
    service = await createTokenService({ hre, env: {} });
  });

  after(async function () {
    await service?.close();
  });

  const launch = (type: string, token: unknown) =>
    service.launch({ ...PAIR, type, token, sender: sender.address, privateKey: sender.privateKey });

  it("names the field of each bad value, and the values votes takes", async function () {
    const cases: Array<[string, unknown, string]> = [
      ["ERC20", { name: "A", symbol: "A", options: { flashmint: "yes" } }, "token.options.flashmint"],
      ["ERC20", { name: "A", symbol: "A", options: { callback: 1 } }, "token.options.callback"],
      ["ERC20", { name: "A", symbol: "A", options: { votes: "seconds" } }, "token.options.votes"],
      ["ERC721", { name: "A", symbol: "A", options: { votes: "Timestamp" } }, "token.options.votes"],
      ["ERC721", { name: "A", symbol: "A", options: { flashmint: true } }, "token.options.flashmint"],
      ["ERC1155", { name: "A", uri: "ipfs://a/{id}", options: { updatableUri: "true" } }, "token.options.updatableUri"],
      ["ERC1155", { name: "A", uri: "ipfs://a/{id}", options: { votes: true } }, "token.options.votes"],
      ["ERC20", { name: "A", symbol: "A", options: { updatableUri: true } }, "token.options.updatableUri"],
    ];
    for (const [type, fields, field] of cases) await expectServiceError(launch(type, fields), ErrorCode.INVALID_ARGUMENT, field);
    const votes = await expectServiceError(
      launch("ERC20", { name: "A", symbol: "A", options: { votes: 2 } }),
      ErrorCode.INVALID_ARGUMENT,
      "token.options.votes",
    );
    expect(votes.message).to.include('true, false, "blocknumber" or "timestamp"');
  });
});

describe("a first-use launch without a usable compiler is refused before anything is signed", function () {
  this.timeout(300_000);
  let directory: string;
  let service: TokenService;
  const owner = Wallet.createRandom();
  let answer: "another version" | "a dead thread" | "the real one" = "another version";
  const runner: SolcRunner = async (input) => {
    if (answer === "a dead thread") return solcThatDied();
    const real = await solcOnThread(input);
    return answer === "another version" ? { ...real, version: "0.8.30+commit.73712a01.Emscripten.clang" } : real;
  };
  // A real thread that dies before answering, as an out-of-memory solc thread does.
  const solcThatDied = (): Promise<never> =>
    new Promise((_, reject) => {
      const worker = new Worker("process.exit(1)", { eval: true });
      worker.once("exit", (code) => reject(new Error(`exited ${code}`)));
    });

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "first-use-refused-"));
    service = await createTokenService({ hre, env: {}, variantCompiler: new FirstUseCompiler({ directory, solc: runner }) });
    await service.faucet({ ...PAIR, address: owner.address });
  });

  after(async function () {
    await service?.close();
    await rm(directory, { recursive: true, force: true });
  });

  const launch = () =>
    service.launch({
      ...PAIR,
      type: "ERC1155",
      token: { name: "Refused", uri: "ipfs://refused/{id}", options: { updatableUri: true } },
      sender: owner.address,
      privateKey: owner.privateKey,
    });

  it("answers 503 CONTRACT_COMPILER_UNAVAILABLE (safe to retry), takes no nonce, and the next launch with a compiler uses it", async function () {
    expect(ERROR_CATALOG.CONTRACT_COMPILER_UNAVAILABLE.httpStatus).to.equal(503);
    expect(RETRY_ADVICE.CONTRACT_COMPILER_UNAVAILABLE).to.equal("later");
    const wrong = await expectServiceError(launch(), ErrorCode.CONTRACT_COMPILER_UNAVAILABLE, undefined);
    expect(wrong.message).to.include("solc 0.8.30").and.include("0.8.28");
    answer = "a dead thread";
    await expectServiceError(launch(), ErrorCode.CONTRACT_COMPILER_UNAVAILABLE, undefined);
    const chain = await service.evmChain(resolveNetwork(PAIR.chain, PAIR.network), "test");
    expect(await chain.provider.getTransactionCount(owner.address, "pending")).to.equal(0);
    answer = "the real one";
    const launched = await launch();
    await expectMined(service, PAIR, launched.transactionHash);
    const sent = await chain.provider.getTransaction(launched.transactionHash);
    expect(sent?.nonce).to.equal(0);
  });
});
