import { expect } from "chai";
import { type JsonRpcApiProvider, Wallet, hexlify, randomBytes, toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import type { EvmChain } from "../../src/chains/evm/chain.js";
import { calldataGas, knownGas, learnGas } from "../../src/chains/evm/write/gas-shapes.js";
import { deploymentData, gasShape, type LaunchParams } from "../../src/chains/evm/write/launch.js";
import { MAX_VOTES_SUPPLY, parseErc20Params, parseErc721Params } from "../../src/domain/token-params.js";
import { MAX_UINT256 } from "../../src/domain/units.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";
import { expectOperationMined, fundedWallet } from "../helpers/service.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("deployment gas learnt once per shape equals the node's estimate", function () {
  let service: TokenService;
  let chain: EvmChain;
  let sender: string;

  before(async function () {
    service = await createTokenService({ hre, env: {} });
    chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
    sender = (await fundedWallet(service, SEPOLIA)).address;
  });

  after(async function () {
    await service.close();
  });

  const nodeEstimate = async (data: string) =>
    BigInt((await (chain.provider as JsonRpcApiProvider).send("eth_estimateGas", [{ from: sender, data }])) as string);
  const letters = (length: number) => Array.from({ length }, () => String.fromCharCode(65 + Math.floor(Math.random() * 58))).join("");
  const address = () => new Wallet(hexlify(randomBytes(32))).address;

  /** Learns from `first`, then checks every other launch of the same shape against the node. */
  async function expectLearnt(first: LaunchParams, others: LaunchParams[]): Promise<void> {
    const shape = gasShape(first);
    const firstData = deploymentData(first, sender);
    learnGas(chain, shape, firstData, await nodeEstimate(firstData));
    for (const params of others) {
      expect(
        gasShape(params),
        JSON.stringify(params, (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
      ).to.equal(shape);
      const data = deploymentData(params, sender);
      expect(knownGas(chain, shape, data), `calldata gas ${calldataGas(data)}`).to.equal(await nodeEstimate(data));
    }
  }

  it("ERC20: other names and symbols of the same lengths, other supplies, caps, decimals and accounts", async function () {
    const erc20 = (token: Record<string, unknown>): LaunchParams => ({ type: "ERC20", token: parseErc20Params(token, sender) });
    for (const [nameLength, symbolLength] of [
      [5, 3],
      [31, 11],
      [32, 4],
      [90, 20],
    ] as const) {
      const params = () =>
        erc20({
          name: letters(nameLength),
          symbol: letters(symbolLength),
          decimals: 1 + Math.floor(Math.random() * 30),
          initialSupply: String(1n + BigInt(`0x${Buffer.from(randomBytes(8)).toString("hex")}`)),
          totalSupply: (10n ** 40n + BigInt(Math.floor(Math.random() * 1e9))).toString(),
          minter: address(),
          account: address(),
        });
      await expectLearnt(
        params(),
        Array.from({ length: 6 }, () => params()),
      );
    }
    const noSupply = () => erc20({ name: letters(8), symbol: letters(3), initialSupply: "0" });
    expect(gasShape(noSupply()), "no initial supply is a shape of its own").to.not.equal(
      gasShape(erc20({ name: letters(8), symbol: letters(3), initialSupply: "1" })),
    );
    await expectLearnt(noSupply(), [noSupply(), noSupply()]);
  });

  it("ERC721: other names, symbols and base URIs of the same lengths", async function () {
    const erc721 = (uriLength: number): LaunchParams => ({
      type: "ERC721",
      token: parseErc721Params({ name: letters(12), symbol: letters(4), uri: `ipfs://${letters(uriLength)}/` }),
    });
    for (const uriLength of [0, 40, 100]) await expectLearnt(erc721(uriLength), [erc721(uriLength), erc721(uriLength), erc721(uriLength)]);
  });

  it("counts calldata as EIP-2028 does: 4 gas a zero byte, 16 any other", function () {
    expect(calldataGas("0x")).to.equal(0n);
    expect(calldataGas("0x00ff0001")).to.equal(4n + 16n + 4n + 16n);
  });
});

describe("a launch of a learnt shape on a live node (anvil), at the limits the launch's checks allow, is mined with the reused estimate", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let proxy: CountingProxy;
  let service: TokenService;
  let owner: { address: string; privateKey: string };

  before(async function () {
    node = await startAnvil();
    proxy = await startCountingProxy(node.url);
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
    owner = service.createWallet(SEPOLIA);
    await node.rpc("anvil_setBalance", [owner.address, toQuantity(10n ** 21n)]);
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.stop();
  });

  const estimatesSince = (before: number) =>
    proxy.requests
      .slice(before)
      .flat()
      .filter((method) => method === "eth_estimateGas").length;

  /** Launches `first` (its shape learnt from the node), then `limit` of the same shape, which must reuse it and be mined. */
  async function reusedAtLimit(type: string, first: Record<string, unknown>, limit: Record<string, unknown>): Promise<void> {
    const launch = (token: Record<string, unknown>) =>
      service.launch({ ...SEPOLIA, type, token, sender: owner.address, privateKey: owner.privateKey });
    await expectOperationMined(service, await launch(first));
    const before = proxy.requests.length;
    const sent = await launch(limit);
    expect(estimatesSince(before), "the shape's estimate is reused").to.equal(0);
    await expectOperationMined(service, sent);
  }

  const receiver = () => new Wallet(hexlify(randomBytes(32))).address;
  const erc20 = (initialSupply: bigint, totalSupply?: bigint, options?: Record<string, unknown>) => ({
    name: "Limits",
    symbol: "LIM",
    initialSupply: initialSupply.toString(),
    ...(totalSupply !== undefined ? { totalSupply: totalSupply.toString() } : {}),
    ...(options !== undefined ? { options } : {}),
  });

  it("ERC20: the whole uint256 range without a cap, a supply equal to its cap, votes' 2^208 - 1", async function () {
    await reusedAtLimit("ERC20", erc20(1n), erc20(MAX_UINT256));
    const capped = { capped: true, mintable: true };
    await reusedAtLimit("ERC20", erc20(1n, 2n, capped), erc20(MAX_UINT256, MAX_UINT256, capped));
    const votes = { capped: true, votes: true, permit: true };
    await reusedAtLimit("ERC20", erc20(1n, 2n, votes), erc20(MAX_VOTES_SUPPLY, MAX_VOTES_SUPPLY, votes));
    await reusedAtLimit("ERC20", erc20(1n, undefined, { votes: true }), erc20(MAX_VOTES_SUPPLY, undefined, { votes: true }));
  });

  it("ERC721 and ERC1155: a royalty of 100 %", async function () {
    const royalty = (basisPoints: number) => ({ royalty: { receiver: receiver(), basisPoints } });
    await reusedAtLimit(
      "ERC721",
      { name: "Art", symbol: "ART", options: royalty(1) },
      { name: "Art", symbol: "ART", options: royalty(10_000) },
    );
    await reusedAtLimit("ERC1155", { name: "Items", options: royalty(1) }, { name: "Items", options: royalty(10_000) });
  });
});

