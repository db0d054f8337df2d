import { createRequire } from "node:module";

import { expect } from "chai";
import { Contract, JsonRpcProvider, Wallet as EthersWallet, parseEther, toBeHex, toQuantity } from "ethers";
import hre from "hardhat";
import { createHardhatRuntimeEnvironment } from "hardhat/hre";

import { chainRegistry, createTokenService, type TokenService } from "../../src/api.js";
import tokenServicePlugin from "../../src/index.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { GAS_PRICE_ORACLE } from "../../src/chains/evm/write/l1-fee.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { expectServiceError } from "../helpers/errors.js";
import { rpc } from "../helpers/json-rpc-servers.js";
import { expectOperationMined, fundedWallet, type Pair } from "../helpers/service.js";

const require = createRequire(import.meta.url);

/** Every built-in EVM pair the issue added, with what a client must see of it. */
const NEW_PAIRS = [
  { chain: "base", network: "mainnet", chainId: 8453, nativeSymbol: "ETH", rollup: "op-stack" },
  { chain: "base", network: "sepolia", chainId: 84532, nativeSymbol: "ETH", rollup: "op-stack" },
  { chain: "arbitrum", network: "mainnet", chainId: 42161, nativeSymbol: "ETH", rollup: "arbitrum" },
  { chain: "arbitrum", network: "sepolia", chainId: 421614, nativeSymbol: "ETH", rollup: "arbitrum" },
  { chain: "optimism", network: "mainnet", chainId: 10, nativeSymbol: "ETH", rollup: "op-stack" },
  { chain: "optimism", network: "sepolia", chainId: 11155420, nativeSymbol: "ETH", rollup: "op-stack" },
  { chain: "polygon", network: "mainnet", chainId: 137, nativeSymbol: "POL" },
  { chain: "polygon", network: "amoy", chainId: 80002, nativeSymbol: "POL" },
  { chain: "avalanche", network: "mainnet", chainId: 43114, nativeSymbol: "AVAX" },
  { chain: "avalanche", network: "fuji", chainId: 43113, nativeSymbol: "AVAX" },
] as const;

const ERC20_READ = [
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address) view returns (uint256)",
];

/**
 * Stands in for the OP Stack's GasPriceOracle predeploy: `getL1Fee` answers the fee stored in slot 0, and only for what
 * the funds check must send it, an unsigned EIP-1559 transaction's serialization (its first byte is its type, 2).
 */
