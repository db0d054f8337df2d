import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { JsonRpcProvider, Wallet, getCreate2Address, id, keccak256, toQuantity, type AbstractProvider } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectMined, type Pair } from "../helpers/service.js";
import { ERC20_ABI, independentProvider, token } from "../helpers/token-client.js";

// Written out here, from the deterministic deployment proxy's README, not taken from the service.
const FACTORY = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
const FACTORY_RUNTIME =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";
const FACTORY_DEPLOYER = "0x3fAB184622Dc19b6109349B94811493BF2a45362";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
const BSC_TESTNET: Pair = { chain: "binance_smart_chain", network: "testnet" };
const HOLESKY: Pair = { chain: "ethereum", network: "holesky" };

/** One key for every chain: the same sender everywhere, as a deployer keeps one. */
const deployer = Wallet.createRandom();
/** The same token everywhere, its minter and admin given (not the sender's defaults). */
const admin = Wallet.createRandom().address;
const GOLD = {
  name: "Gold",
  symbol: "GLD",
  initialSupply: "1000",
  minter: admin,
  account: admin,
  options: { burnable: true, permit: true },
};
const SALT = id("gold-v1");

async function simulatedProvider(service: TokenService, pair: Pair): Promise<AbstractProvider> {
  return independentProvider(await service.evmChain(resolveNetwork(pair.chain, pair.network), "test"));
}

/** The address the factory gives this salt and creation code, computed by the test from the transaction the node holds. */
async function expectedAddress(provider: AbstractProvider, transactionHash: string, salt: string): Promise<string> {
  const sent = (await provider.getTransaction(transactionHash))!;
  expect(sent.to).to.equal(FACTORY);
  expect(sent.data.slice(0, 66)).to.equal(salt);
  return getCreate2Address(FACTORY, salt, keccak256(`0x${sent.data.slice(66)}`));
}

