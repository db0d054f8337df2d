import { expect } from "chai";
import { AbiCoder, Wallet } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { createTokenService, resolveNetwork, TokenServiceError, type TokenService } from "../../src/api.js";
import { balanceReaderArtifact } from "../../src/chains/evm/artifacts.js";
import { readBalances, readErc20Balances } from "../../src/chains/evm/read/balances.js";
import type { EvmChain } from "../../src/chains/evm/chain.js";
import { startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";
import { expectOperationMined, fundedWallet, minedErc20 } from "../helpers/service.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
/** Creation code whose runtime code reverts on every call: a contract that answers nothing. */
const REVERTING_CONTRACT = "0x6005600c60003960056000f360006000fd";

/** The outcome of a read, errors included, in a form two paths can be compared by. */
async function outcome<T>(read: () => Promise<T>): Promise<T | { error: { code: string; field: string | undefined; message: string } }> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof TokenServiceError)) throw error;
    return { error: { code: error.code, field: error.field, message: error.message } };
  }
}

async function tokensOn(service: TokenService, owner: Wallet): Promise<{ erc20: string[]; erc721: string; reverting: string }> {
  const launch = async (type: string, token: Record<string, string>) => {
    const launched = await service.launch({ ...SEPOLIA, type, token, sender: owner.address, privateKey: owner.privateKey });
    await expectOperationMined(service, launched);
    return launched.contractAddress;
  };
  const erc20 = [
    await launch("erc20", { name: "Eighteen", symbol: "E18", initialSupply: "1000000000000000000" }),
    await launch("erc20", { name: "Eight", symbol: "E8", decimals: "8", initialSupply: "250000000" }),
    await launch("erc20", { name: "Zero", symbol: "E0", decimals: "0", initialSupply: "7" }),
  ];
  const erc721 = await launch("erc721", { name: "Art", symbol: "ART" });
  const chain = await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
  const signer = owner.connect(chain.provider);
  const deployed = await signer.sendTransaction({ data: REVERTING_CONTRACT });
  const receipt = await deployed.wait();
  return { erc20, erc721, reverting: receipt!.contractAddress! };
}