const ORACLE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract FixedL1FeeOracle {
    uint256 private fee;
    function getL1Fee(bytes calldata data) external view returns (uint256) {
        require(data.length > 100 && data[0] == 0x02, "not an unsigned EIP-1559 transaction");
        return fee;
    }
}`;

/** The oracle's runtime code, compiled here with the solc the project builds with. */
function oracleRuntimeCode(): string {
  const solc = require("solc") as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "FixedL1FeeOracle.sol": { content: ORACLE_SOURCE } },
        settings: { evmVersion: "shanghai", outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } } },
      }),
    ),
  ) as { errors?: Array<{ severity: string; formattedMessage: string }>; contracts: Record<string, Record<string, any>> };
  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  expect(errors.map((error) => error.formattedMessage)).to.deep.equal([]);
  return `0x${output.contracts["FixedL1FeeOracle.sol"]!.FixedL1FeeOracle.evm.deployedBytecode.object}`;
}

describe("chains: Base, Arbitrum, Optimism, Polygon and Avalanche", function () {
  describe("simulated by default", function () {
    let service: TokenService;

    before(async function () {
      service = await createTokenService({ hre, env: {} });
    });

    after(async function () {
      await service?.close();
    });

    it("lists every new pair as simulated, with its chain id, currency and rollup family", function () {
      const networks = service.networks();
      for (const expected of NEW_PAIRS) {
        const pair = networks.find((entry) => entry.chain === expected.chain && entry.network === expected.network);
        expect(pair, `${expected.chain}/${expected.network}`).to.include({
          kind: "evm",
          chainId: expected.chainId,
          nativeSymbol: expected.nativeSymbol,
          nativeDecimals: 18,
          simulated: true,
          backend: "edr",
        });
        expect(pair?.rollup, `${expected.chain}/${expected.network}`).to.equal("rollup" in expected ? expected.rollup : undefined);
      }
      // Each chain's generic testnet stands for its test network.
      expect(service.chains.resolve("polygon", "testnet").network).to.equal("amoy");
      expect(service.chains.resolve("avalanche", "testnet").network).to.equal("fuji");
      expect(service.chains.resolve("base", "testnet").chainId).to.equal(84532);
    });

    for (const pair of [
      { chain: "base", network: "sepolia", chainId: 84532, symbol: "ETH" },
      { chain: "polygon", network: "amoy", chainId: 80002, symbol: "POL" },
    ]) {
      it(`${pair.chain}/${pair.network}: wallet, faucet, launch and balance, on a simulated chain whose node says chain id ${pair.chainId}`, async function () {
        const where: Pair = { chain: pair.chain, network: pair.network };
        const chain = await service.evmChain(service.chains.resolve(pair.chain, pair.network), "test");
        expect(Number(await chain.rpc!("eth_chainId", []))).to.equal(pair.chainId);

        const owner = await fundedWallet(service, where);
        const launched = await service.launch({
          ...where,
          type: "erc20",
          token: { name: "Gold", symbol: "GLD", initialSupply: "1000" },
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        await expectOperationMined(service, launched);
        const balances = await service.getBalances({
          ...where,
          address: owner.address,
          erc20TokenContractAddresses: [launched.contractAddress],
        });
        expect(balances).to.include({ chain: pair.chain, network: pair.network, simulated: true });
        expect(balances.balances.GLD).to.include({ balance: "1000", contractAddress: launched.contractAddress });
        // The native currency is keyed by its own symbol: less than the 10 granted, by what the launch cost.
        const native = BigInt(balances.balances[pair.symbol]!.balance);
        expect(native > 0n && native < 10n * 10n ** 18n, `${pair.symbol} ${native}`).to.equal(true);
        // The transaction was signed for the pair's chain id (EIP-155), as the node checked.
        const transaction = await chain.provider.getTransaction(launched.transactionHash);
        expect(Number(transaction!.chainId)).to.equal(pair.chainId);
      });
    }
  });

  describe("live: anvil serving chain id 8453 as base/mainnet (TOKEN_SERVICE_RPC_BASE_MAINNET)", function () {
    let anvil: AnvilNode;
    let service: TokenService;
    let direct: JsonRpcProvider;
    const BASE: Pair = { chain: "base", network: "mainnet" };

    before(async function () {
      anvil = await startAnvil({ chainId: 8453 });
      service = await createTokenService({ hre, env: { TOKEN_SERVICE_RPC_BASE_MAINNET: anvil.url } });
      direct = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
    });

    after(async function () {
      direct?.destroy();
      await service?.close();
      await anvil?.stop();
    });

    /** A new sender holding `wei` on the node itself (the faucet refuses live networks). */
    async function senderWith(wei: bigint) {
      const wallet = service.createWallet(BASE);
      await rpc(anvil.url, "anvil_setBalance", [wallet.address, toQuantity(wei)]);
      return wallet;
    }

    it("launches an ERC20 that is mined, read back with ethers straight from the node", async function () {
      expect(service.networks().find((pair) => pair.chain === "base" && pair.network === "mainnet")).to.include({
        simulated: false,
        backend: "json-rpc",
      });
      const owner = await senderWith(parseEther("1"));
      const launched = await service.launch({
        ...BASE,
        type: "erc20",
        token: { name: "Base Gold", symbol: "BGLD", initialSupply: "5000" },
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      await expectOperationMined(service, launched);
      const receipt = await direct.getTransactionReceipt(launched.transactionHash);
      expect(receipt?.status).to.equal(1);
      expect(receipt?.contractAddress).to.equal(launched.contractAddress);
      const token = new Contract(launched.contractAddress, ERC20_READ, direct);
      expect(await token.getFunction("name")()).to.equal("Base Gold");
      expect(await token.getFunction("symbol")()).to.equal("BGLD");
      expect(await token.getFunction("balanceOf")(owner.address)).to.equal(5000n);
    });

    describe("the OP Stack's L1 data fee counts in the funds check", function () {
      const setL1Fee = (wei: bigint) => rpc(anvil.url, "anvil_setStorageAt", [GAS_PRICE_ORACLE, "0x0", toBeHex(wei, 32)]);

      before(async function () {
        await rpc(anvil.url, "anvil_setCode", [GAS_PRICE_ORACLE, oracleRuntimeCode()]);
      });

      it("refuses, before signing, a sender funded for the L2 gas but not the L1 fee, naming the L1 fee", async function () {
        await setL1Fee(parseEther("1"));
        // Ample for a deployment's gas at anvil's fees (a few thousandths of an ETH), far from the 1 ETH L1 fee.
        const owner = await senderWith(parseEther("0.05"));
        const launch = () =>
          service.launch({
            ...BASE,
            type: "erc20",
            token: { name: "Fee", symbol: "FEE" },
            sender: owner.address,
            privateKey: owner.privateKey,
          });
        const refused = await expectServiceError(launch, ErrorCode.INSUFFICIENT_FUNDS, "sender", [owner.privateKey]);
        expect(refused.message).to.match(/may cost up to 1\.00\d+ ETH \(gas up to 0\.00\d+ ETH plus an L1 data fee of 1 ETH\)$/);
        expect(refused.details).to.include({ l1DataFee: parseEther("1").toString(), available: parseEther("0.05").toString() });
        expect(BigInt(refused.details!.needed as string) - parseEther("1") < parseEther("0.05")).to.equal(true);
        // Not signed, not sent: the node has nothing from the sender.
        expect(await direct.getTransactionCount(owner.address, "pending")).to.equal(0);

        // The prepare path (local signing) checks the same.
        const prepared = await expectServiceError(
          () => service.prepareLaunch({ ...BASE, type: "erc20", token: { name: "Fee", symbol: "FEE" }, sender: owner.address }),
          ErrorCode.INSUFFICIENT_FUNDS,
          "sender",
        );
        expect(prepared.details).to.include({ l1DataFee: parseEther("1").toString() });

        // The same sender, the same launch: once the L1 fee fits beside the gas, it goes through.
        await setL1Fee(parseEther("0.001"));
        const launched = await launch();
        await expectOperationMined(service, launched);
        expect((await direct.getTransactionReceipt(launched.transactionHash))?.status).to.equal(1);
      });
    });
  });

  describe("live: anvil serving chain id 137 as polygon/mainnet", function () {
    let anvil: AnvilNode;
    let service: TokenService;

    before(async function () {
      anvil = await startAnvil({ chainId: 137 });
      service = await createTokenService({ hre, env: {}, rpcUrls: { "polygon/mainnet": anvil.url } });
    });

    after(async function () {
      await service?.close();
      await anvil?.stop();
    });

    it("takes its fees from the configured node only (ethers' chain 137 would ask Polygon's gas station), and launches", async function () {
      const pair: Pair = { chain: "polygon", network: "mainnet" };
      const chain = await service.evmChain(service.chains.resolve("polygon", "mainnet"), "test");
      const network = (chain.provider as JsonRpcProvider)._network;
      expect(network.chainId).to.equal(137n);
      expect(network.getPlugin("org.ethers.plugins.network.FetchUrlFeeDataPlugin")).to.equal(null);

      const owner = EthersWallet.createRandom();
      await rpc(anvil.url, "anvil_setBalance", [owner.address, toQuantity(parseEther("10"))]);
      const launched = await service.launch({
        ...pair,
        type: "erc20",
        token: { name: "Poly", symbol: "PLY", initialSupply: "7" },
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      await expectOperationMined(service, launched);
      const balances = await service.getBalances({
        ...pair,
        address: owner.address,
        erc20TokenContractAddresses: [launched.contractAddress],
      });
      expect(balances.simulated).to.equal(false);
      expect(balances.balances.PLY).to.include({ balance: "7" });
      expect(Object.keys(balances.balances)).to.include("POL");
    });

    it("is the pair of a Hardhat HTTP network with chain id 137, with or without --network", async function () {
      const config = {
        plugins: [tokenServicePlugin],
        networks: { polygonMainnet: { type: "http" as const, chainId: 137, url: anvil.url } },
      };
      for (const options of [{}, { network: "polygonMainnet" }]) {
        const project = await createHardhatRuntimeEnvironment(config, options);
        const viaNetwork = await createTokenService({ hre: project, env: {} });
        try {
          expect(viaNetwork.networks().find((pair) => pair.chain === "polygon" && pair.network === "mainnet")).to.include({
            simulated: false,
            endpoint: `${new URL(anvil.url).host} via Hardhat network polygonMainnet`,
          });
          const read = await viaNetwork.getBalances({ chain: "polygon", network: "mainnet", address: EthersWallet.createRandom().address });
          expect(read).to.include({ simulated: false });
          expect(read.balances.POL).to.include({ balance: "0" });
        } finally {
          await viaNetwork.close();
        }
      }
    });
  });

  describe("the programmatic API with declared chains", function () {
    const declared = { acme_api: { nativeSymbol: "ACM", networks: { mainnet: { chainId: 990501 } } } };

    it("serves the chains of TOKEN_SERVICE_CHAINS in its env, and those of a registry it is given", async function () {
      for (const options of [
        { env: { TOKEN_SERVICE_CHAINS: JSON.stringify(declared) } },
        { env: {}, chains: chainRegistry({ env: { TOKEN_SERVICE_CHAINS: JSON.stringify(declared) } }) },
      ]) {
        const service = await createTokenService({ hre, ...options });
        try {
          const pair: Pair = { chain: "acme_api", network: "mainnet" };
          expect(service.chains.resolve("acme_api", "mainnet")).to.include({ chainId: 990501, declaredIn: "TOKEN_SERVICE_CHAINS" });
          const owner = await fundedWallet(service, pair);
          const chain = await service.evmChain(service.chains.resolve("acme_api", "mainnet"), "test");
          expect(Number(await chain.rpc!("eth_chainId", []))).to.equal(990501);
          const balances = await service.getBalances({ ...pair, address: owner.address });
          expect(balances.balances.ACM).to.include({ balance: (10n * 10n ** 18n).toString(), uiBalance: "10" });
        } finally {
          await service.close();
        }
      }
    });
  });
});