describe("on a live Arbitrum chain (anvil as arbitrum/sepolia) every launch is estimated by the node", function () {
  this.timeout(120_000);

  it("asks eth_estimateGas for each launch of one shape: the estimate holds the L1 cost at the moment's price", async function () {
    const node = await startAnvil({ chainId: 421614 });
    const proxy = await startCountingProxy(node.url);
    const service = await createTokenService({ hre, env: {}, rpcUrls: { "arbitrum/sepolia": proxy.url } });
    try {
      const pair = { chain: "arbitrum", network: "sepolia" };
      const owner = service.createWallet(pair);
      await node.rpc("anvil_setBalance", [owner.address, toQuantity(10n ** 21n)]);
      const before = proxy.requests.length;
      for (let index = 0; index < 3; index++) {
        await service.launch({
          ...pair,
          type: "ERC20",
          token: { name: `Arb ${index}`, symbol: `A${index}` },
          sender: owner.address,
          privateKey: owner.privateKey,
        });
      }
      const estimates = proxy.requests
        .slice(before)
        .flat()
        .filter((method) => method === "eth_estimateGas").length;
      // Each launch's own, and its pre-signed cancel's: a plain transfer's gas on Arbitrum holds the L1 cost too.
      expect(estimates).to.equal(3 * 2);
    } finally {
      await service.close();
      await proxy.close();
      await node.stop();
    }
  });
});