describe("balance reads in one node call: the reader contract run by eth_call, equal to contract-by-contract reads", function () {
  let service: TokenService;
  let owner: Wallet;
  let tokens: Awaited<ReturnType<typeof tokensOn>>;
  let chain: EvmChain;
  const calls: string[] = [];

  before(async function () {
    service = await createTokenService({ hre, env: {}, onNodeCall: (pair, method) => pair === "ethereum/sepolia" && calls.push(method) });
    const funded = await fundedWallet(service, SEPOLIA);
    owner = new Wallet(funded.privateKey);
    tokens = await tokensOn(service, owner);
    chain = await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
  });

  after(async function () {
    await service?.close();
  });

  it("answers ERC20 balances exactly as the contract-by-contract path, native balance included", async function () {
    const atOnce = await readBalances(chain, owner.address, tokens.erc20);
    const oneByOne = await readErc20Balances(chain, owner.address, tokens.erc20);
    expect(atOnce.tokens).to.deep.equal(oneByOne);
    expect(atOnce.tokens.map((token) => [token.symbol, token.uiBalance])).to.deep.equal([
      ["E18", "1"],
      ["E8", "2.5"],
      ["E0", "7"],
    ]);
    expect(atOnce.native.balance).to.equal((await chain.provider.getBalance(owner.address)).toString());
  });

  it("refuses an address without code, a contract that reverts and an ERC721 as the other path does, naming the field", async function () {
    const eoa = Wallet.createRandom().address;
    for (const contract of [eoa, tokens.reverting, tokens.erc721]) {
      const atOnce = await outcome(() => readBalances(chain, owner.address, [tokens.erc20[0]!, contract]));
      const oneByOne = await outcome(() => readErc20Balances(chain, owner.address, [tokens.erc20[0]!, contract]));
      expect(atOnce).to.have.property("error");
      expect(atOnce, contract).to.deep.equal(oneByOne);
      expect((atOnce as { error: { code: string; field: string } }).error).to.include({
        code: "NOT_A_TOKEN_CONTRACT",
        field: "erc20TokenContractAddresses",
      });
    }
  });

  it("reads 50 tokens within the 24,576 bytes creation code may return: batches of 20 with metadata, then one call", async function () {
    const fresh = await minedErc20(service, SEPOLIA, owner, { name: "Fresh", symbol: "FRESH", initialSupply: "3" });
    const fifty = Array.from({ length: 50 }, (_, index) => (index === 0 ? fresh : tokens.erc20[index % 3]!));
    calls.length = 0;
    const cold = await readBalances(chain, owner.address, fifty);
    expect(
      calls.filter((method) => method === "eth_call"),
      "the metadata of an unknown token: 3 batches",
    ).to.have.length(3);
    calls.length = 0;
    const warm = await readBalances(chain, owner.address, fifty);
    expect(calls, "metadata cached: one call").to.deep.equal(["eth_call"]);
    expect(warm).to.deep.equal(cold);
    expect(warm.tokens).to.deep.equal(await readErc20Balances(chain, owner.address, fifty));
    expect(warm.tokens[0]).to.include({ symbol: "FRESH", balance: "3" });
  });

  it("packs each token's flags and balance, whatever the address answers (the reader's assembly loop)", async function () {
    const signer = owner.connect(chain.provider);
    const deploy = async (creationCode: string) => (await (await signer.sendTransaction({ data: creationCode })).wait())!.contractAddress!;
    // Runtime code that reverts with a 32-byte reason of 0xff…, and one that answers 16 bytes of 0xff…: neither may leave
    // those bytes where the balance goes.
    const revertsWithReason = await deploy(`0x6029600c60003960296000f3${"7f" + "ff".repeat(32)}60005260206000fd`);
    const answersShort = await deploy(`0x6029600c60003960296000f3${"7f" + "ff".repeat(32)}60005260106000f3`);
    const codeless = Wallet.createRandom().address;
    const addresses = [tokens.erc20[1]!, codeless, tokens.reverting, revertsWithReason, answersShort, tokens.erc721];
    const data =
      balanceReaderArtifact.bytecode +
      AbiCoder.defaultAbiCoder().encode(["address", "address[]", "bool"], [owner.address, addresses, false]).slice(2);
    const answer = (await chain.provider.call({ data })).slice(2);
    const words = Array.from({ length: answer.length / 64 }, (_, index) => BigInt(`0x${answer.slice(index * 64, index * 64 + 64)}`));
    expect(words[0]).to.equal(await chain.provider.getBalance(owner.address));
    expect(words.slice(1)).to.deep.equal(
      [
        [3n, 250000000n], // a token: has code, answered a word
        [0n, 0n], // no code
        [1n, 0n], // code, reverted without a reason
        [1n, 0n], // code, reverted with one
        [1n, 0n], // code, answered less than a word
        [3n, 0n], // an ERC721 answers balanceOf too (metadata tells it apart)
      ].flat(),
    );
  });

  it("makes one node call per read however many tokens (20 here)", async function () {
    const many = Array.from({ length: 20 }, (_, index) => tokens.erc20[index % 3]!);
    await service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: tokens.erc20 });
    calls.length = 0;
    const read = await service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: many });
    expect(Object.keys(read.balances)).to.deep.equal(["ETH", "E18", "E8", "E0"]);
    expect(calls).to.deep.equal(["eth_call"]);
  });
});

describe("balance reads on a node that runs eth_call against deployed code only: the contract-by-contract path", function () {
  let node: JsonRpcServer;
  let proxy: CountingProxy;
  let service: TokenService;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    proxy = await startCountingProxy(`http://127.0.0.1:${port}`, { refuseCreationCalls: true });
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.close();
  });

  it("falls back once, answers the same, and does not ask again", async function () {
    const owner = Wallet.createRandom();
    const chain = await service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
    await (chain.provider as unknown as { send(method: string, params: unknown[]): Promise<unknown> }).send("hardhat_setBalance", [
      owner.address,
      "0x56BC75E2D63100000",
    ]);
    const live = await minedErc20(service, SEPOLIA, owner, { name: "Live", symbol: "LIV", initialSupply: "5" });
    const before = proxy.requests.length;
    const first = await service.getBalances({
      ...SEPOLIA,
      address: owner.address,
      erc20TokenContractAddresses: [live],
    });
    expect(first.balances.LIV).to.include({ balance: "5" });
    expect(proxy.requests.slice(before)[0], "the reader was tried first").to.deep.equal(["eth_call"]);
    const again = proxy.requests.length;
    const second = await service.getBalances({
      ...SEPOLIA,
      address: owner.address,
      erc20TokenContractAddresses: [live],
    });
    expect(second.balances).to.deep.equal(first.balances);
    expect(proxy.requests.slice(again), "one batch, no second try of the reader").to.have.length(1);
    expect(proxy.requests.slice(again)[0]).to.include("eth_getBalance");
  });
});
