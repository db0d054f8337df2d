import { expect } from "chai";
import { Contract, Wallet as EthersWallet, getAddress, getCreateAddress } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import type { Wallet } from "../../src/core/wallets.js";
import { expectNoSecret, expectServiceError } from "../helpers/errors.js";
import { closedPort, expectMined, fundedWallet, type Pair } from "../helpers/service.js";
import { until } from "../helpers/until.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
const BSC_TESTNET: Pair = { chain: "binance_smart_chain", network: "testnet" };
const MINTER_ROLE = "0x9f2df0fed2c77648de5860a4cc508cd0818c85b8b8a1ab4ceeef8d981c8956a6";
const DEFAULT_ADMIN_ROLE = `0x${"00".repeat(32)}`;
const ROLES_ABI = [
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function tokenURI(uint256) view returns (string)",
];

describe("core (programmatic API on simulated chains)", function () {
  let service: TokenService;
  /** Every private key these tests handed to the service: no error may ever quote one. */
  const secrets: string[] = [];

  const remember = (wallet: Wallet): Wallet => {
    secrets.push(wallet.privateKey);
    return wallet;
  };
  const funded = async (pair: Pair, amount?: string) => remember(await fundedWallet(service, pair, amount));

  async function launchErc20(pair: Pair, owner: Wallet, token: Record<string, unknown>) {
    const launched = await service.launch({
      ...pair,
      type: "SERVICE_ERC20",
      token,
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectMined(service, pair, launched.transactionHash);
    return launched.contractAddress;
  }

  async function launchErc721(pair: Pair, owner: Wallet, uri = "ipfs://collection/") {
    const launched = await service.launch({
      ...pair,
      type: "SERVICE_ERC721",
      token: { name: "Collectible", symbol: "COL", uri },
      sender: owner.address,
      privateKey: owner.privateKey,
    });
    await expectMined(service, pair, launched.transactionHash);
    return launched.contractAddress;
  }

  async function contractOn(pair: Pair, address: string) {
    const chain = await service.evmChain(resolveNetwork(pair.chain, pair.network), "read");
    return new Contract(address, ROLES_ABI, chain.provider);
  }

  before(async function () {
    // env: {} so a TOKEN_SERVICE_RPC_* variable in the developer's shell cannot turn these pairs live.
    service = await createTokenService({ hre, env: {} });
  });

  after(async function () {
    await service.close();
  });

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

  for (const pair of [SEPOLIA, BSC_TESTNET]) {
    describe(`ERC20 on ${pair.chain}/${pair.network}`, function () {
      let owner: Wallet;
      const contracts: string[] = [];

      before(async function () {
        owner = await funded(pair);
      });

      it("launches: returns the hash and the contract address derived from sender and nonce, before mining", async function () {
        const launched = await service.launch({
          ...pair,
          type: "SERVICE_ERC20",
          token: { name: "Alpha", symbol: "ALP", decimals: 6, initialSupply: "1234567890", totalSupply: "10000000000" },
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        expect(launched).to.include({
          status: "pending",
          chain: pair.chain,
          network: pair.network,
          type: "ERC20",
          sender: owner.address,
          nonce: 0,
          simulated: true,
        });
        expect(launched.transactionHash).to.match(/^0x[0-9a-f]{64}$/);
        expect(launched.contractAddress).to.equal(getCreateAddress({ from: owner.address, nonce: 0 }));
        const mined = await expectMined(service, pair, launched.transactionHash);
        expect(mined.contractAddress).to.equal(launched.contractAddress);
        expect(mined.confirmations).to.be.at.least(1);
        expect(await service.getTransaction({ ...pair, transactionHash: launched.transactionHash })).to.include({
          status: "mined",
          simulated: true,
        });
        contracts.push(launched.contractAddress);
      });

      it("reads several ERC20 contracts at once, keyed by symbol, with the native balance", async function () {
        contracts.push(await launchErc20(pair, owner, { name: "Beta", symbol: "BET", initialSupply: "5000000000000000000" }));
        contracts.push(await launchErc20(pair, owner, { name: "Gamma", symbol: "GAM", decimals: "0", initialSupply: "42" }));
        const result = await service.getBalances({ ...pair, address: owner.address, erc20TokenContractAddresses: contracts });
        expect(result.simulated).to.equal(true);
        const native = pair.chain === "ethereum" ? "ETH" : "BNB";
        expect(Object.keys(result.balances)).to.deep.equal([native, "ALP", "BET", "GAM"]);
        expect(BigInt(result.balances[native]!.balance) < 10n ** 19n, "the launches paid fees").to.equal(true);
        expect(result.balances.ALP).to.deep.equal({
          balance: "1234567890",
          uiBalance: "1234.56789",
          contractAddress: contracts[0],
          decimals: 6,
          symbol: "ALP",
        });
        expect(result.balances.BET).to.deep.equal({
          balance: "5000000000000000000",
          uiBalance: "5",
          contractAddress: contracts[1],
          decimals: 18,
          symbol: "BET",
        });
        expect(result.balances.GAM).to.deep.equal({
          balance: "42",
          uiBalance: "42",
          contractAddress: contracts[2],
          decimals: 0,
          symbol: "GAM",
        });

        const stranger = remember(service.createWallet(pair));
        const empty = await service.getBalances({
          ...pair,
          address: stranger.address,
          erc20TokenContractAddresses: contracts.map((address) => address.toLowerCase()),
        });
        expect(empty.balances.ALP).to.include({ balance: "0", uiBalance: "0" });
        expect(empty.balances.GAM).to.include({ balance: "0", uiBalance: "0" });
      });

      it("reads one ERC20 balance with getTokenBalance", async function () {
        const result = await service.getTokenBalance({ ...pair, address: owner.address, tokenAddress: contracts[0]!, type: "erc20" });
        expect(result).to.include({
          type: "erc20",
          balance: "1234567890",
          uiBalance: "1234.56789",
          decimals: 6,
          symbol: "ALP",
          simulated: true,
        });
      });

      it("mints more ERC20 supply within the cap, signed by the account", async function () {
        const recipient = remember(service.createWallet(pair));
        const minted = await service.mint({
          ...pair,
          type: "erc20",
          contractAddress: contracts[0]!,
          to: recipient.address,
          amount: "1000000",
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        expect(minted).to.include({ status: "pending", type: "ERC20", amount: "1000000", to: recipient.address, simulated: true });
        await expectMined(service, pair, minted.transactionHash);
        const balance = await service.getTokenBalance({ ...pair, address: recipient.address, tokenAddress: contracts[0]!, type: "ERC20" });
        expect(balance.uiBalance).to.equal("1");
      });
    });

    describe(`ERC721 on ${pair.chain}/${pair.network}`, function () {
      it("launches, mints (next id, own URI, chosen id) and lists the holder's token ids", async function () {
        const owner = await funded(pair);
        const collector = remember(service.createWallet(pair));
        const contract = await launchErc721(pair, owner, "https://example.test/nft/");
        const signer = { sender: owner.address, privateKey: owner.privateKey };

        const first = await service.mint({
          ...pair,
          type: "SERVICE_ERC721",
          contractAddress: contract,
          to: collector.address,
          ...signer,
        });
        expect(first).to.include({ type: "ERC721", status: "pending", to: collector.address });
        await expectMined(service, pair, first.transactionHash);
        expect(await service.mintedTokenId({ ...pair, transactionHash: first.transactionHash, contractAddress: contract })).to.equal("1");

        const own = await service.mint({
          ...pair,
          type: "erc721",
          contractAddress: contract,
          to: collector.address,
          uri: "ipfs://special.json",
          ...signer,
        });
        await expectMined(service, pair, own.transactionHash);
        expect(await service.mintedTokenId({ ...pair, transactionHash: own.transactionHash, contractAddress: contract })).to.equal("2");

        const chosen = await service.mint({
          ...pair,
          type: "erc721",
          contractAddress: contract,
          to: collector.address,
          tokenId: "10",
          ...signer,
        });
        expect(chosen.tokenId).to.equal("10");
        await expectMined(service, pair, chosen.transactionHash);

        const balance = await service.getTokenBalance({
          ...pair,
          address: collector.address,
          tokenAddress: contract,
          type: "SERVICE_ERC721",
        });
        expect(balance).to.include({ type: "erc721", balance: "3", symbol: "COL", simulated: true, tokenAddress: contract });
        expect(balance.tokenIds).to.deep.equal(["1", "2", "10"]);
        expect(balance.tokenIdsTruncated).to.equal(undefined);

        const uris = await contractOn(pair, contract);
        expect(await uris.getFunction("tokenURI")(1n)).to.equal("https://example.test/nft/1");
        expect(await uris.getFunction("tokenURI")(2n)).to.equal("ipfs://special.json");

        const ownerBalance = await service.getTokenBalance({ ...pair, address: owner.address, tokenAddress: contract, type: "erc721" });
        expect(ownerBalance).to.include({ balance: "0" });
        expect(ownerBalance.tokenIds).to.deep.equal([]);
      });
    });
  }

  describe("an offline wallet as minter and account", function () {
    it("gets the initial supply and the admin role; the sender only pays", async function () {
      const sender = await funded(SEPOLIA);
      const offlineMinter = remember(service.createWallet(SEPOLIA));
      const offlineAccount = remember(service.createWallet(SEPOLIA));
      const contract = await launchErc20(SEPOLIA, sender, {
        name: "Treasury",
        symbol: "TRS",
        initialSupply: "1000",
        totalSupply: "5000",
        minter: offlineMinter.address,
        account: offlineAccount.address.toLowerCase(),
      });
      const holdings = async (address: string) =>
        (await service.getTokenBalance({ ...SEPOLIA, address, tokenAddress: contract, type: "erc20" })).balance;
      expect(await holdings(offlineMinter.address)).to.equal("1000");
      expect(await holdings(sender.address)).to.equal("0");
      expect(await holdings(offlineAccount.address)).to.equal("0");

      const roles = (await contractOn(SEPOLIA, contract)).getFunction("hasRole");
      expect(await roles(DEFAULT_ADMIN_ROLE, offlineAccount.address)).to.equal(true);
      expect(await roles(MINTER_ROLE, offlineAccount.address)).to.equal(true);
      expect(await roles(DEFAULT_ADMIN_ROLE, sender.address)).to.equal(false);
      expect(await roles(MINTER_ROLE, sender.address)).to.equal(false);

      await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc20",
          contractAddress: contract,
          to: sender.address,
          amount: "1",
          sender: sender.address,
          privateKey: sender.privateKey,
        }),
        ErrorCode.NOT_A_MINTER,
        "sender",
        secrets,
      );

      // The account, once it holds gas money, mints within the cap.
      await service.faucet({ ...SEPOLIA, address: offlineAccount.address });
      const minted = await service.mint({
        ...SEPOLIA,
        type: "erc20",
        contractAddress: contract,
        to: offlineAccount.address,
        amount: "4000",
        sender: offlineAccount.address,
        privateKey: offlineAccount.privateKey,
      });
      await expectMined(service, SEPOLIA, minted.transactionHash);
      expect(await holdings(offlineAccount.address)).to.equal("4000");
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

  describe("typed errors", function () {
    let owner: Wallet;
    let erc20: string;
    let erc721: string;

    before(async function () {
      owner = await funded(SEPOLIA);
      erc20 = await launchErc20(SEPOLIA, owner, { name: "Capped", symbol: "CAPD", initialSupply: "90", totalSupply: "100" });
      erc721 = await launchErc721(SEPOLIA, owner);
      const minted = await service.mint({
        ...SEPOLIA,
        type: "erc721",
        contractAddress: erc721,
        to: owner.address,
        tokenId: "5",
        sender: owner.address,
        privateKey: owner.privateKey,
      });
      await expectMined(service, SEPOLIA, minted.transactionHash);
    });

    const launch = (
      token: unknown,
      overrides: Partial<{ chain: string; network: string; type: string; sender: string; privateKey: string }> = {},
    ) => service.launch({ ...SEPOLIA, type: "erc20", token, sender: owner.address, privateKey: owner.privateKey, ...overrides });

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

    it("INSUFFICIENT_FUNDS: refused before sending, with needed and available", async function () {
      const poor = remember(service.createWallet(SEPOLIA));
      const error = await expectServiceError(
        launch({ name: "A", symbol: "A" }, { sender: poor.address, privateKey: poor.privateKey }),
        ErrorCode.INSUFFICIENT_FUNDS,
        "sender",
        secrets,
      );
      expect(error.details).to.include({ available: "0", symbol: "ETH" });
      expect(BigInt(error.details!.needed as string) > 0n).to.equal(true);

      await service.faucet({ ...SEPOLIA, address: poor.address, amount: "1000" });
      const partly = await expectServiceError(
        launch({ name: "A", symbol: "A" }, { sender: poor.address, privateKey: poor.privateKey, type: "erc721" }),
        ErrorCode.INSUFFICIENT_FUNDS,
        "sender",
        secrets,
      );
      expect(partly.details?.available).to.equal("1000");
      const chain = await service.evmChain(resolveNetwork("ethereum", "sepolia"), "read");
      expect(await chain.provider.getTransactionCount(poor.address), "nothing was sent").to.equal(0);
    });

    it("NOT_A_TOKEN_CONTRACT: an address without code, or a contract of the other standard", async function () {
      const eoa = service.createWallet(SEPOLIA).address;
      const first = await expectServiceError(
        service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: [erc20, eoa] }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "erc20TokenContractAddresses",
      );
      expect(first.details).to.deep.equal({ contractAddress: eoa });
      expect(first.message).to.include(eoa);
      await expectServiceError(
        service.getBalances({ ...SEPOLIA, address: owner.address, erc20TokenContractAddresses: [erc721] }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "erc20TokenContractAddresses",
      );
      await expectServiceError(
        service.getTokenBalance({ ...SEPOLIA, address: owner.address, tokenAddress: erc20, type: "erc721" }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "tokenAddress",
      );
      await expectServiceError(
        service.getTokenBalance({ ...SEPOLIA, address: owner.address, tokenAddress: eoa, type: "erc20" }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "tokenAddress",
      );
      await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc721",
          contractAddress: erc20,
          to: owner.address,
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
        secrets,
      );
      await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc20",
          contractAddress: erc721,
          to: owner.address,
          amount: "1",
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
        secrets,
      );
    });

    it("NOT_A_MINTER: an ERC721 mint signed by an address without the role", async function () {
      const outsider = await funded(SEPOLIA);
      await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc721",
          contractAddress: erc721,
          to: outsider.address,
          sender: outsider.address,
          privateKey: outsider.privateKey,
        }),
        ErrorCode.NOT_A_MINTER,
        "sender",
        secrets,
      );
    });

    it("CAP_EXCEEDED: with the cap, the supply and what is still mintable", async function () {
      const error = await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc20",
          contractAddress: erc20,
          to: owner.address,
          amount: "11",
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.CAP_EXCEEDED,
        "amount",
        secrets,
      );
      expect(error.details).to.deep.equal({ cap: "100", totalSupply: "90", mintable: "10" });
    });

    it("TOKEN_ID_TAKEN: minting an id that exists", async function () {
      await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc721",
          contractAddress: erc721,
          to: owner.address,
          tokenId: 5,
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.TOKEN_ID_TAKEN,
        "tokenId",
        secrets,
      );
    });

    it("INVALID_ARGUMENT: ERC20-only and ERC721-only mint fields on the wrong standard", async function () {
      const signer = { sender: owner.address, privateKey: owner.privateKey };
      await expectServiceError(
        service.mint({ ...SEPOLIA, type: "erc20", contractAddress: erc20, to: owner.address, tokenId: "1", amount: "1", ...signer }),
        ErrorCode.INVALID_ARGUMENT,
        "tokenId",
        secrets,
      );
      await expectServiceError(
        service.mint({ ...SEPOLIA, type: "erc20", contractAddress: erc20, to: owner.address, ...signer }),
        ErrorCode.INVALID_ARGUMENT,
        "amount",
        secrets,
      );
      await expectServiceError(
        service.mint({ ...SEPOLIA, type: "erc721", contractAddress: erc721, to: owner.address, amount: "1", ...signer }),
        ErrorCode.INVALID_ARGUMENT,
        "amount",
        secrets,
      );
    });

    it("WOULD_REVERT: a mint the chain would revert (an ERC721 to a contract that cannot receive it), named, nothing sent", async function () {
      const chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
      const nonce = await chain.provider.getTransactionCount(owner.address, "pending");
      const error = await expectServiceError(
        service.mint({
          ...SEPOLIA,
          type: "erc721",
          contractAddress: erc721,
          to: erc20,
          sender: owner.address,
          privateKey: owner.privateKey,
        }),
        ErrorCode.WOULD_REVERT,
        undefined,
        secrets,
      );
      expect(error.details).to.deep.equal({ error: "ERC721InvalidReceiver", args: { receiver: getAddress(erc20) } });
      expect(error.message).to.include(`ERC721InvalidReceiver(receiver: ${getAddress(erc20)})`);
      expect(await chain.provider.getTransactionCount(owner.address, "pending"), "nothing was signed or sent").to.equal(nonce);
    });

    it("TRANSACTION_NOT_FOUND: a hash the chain does not know", async function () {
      const hash = `0x${"ab".repeat(32)}`;
      await expectServiceError(
        service.getTransaction({ ...SEPOLIA, transactionHash: hash }),
        ErrorCode.TRANSACTION_NOT_FOUND,
        "transactionHash",
      );
    });

    it("BACKEND_NOT_CONFIGURED: a bitcoin regtest balance or faucet with no bitcoind configured", async function () {
      const regtest = service.createWallet({ chain: "bitcoin", network: "regtest" }).address;
      const error = await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "regtest", address: regtest }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
      );
      expect(error.message).to.include("TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST");
      await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "regtest", address: regtest }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
      );
    });

    it("LIVE_NETWORK_FAUCET: the faucet on a live bitcoin network", async function () {
      for (const network of ["mainnet", "testnet", "signet"]) {
        const address = service.createWallet({ chain: "bitcoin", network }).address;
        await expectServiceError(service.faucet({ chain: "bitcoin", network, address }), ErrorCode.LIVE_NETWORK_FAUCET, "network");
      }
    });

    it("UPSTREAM_UNAVAILABLE: a pair pointed at a port nothing listens on", async function () {
      const port = await closedPort();
      const down = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/holesky": `http://127.0.0.1:${port}/secret-api-key` } });
      try {
        expect(down.networks().find((entry) => entry.network === "holesky")).to.include({ simulated: false, backend: "json-rpc" });
        const error = await expectServiceError(
          down.getBalances({ chain: "ethereum", network: "holesky", address: owner.address }),
          ErrorCode.UPSTREAM_UNAVAILABLE,
          undefined,
        );
        expect(error.message).not.to.include("secret-api-key");
        // Not cached: the next call tries again (and fails the same way).
        await expectServiceError(
          down.getBalances({ chain: "ethereum", network: "holesky", address: owner.address }),
          ErrorCode.UPSTREAM_UNAVAILABLE,
          undefined,
        );
      } finally {
        await down.close();
      }
    });

    it("no error, in any form, ever contains a private key", async function () {
      expect(secrets.length).to.be.greaterThan(10);
      // A key given for the wrong sender, a malformed key and a key on an unfunded sender: three paths that hold the key.
      const stray = EthersWallet.createRandom();
      const attempts = [
        () => launch({ name: "A", symbol: "A" }, { privateKey: stray.privateKey }),
        () => launch({ name: "A", symbol: "A" }, { privateKey: stray.privateKey.slice(2) }),
        () => launch({ name: "A", symbol: "A" }, { privateKey: `${stray.privateKey}00` }),
        () => launch({ name: "A", symbol: "A" }, { sender: stray.address, privateKey: stray.privateKey }),
        () =>
          service.mint({
            ...SEPOLIA,
            type: "erc20",
            contractAddress: erc20,
            to: owner.address,
            amount: "1",
            sender: stray.address,
            privateKey: stray.privateKey,
          }),
      ];
      for (const attempt of attempts) {
        const error = await attempt().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, "each attempt fails").to.not.equal(undefined);
        expectNoSecret(error, [...secrets, stray.privateKey]);
      }
    });
  });
});
