import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import type { Wallet } from "../../src/core/wallets.js";
import { BSC_TESTNET, SEPOLIA, useCoreService } from "../helpers/core-service.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectMined, fundedWallet, type Pair } from "../helpers/service.js";
import { until } from "../helpers/until.js";

// The programmatic API on simulated chains, continued from core.test.ts: native currency, writes at once and on a block
// time, and the requests the service refuses as they are written.

describe("core: native currency, timing, refused requests", function () {
  let service: TokenService;
  const { secrets, remember, funded, useErrorTokens } = useCoreService((opened) => (service = opened));

  describe("native balances", function () {
    it("reads zero for a new address and exact decimal strings after the faucet", async function () {
      const wallet = remember(service.createWallet(SEPOLIA));
      const empty = await service.getBalances({ ...SEPOLIA, address: wallet.address });
      expect(empty).to.deep.equal({
        chain: "ethereum",
        network: "sepolia",
        address: wallet.address,
        simulated: true,
        balances: { ETH: { balance: "0", uiBalance: "0" } },
      });

      const grant = await service.faucet({ ...SEPOLIA, address: wallet.address, amount: "1500000000000000001" });
      expect(grant.simulated).to.equal(true);
      expect(grant.amount).to.deep.equal({ balance: "1500000000000000001", uiBalance: "1.500000000000000001" });
      const after = await service.getBalances({ ...SEPOLIA, address: wallet.address });
      expect(after.balances.ETH).to.deep.equal({ balance: "1500000000000000001", uiBalance: "1.500000000000000001" });
    });

    it("gives 10 of the native currency by default, on BNB Smart Chain as BNB", async function () {
      const wallet = remember(service.createWallet(BSC_TESTNET));
      const grant = await service.faucet({ ...BSC_TESTNET, address: wallet.address });
      expect(grant.amount.uiBalance).to.equal("10");
      expect(grant.balance.uiBalance).to.equal("10");
      const balances = await service.getBalances({ ...BSC_TESTNET, address: wallet.address.toLowerCase() });
      expect(balances.address, "returned checksummed").to.equal(wallet.address);
      expect(balances.balances).to.deep.equal({ BNB: { balance: "10000000000000000000", uiBalance: "10" } });
    });

    it("resolves the document's ethereum/testnet to sepolia: the same chain and balances", async function () {
      const wallet = remember(service.createWallet(SEPOLIA));
      await service.faucet({ chain: "ethereum", network: "testnet", address: wallet.address, amount: "7" });
      const balances = await service.getBalances({ ...SEPOLIA, address: wallet.address });
      expect(balances.balances.ETH!.balance).to.equal("7");
      const viaAlias = await service.getBalances({ chain: "ethereum", network: "testnet", address: wallet.address });
      expect(viaAlias.network).to.equal("sepolia");
      expect(viaAlias.balances.ETH!.uiBalance).to.equal("0.000000000000000007");
    });

    it("runs each pair on its own chain with the pair's real chain id", async function () {
      for (const [pair, chainId] of [
        [SEPOLIA, 11155111n],
        [BSC_TESTNET, 97n],
        [{ chain: "ethereum", network: "mainnet" }, 1n],
      ] as const) {
        const chain = await service.evmChain(resolveNetwork(pair.chain, pair.network), "read");
        expect((await chain.provider.getNetwork()).chainId).to.equal(chainId);
        expect(chain.simulated).to.equal(true);
      }
    });

    it("lists every pair as simulated when nothing is configured", function () {
      const networks = service.networks();
      const evm = networks.filter((entry) => entry.kind === "evm");
      expect(evm.map((entry) => `${entry.chain}/${entry.network}`)).to.include.members([
        "ethereum/mainnet",
        "ethereum/sepolia",
        "binance_smart_chain/testnet",
      ]);
      expect(evm.every((entry) => entry.simulated)).to.equal(true);
      // Regtest has no public backend: with no bitcoind configured there is none.
      expect(networks.find((entry) => entry.chain === "bitcoin" && entry.network === "regtest")).to.include({
        backend: "none",
        simulated: false,
      });
    });
  });

  describe("concurrency", function () {
    it("20 concurrent launches from one sender are all accepted and mined, with distinct nonces and addresses", async function () {
      const sender = await funded(BSC_TESTNET, (10n ** 20n).toString());
      const launches = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          service.launch({
            ...BSC_TESTNET,
            type: index % 2 === 0 ? "erc20" : "erc721",
            token:
              index % 2 === 0
                ? { name: `Token ${index}`, symbol: `T${index}`, initialSupply: String(index + 1) }
                : { name: `NFT ${index}`, symbol: `N${index}` },
            sender: sender.address,
            privateKey: sender.privateKey,
          }),
        ),
      );
      expect(launches.map((launch) => launch.nonce).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, index) => index));
      expect(new Set(launches.map((launch) => launch.contractAddress)).size).to.equal(20);
      expect(new Set(launches.map((launch) => launch.transactionHash)).size).to.equal(20);
      const statuses = await Promise.all(launches.map((launch) => expectMined(service, BSC_TESTNET, launch.transactionHash)));
      statuses.forEach((status, index) => expect(status.contractAddress).to.equal(launches[index]!.contractAddress));

      const erc20s = launches.filter((launch) => launch.type === "ERC20").map((launch) => launch.contractAddress);
      const balances = await service.getBalances({ ...BSC_TESTNET, address: sender.address, erc20TokenContractAddresses: erc20s });
      expect(Object.keys(balances.balances)).to.have.length(11);
      expect(balances.balances.T18!.balance).to.equal("19");
    });
  });

  describe("block time", function () {
    let slow: TokenService;

    before(async function () {
      slow = await createTokenService({ hre, env: {}, blockTimeSeconds: 2 });
    });

    after(async function () {
      await slow.close();
    });

    /** Returns right after a new block, so the next few hundred milliseconds fall inside one block interval. */
    async function atBlockStart(pair: Pair) {
      const chain = await slow.evmChain(resolveNetwork(pair.chain, pair.network), "read");
      const start = await chain.provider.getBlockNumber();
      await until(async () => (await chain.provider.getBlockNumber()) !== start, "the next block (one every 2 s)", 10_000, 20);
    }

    it("a launch is pending until the next block: balances read right after it show nothing yet", async function () {
      const pair = SEPOLIA;
      const owner = remember(await fundedWallet(slow, pair));
      const before = (await slow.getBalances({ ...pair, address: owner.address })).balances.ETH!.balance;

      await atBlockStart(pair);
      const launched = await slow.launch({
        ...pair,
        type: "erc20",
        token: { name: "Slow", symbol: "SLO", initialSupply: "99" },
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      expect((await slow.getTransaction({ ...pair, transactionHash: launched.transactionHash })).status).to.equal("pending");
      expect((await slow.getBalances({ ...pair, address: owner.address })).balances.ETH!.balance, "no fee paid yet").to.equal(before);
      await expectServiceError(
        slow.getBalances({ ...pair, address: owner.address, erc20TokenContractAddresses: [launched.contractAddress] }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "erc20TokenContractAddresses",
      );
      const unmined = await slow.waitForTransaction({ ...pair, transactionHash: launched.transactionHash, timeoutMs: 0 });
      expect(unmined).to.include({ status: "pending", blockNumber: null, confirmations: 0 });

      await expectMined(slow, pair, launched.transactionHash);
      const mined = await slow.getBalances({ ...pair, address: owner.address, erc20TokenContractAddresses: [launched.contractAddress] });
      expect(mined.balances.SLO!.balance).to.equal("99");
      expect(BigInt(mined.balances.ETH!.balance) < BigInt(before)).to.equal(true);

      await atBlockStart(pair);
      const minted = await slow.mint({
        ...pair,
        type: "erc20",
        contractAddress: launched.contractAddress,
        to: owner.address,
        amount: "1",
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      expect(
        (await slow.getTokenBalance({ ...pair, address: owner.address, tokenAddress: launched.contractAddress, type: "erc20" })).balance,
      ).to.equal("99");
      await expectMined(slow, pair, minted.transactionHash);
      expect(
        (await slow.getTokenBalance({ ...pair, address: owner.address, tokenAddress: launched.contractAddress, type: "erc20" })).balance,
      ).to.equal("100");
    });
  });

  describe("typed errors: requests refused as written", function () {
    let owner: Wallet;
    let erc20: string;
    let erc721: string;

    const launch = useErrorTokens((tokens) => ({ owner, erc20, erc721 } = tokens));

    it("INVALID_ARGUMENT: unknown token fields, naming the first and listing all", async function () {
      const error = await expectServiceError(
        launch({ name: "A", symbol: "A", supply: "1", owner: "x" }),
        ErrorCode.INVALID_ARGUMENT,
        "token.supply",
        secrets,
      );
      expect(error.details?.unknownFields).to.deep.equal(["token.supply", "token.owner"]);
      await expectServiceError(
        launch({ name: "A", symbol: "A", decimals: 18 }, { type: "erc721" }),
        ErrorCode.INVALID_ARGUMENT,
        "token.decimals",
        secrets,
      );
    });

    it("INVALID_ARGUMENT: initialSupply above totalSupply, with both in details", async function () {
      const error = await expectServiceError(
        launch({ name: "A", symbol: "A", initialSupply: "101", totalSupply: "100" }),
        ErrorCode.INVALID_ARGUMENT,
        "token.initialSupply",
        secrets,
      );
      expect(error.details).to.deep.equal({ initialSupply: "101", totalSupply: "100" });
    });

    it("INVALID_ARGUMENT: amounts beyond uint256, negative, fractional or not numbers", async function () {
      const overflow = (1n << 256n).toString();
      await expectServiceError(
        launch({ name: "A", symbol: "A", initialSupply: overflow }),
        ErrorCode.INVALID_ARGUMENT,
        "token.initialSupply",
        secrets,
      );
      await expectServiceError(
        launch({ name: "A", symbol: "A", totalSupply: overflow }),
        ErrorCode.INVALID_ARGUMENT,
        "token.totalSupply",
        secrets,
      );
      await expectServiceError(
        launch({ name: "A", symbol: "A", initialSupply: "-1" }),
        ErrorCode.INVALID_ARGUMENT,
        "token.initialSupply",
        secrets,
      );
      await expectServiceError(
        launch({ name: "A", symbol: "A", initialSupply: "1.5" }),
        ErrorCode.INVALID_ARGUMENT,
        "token.initialSupply",
        secrets,
      );
      await expectServiceError(
        launch({ name: "A", symbol: "A", initialSupply: 1e30 }),
        ErrorCode.INVALID_ARGUMENT,
        "token.initialSupply",
        secrets,
      );
      await expectServiceError(launch({ name: "A", symbol: "A", decimals: 37 }), ErrorCode.INVALID_ARGUMENT, "token.decimals", secrets);
      await expectServiceError(
        service.faucet({ ...SEPOLIA, address: owner.address, amount: overflow }),
        ErrorCode.INVALID_ARGUMENT,
        "amount",
      );
      await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc20",
          contractAddress: erc20,
          to: owner.address,
          amount: overflow,
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.INVALID_ARGUMENT,
        "amount",
        secrets,
      );
    });

    it("INVALID_ARGUMENT: missing name, bad token type, missing chain", async function () {
      await expectServiceError(launch({ symbol: "A" }), ErrorCode.INVALID_ARGUMENT, "token.name", secrets);
      await expectServiceError(launch({ name: "A", symbol: "A" }, { type: "ERC777" }), ErrorCode.INVALID_ARGUMENT, "type", secrets);
      await expectServiceError(launch("not an object"), ErrorCode.INVALID_ARGUMENT, "token", secrets);
      await expectServiceError(
        service.getBalances({ chain: "", network: "sepolia", address: owner.address }),
        ErrorCode.INVALID_ARGUMENT,
        "chain",
      );
      await expectServiceError(
        service.getTransaction({ ...SEPOLIA, transactionHash: "0x1234" }),
        ErrorCode.INVALID_ARGUMENT,
        "transactionHash",
      );
    });

    it("INVALID_ADDRESS: names the field, for EVM and bitcoin addresses", async function () {
      await expectServiceError(service.getBalances({ ...SEPOLIA, address: "0x1234" }), ErrorCode.INVALID_ADDRESS, "address");
      const badChecksum =
        owner.address.slice(0, 2) +
        owner.address
          .slice(2)
          .split("")
          .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
          .join("");
      if (/[a-fA-F]/.test(owner.address.slice(2))) {
        await expectServiceError(service.getBalances({ ...SEPOLIA, address: badChecksum }), ErrorCode.INVALID_ADDRESS, "address");
      }
      await expectServiceError(
        service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: [erc20, "not-an-address"] }),
        ErrorCode.INVALID_ADDRESS,
        "erc20TokenContractAddresses[1]",
      );
      await expectServiceError(launch({ name: "A", symbol: "A", minter: "0xzz" }), ErrorCode.INVALID_ADDRESS, "token.minter", secrets);
      await expectServiceError(launch({ name: "A", symbol: "A" }, { sender: "" }), ErrorCode.INVALID_ADDRESS, "sender", secrets);
      const testnetAddress = service.createWallet({ chain: "bitcoin", network: "testnet" }).address;
      await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "mainnet", address: testnetAddress }),
        ErrorCode.INVALID_ADDRESS,
        "address",
      );
    });

    it("INVALID_PRIVATE_KEY: a missing, short or non-hex key, never quoted back", async function () {
      const short = owner.privateKey.slice(0, -2);
      const nonHex = `${owner.privateKey.slice(0, -1)}g`;
      for (const privateKey of ["", short, nonHex, `0x${"00".repeat(32)}`]) {
        await expectServiceError(launch({ name: "A", symbol: "A" }, { privateKey }), ErrorCode.INVALID_PRIVATE_KEY, "privateKey", [
          ...secrets,
          short,
          nonHex,
        ]);
      }
    });

    it("UNSUPPORTED_CHAIN and UNSUPPORTED_NETWORK", async function () {
      await expectServiceError(
        service.getBalances({ chain: "solana", network: "mainnet", address: owner.address }),
        ErrorCode.UNSUPPORTED_CHAIN,
        "chain",
      );
      await expectServiceError(
        launch({ name: "A", symbol: "A" }, { network: "ropsten" }),
        ErrorCode.UNSUPPORTED_NETWORK,
        "network",
        secrets,
      );
    });

    it("UNSUPPORTED_OPERATION: launching, minting or reading a token on bitcoin", async function () {
      const btc = { chain: "bitcoin", network: "regtest" };
      await expectServiceError(launch({ name: "A", symbol: "A" }, btc), ErrorCode.UNSUPPORTED_OPERATION, "chain", secrets);
      await expectServiceError(
        service.mint({
          ...btc,
          type: "erc721",
          contractAddress: erc721,
          to: owner.address,
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.UNSUPPORTED_OPERATION,
        "chain",
        secrets,
      );
      await expectServiceError(
        service.getTokenBalance({ ...btc, address: owner.address, tokenAddress: erc721, type: "erc721" }),
        ErrorCode.UNSUPPORTED_OPERATION,
        "chain",
      );
    });

    it("KEY_SENDER_MISMATCH: a valid key of another address", async function () {
      const other = remember(service.createWallet(SEPOLIA));
      const error = await expectServiceError(
        launch({ name: "A", symbol: "A" }, { privateKey: other.privateKey }),
        ErrorCode.KEY_SENDER_MISMATCH,
        "privateKey",
        secrets,
      );
      expect(error.details).to.deep.equal({ sender: owner.address });
    });
  });
});