describe("launch with a salt: CREATE2 through the deterministic deployment proxy", function () {
  let service: TokenService;
  const addresses: Record<string, string> = {};

  before(async function () {
    service = await createTokenService({ hre, env: {} });
    for (const pair of [SEPOLIA, BSC_TESTNET]) await service.faucet({ ...pair, address: deployer.address });
  });

  after(async function () {
    await service?.close();
  });

  const launch = (pair: Pair, fields: Record<string, unknown> = GOLD, salt = SALT, signer = deployer) =>
    service.launch({ ...pair, type: "ERC20", token: fields, salt, sender: signer.address, privateKey: signer.privateKey });

  it("gives the same address on ethereum/sepolia and binance_smart_chain/testnet, answered before mining", async function () {
    for (const pair of [SEPOLIA, BSC_TESTNET]) {
      const provider = await simulatedProvider(service, pair);
      expect(await provider.getCode(FACTORY), "a fresh simulated chain has no factory").to.equal("0x");
      const launched = await launch(pair);
      await expectMined(service, pair, launched.transactionHash);
      expect(launched.contractAddress).to.equal(await expectedAddress(provider, launched.transactionHash, SALT));
      // The factory is there as on public chains: created by its deployer's first transaction.
      expect(await provider.getCode(FACTORY)).to.equal(FACTORY_RUNTIME);
      expect(await provider.getTransactionCount(FACTORY_DEPLOYER)).to.equal(1);
      const gold = token(launched.contractAddress, ERC20_ABI, provider);
      expect(await gold.balanceOf!(admin)).to.equal(1000n);
      expect(await gold.nonces!(admin)).to.equal(0n);
      addresses[`${pair.chain}/${pair.network}`] = launched.contractAddress;
    }
    expect(addresses["ethereum/sepolia"]).to.equal(addresses["binance_smart_chain/testnet"]);
  });

  it("refuses the same launch again with ALREADY_DEPLOYED naming the address, before signing: the nonce is unchanged", async function () {
    const provider = await simulatedProvider(service, SEPOLIA);
    const nonce = await provider.getTransactionCount(deployer.address);
    const error = await expectServiceError(launch(SEPOLIA), ErrorCode.ALREADY_DEPLOYED, "salt");
    expect(error.details).to.deep.equal({ contractAddress: addresses["ethereum/sepolia"] });
    expect(error.message).to.include(addresses["ethereum/sepolia"]!);
    // Another sender, the same token and salt: the same address, refused alike.
    const other = Wallet.createRandom();
    await service.faucet({ ...SEPOLIA, address: other.address });
    await expectServiceError(launch(SEPOLIA, GOLD, SALT, other), ErrorCode.ALREADY_DEPLOYED, "salt");
    await expectServiceError(
      service.prepareLaunch({ ...SEPOLIA, type: "ERC20", token: GOLD, salt: SALT, sender: deployer.address }),
      ErrorCode.ALREADY_DEPLOYED,
      "salt",
    );
    expect(await provider.getTransactionCount(deployer.address)).to.equal(nonce);
    expect(await provider.getTransactionCount(other.address)).to.equal(0);
  });

  it("moves the address with the salt or with the token's options", async function () {
    const otherSalt = await launch(SEPOLIA, GOLD, id("gold-v2"));
    const otherOptions = await launch(SEPOLIA, { ...GOLD, options: { burnable: true } });
    const seen = new Set([addresses["ethereum/sepolia"], otherSalt.contractAddress, otherOptions.contractAddress]);
    expect(seen.size).to.equal(3);
    await expectMined(service, SEPOLIA, otherOptions.transactionHash);
  });

  it("prepares the factory call for a caller's key, at the address it answers, and takes it back signed", async function () {
    const salt = id("prepared");
    const prepared = await service.prepareLaunch({
      ...BSC_TESTNET,
      type: "ERC1155",
      token: { name: "Items" },
      salt,
      sender: deployer.address,
    });
    expect(prepared.unsignedTransaction.to).to.equal(FACTORY);
    const signedTransaction = await deployer.signTransaction(prepared.unsignedTransaction);
    const launched = await service.launch({
      ...BSC_TESTNET,
      type: "ERC1155",
      token: { name: "Items" },
      salt,
      sender: deployer.address,
      signedTransaction,
    });
    expect(launched.contractAddress).to.equal(prepared.contractAddress);
    await expectMined(service, BSC_TESTNET, launched.transactionHash);
    const provider = await simulatedProvider(service, BSC_TESTNET);
    expect(prepared.contractAddress).to.equal(await expectedAddress(provider, launched.transactionHash, salt));
    expect(await provider.getCode(prepared.contractAddress!)).to.not.equal("0x");
  });

  it("deploys the factory on a chain that mines on an interval, waiting for its block", async function () {
    const interval = await createTokenService({ hre, env: {}, blockTimeSeconds: 1 });
    try {
      await interval.faucet({ ...SEPOLIA, address: deployer.address });
      const launched = await interval.launch({
        ...SEPOLIA,
        type: "ERC20",
        token: GOLD,
        salt: SALT,
        sender: deployer.address,
        privateKey: deployer.privateKey,
      });
      expect(launched.contractAddress).to.equal(addresses["ethereum/sepolia"]);
      await expectMined(interval, SEPOLIA, launched.transactionHash);
    } finally {
      await interval.close();
    }
  });

  it("keeps the factory and the token across a restart of a chain kept in a data directory", async function () {
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-create2-"));
    try {
      const first = await createTokenService({ hre, env: {}, dataDir });
      await first.faucet({ ...SEPOLIA, address: deployer.address });
      const launched = await first.launch({
        ...SEPOLIA,
        type: "ERC20",
        token: GOLD,
        salt: SALT,
        sender: deployer.address,
        privateKey: deployer.privateKey,
      });
      await expectMined(first, SEPOLIA, launched.transactionHash);
      await first.close();

      const second = await createTokenService({ hre, env: {}, dataDir });
      try {
        const provider = await simulatedProvider(second, SEPOLIA);
        expect(await provider.getCode(FACTORY)).to.equal(FACTORY_RUNTIME);
        expect(await token(launched.contractAddress, ERC20_ABI, provider).balanceOf!(admin)).to.equal(1000n);
        await expectServiceError(
          second.launch({ ...SEPOLIA, type: "ERC20", token: GOLD, salt: SALT, sender: deployer.address, privateKey: deployer.privateKey }),
          ErrorCode.ALREADY_DEPLOYED,
          "salt",
        );
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describe("on anvil (live to the service)", function () {
    let anvil: AnvilNode | undefined;
    let live: TokenService | undefined;
    let provider: JsonRpcProvider | undefined;

    async function startLive(chainId: number, pair: Pair, args: string[] = []) {
      anvil = await startAnvil({ chainId, args });
      live = await createTokenService({ hre, env: {}, rpcUrls: { [`${pair.chain}/${pair.network}`]: anvil.url } });
      provider = new JsonRpcProvider(anvil.url, chainId, { staticNetwork: true, cacheTimeout: -1 });
      await provider.send("anvil_setBalance", [deployer.address, toQuantity(10n ** 20n)]);
      return { live, provider };
    }

    afterEach(async function () {
      await live?.close();
      provider?.destroy();
      await anvil?.stop();
      live = provider = anvil = undefined;
    });

    it("lands at the address of the simulated chains, through anvil's own factory", async function () {
      const { live, provider } = await startLive(17000, HOLESKY);
      expect(await provider.getCode(FACTORY)).to.equal(FACTORY_RUNTIME);
      const launched = await live.launch({
        ...HOLESKY,
        type: "ERC20",
        token: GOLD,
        salt: SALT,
        sender: deployer.address,
        privateKey: deployer.privateKey,
      });
      expect(launched.contractAddress).to.equal(addresses["ethereum/sepolia"]);
      await expectMined(live, HOLESKY, launched.transactionHash);
      expect(await token(launched.contractAddress, ERC20_ABI, provider).balanceOf!(admin)).to.equal(1000n);
      const nonce = await provider.getTransactionCount(deployer.address);
      await expectServiceError(
        live.launch({ ...HOLESKY, type: "ERC20", token: GOLD, salt: SALT, sender: deployer.address, privateKey: deployer.privateKey }),
        ErrorCode.ALREADY_DEPLOYED,
        "salt",
      );
      expect(await provider.getTransactionCount(deployer.address)).to.equal(nonce);
    });

    it("refuses a live chain without the factory (CREATE2_FACTORY_MISSING, nothing sent); following its details deploys it", async function () {
      const { live, provider } = await startLive(97, BSC_TESTNET, ["--disable-default-create2-deployer"]);
      const launch = () =>
        live.launch({ ...BSC_TESTNET, type: "ERC20", token: GOLD, salt: SALT, sender: deployer.address, privateKey: deployer.privateKey });
      const error = await expectServiceError(launch(), ErrorCode.CREATE2_FACTORY_MISSING, "salt");
      expect(error.details).to.include({ factory: FACTORY, deployer: FACTORY_DEPLOYER });
      expect(await provider.getTransactionCount(deployer.address)).to.equal(0);
      expect(await provider.getCode(FACTORY)).to.equal("0x");

      const details = error.details as { deployerFunding: string; deploymentTransaction: string };
      await provider.send("anvil_setBalance", [FACTORY_DEPLOYER, toQuantity(BigInt(details.deployerFunding))]);
      await (await provider.broadcastTransaction(details.deploymentTransaction)).wait();
      expect(await provider.getCode(FACTORY)).to.equal(FACTORY_RUNTIME);
      const launched = await launch();
      expect(launched.contractAddress).to.equal(addresses["ethereum/sepolia"]);
      await expectMined(live, BSC_TESTNET, launched.transactionHash);
    });
  });
});
