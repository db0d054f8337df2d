import { expect } from "chai";
import { Wallet as EthersWallet, getAddress, getCreateAddress } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import type { Wallet } from "../../src/core/wallets.js";
import { expectNoSecret, expectServiceError } from "../helpers/errors.js";
import { BSC_TESTNET, DEFAULT_ADMIN_ROLE, MINTER_ROLE, SEPOLIA, useCoreService } from "../helpers/core-service.js";
import { closedPort, expectMined } from "../helpers/service.js";

describe("core (programmatic API on simulated chains)", function () {
  let service: TokenService;
  const { secrets, remember, funded, launchErc20, launchErc721, contractOn, useErrorTokens } = useCoreService(
    (opened) => (service = opened),
  );

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

  describe("typed errors: what the chain's state refuses", function () {
    let owner: Wallet;
    let erc20: string;
    let erc721: string;

    const launch = useErrorTokens((tokens) => ({ owner, erc20, erc721 } = tokens));

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
