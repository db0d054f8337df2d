import { expect } from "chai";
import { Contract, Wallet as EthersWallet, parseEther } from "ethers";

import type { TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import type { Wallet } from "../../src/core/wallets.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectOperationMined } from "../helpers/service.js";
import { deployTestToken } from "../helpers/test-tokens.js";
import { SEPOLIA, environments, expectRefusedBeforeSigning, type Environment } from "../helpers/write-environments.js";

const erc20 = ["function balanceOf(address) view returns (uint256)", "function allowance(address, address) view returns (uint256)"];
const erc721 = [
  "function ownerOf(uint256) view returns (address)",
  "function getApproved(uint256) view returns (address)",
  "function isApprovedForAll(address, address) view returns (bool)",
];
const erc1155 = [
  "function balanceOf(address, uint256) view returns (uint256)",
  "function isApprovedForAll(address, address) view returns (bool)",
];

for (const environment of environments) {
  describe(`transfers, approvals and token reads on ${environment.name}`, function () {
    let env: Environment;
    let service: TokenService;
    let owner: Wallet;
    let recipient: Wallet;
    let spender: Wallet;
    let gold: string;
    let art: string;
    let items: Awaited<ReturnType<typeof deployTestToken>>;
    let pausable: Awaited<ReturnType<typeof deployTestToken>>;
    let plain: Awaited<ReturnType<typeof deployTestToken>>;
    let noReceiver: string;

    const as = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });
    const nonceOf = (address: string) => env.node.getTransactionCount(address, "pending");

    /** Runs a write that must be refused before anything is signed: no nonce used, no record written. */
    const refusedBeforeSigning = (action: () => Promise<unknown>, code: ErrorCode, field: string | undefined) =>
      expectRefusedBeforeSigning(env, owner.address, action, code, field, [owner.privateKey]);

    before(async function () {
      this.timeout(240_000);
      env = await environment.start();
      service = env.service;
      // One after the other: on anvil, one account funds them all.
      owner = await env.funded("10");
      recipient = await env.funded("1");
      spender = await env.funded("1");

      const launch = async (type: string, token: Record<string, unknown>) => {
        const launched = await service.launch({ ...SEPOLIA, type, token, ...as(owner) });
        await expectOperationMined(service, launched);
        return launched.contractAddress;
      };
      gold = await launch("SERVICE_ERC20", { name: "Gold", symbol: "GLD", initialSupply: parseEther("1000").toString() });
      art = await launch("SERVICE_ERC721", { name: "Art", symbol: "ART", uri: "ipfs://art/" });
      for (let index = 0; index < 6; index++) {
        await expectOperationMined(
          service,
          await service.mint({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: owner.address, ...as(owner) }),
        );
      }
      items = await deployTestToken("TestERC1155", env.deployer);
      await (await items.mint(owner.address, 7n, 100n)).wait();
      pausable = await deployTestToken("TestPausableERC20", env.deployer, 1_000n);
      await (await pausable.transfer(owner.address, 500n)).wait();
      await (await pausable.pause()).wait();
      plain = await deployTestToken("TestPlainERC721", env.deployer);
      for (const id of [12n, 5n, 9n]) await (await plain.mint(owner.address, id)).wait();
      noReceiver = await (await deployTestToken("TestNoReceiver", env.deployer)).getAddress();
    });

    after(async function () {
      await env?.close();
    });

    it("moves native currency: the recipient gains the amount, the sender pays it and the fee", async function () {
      const amount = parseEther("1.5");
      const [senderBefore, recipientBefore] = await Promise.all([
        env.node.getBalance(owner.address),
        env.node.getBalance(recipient.address),
      ]);
      const sent = await service.transfer({ ...SEPOLIA, type: "native", to: recipient.address, amount: amount.toString(), ...as(owner) });
      expect(sent).to.include({
        type: "NATIVE",
        to: recipient.address,
        amount: amount.toString(),
        sender: owner.address,
        status: "pending",
      });
      expect(sent).not.to.have.property("contractAddress");
      const record = await expectOperationMined(service, sent);
      expect(record).to.include({ kind: "transfer", tokenType: "NATIVE", contractAddress: null, sender: owner.address, nonce: sent.nonce });
      expect(record.params).to.deep.equal({ to: recipient.address, amount: amount.toString(), decimals: 18 });
      // What an idempotent retry after a crash is answered, rebuilt from the record: the answer the transfer settled to.
      const settled = await service.operations.settle(sent, 1_000);
      expect(service.operations.outcomeOf(record)).to.deep.equal(settled);

      const receipt = (await env.node.getTransactionReceipt(sent.transactionHash))!;
      const transaction = (await env.node.getTransaction(sent.transactionHash))!;
      expect(transaction.value).to.equal(amount);
      expect(transaction.to).to.equal(recipient.address);
      expect(await env.node.getBalance(recipient.address)).to.equal(recipientBefore + amount);
      expect(await env.node.getBalance(owner.address)).to.equal(senderBefore - amount - receipt.gasUsed * receipt.gasPrice);
    });

    it("moves ERC20, ERC721 and ERC1155 tokens, as ethers reads them back from the node", async function () {
      const gldAmount = parseEther("12.5");
      const erc20Sent = await service.transfer({
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: gold,
        to: recipient.address,
        amount: gldAmount.toString(),
        ...as(owner),
      });
      const nftSent = await service.transfer({
        ...SEPOLIA,
        type: "erc721",
        contractAddress: art,
        to: recipient.address,
        tokenId: "2",
        ...as(owner),
      });
      const itemsAddress = await items.getAddress();
      const itemSent = await service.transfer({
        ...SEPOLIA,
        type: "ERC1155",
        contractAddress: itemsAddress,
        to: recipient.address,
        tokenId: "7",
        amount: "30",
        ...as(owner),
      });
      for (const sent of [erc20Sent, nftSent, itemSent]) await expectOperationMined(service, sent);
      expect(new Set([erc20Sent.nonce, nftSent.nonce, itemSent.nonce]).size).to.equal(3);

      const goldOnNode = new Contract(gold, erc20, env.node);
      expect(await goldOnNode.getFunction("balanceOf")(recipient.address)).to.equal(gldAmount);
      expect(await goldOnNode.getFunction("balanceOf")(owner.address)).to.equal(parseEther("1000") - gldAmount);
      expect(await new Contract(art, erc721, env.node).getFunction("ownerOf")(2n)).to.equal(recipient.address);
      const itemsOnNode = new Contract(itemsAddress, erc1155, env.node);
      expect(await itemsOnNode.getFunction("balanceOf")(recipient.address, 7n)).to.equal(30n);
      expect(await itemsOnNode.getFunction("balanceOf")(owner.address, 7n)).to.equal(70n);

      expect(nftSent).to.include({ type: "ERC721", contractAddress: art, tokenId: "2" });
      expect(nftSent).not.to.have.property("amount");
      expect(itemSent).to.include({ type: "ERC1155", tokenId: "7", amount: "30" });
      const record = await service.operations.store.getOperation(itemSent.id);
      expect(record?.params).to.deep.equal({ contractAddress: itemsAddress, to: recipient.address, tokenId: "7", amount: "30" });
    });

    it("approves spenders, and the allowance read agrees with the node", async function () {
      const itemsAddress = await items.getAddress();
      const approvals = [
        await service.approve({ ...SEPOLIA, type: "ERC20", contractAddress: gold, spender: spender.address, amount: "500", ...as(owner) }),
        await service.approve({ ...SEPOLIA, type: "ERC721", contractAddress: art, spender: spender.address, tokenId: "1", ...as(owner) }),
        await service.approve({ ...SEPOLIA, type: "ERC721", contractAddress: art, spender: spender.address, all: true, ...as(owner) }),
        await service.approve({
          ...SEPOLIA,
          type: "ERC1155",
          contractAddress: itemsAddress,
          spender: spender.address,
          all: true,
          ...as(owner),
        }),
      ];
      for (const approval of approvals) {
        const record = await expectOperationMined(service, approval);
        expect(record.kind).to.equal("approve");
      }
      expect(approvals[0]).to.include({ type: "ERC20", spender: spender.address, amount: "500" });
      expect(approvals[2]).to.include({ type: "ERC721", all: true });

      expect(await new Contract(gold, erc20, env.node).getFunction("allowance")(owner.address, spender.address)).to.equal(500n);
      const artOnNode = new Contract(art, erc721, env.node);
      expect(await artOnNode.getFunction("getApproved")(1n)).to.equal(spender.address);
      expect(await artOnNode.getFunction("isApprovedForAll")(owner.address, spender.address)).to.equal(true);
      expect(await new Contract(itemsAddress, erc1155, env.node).getFunction("isApprovedForAll")(owner.address, spender.address)).to.equal(
        true,
      );

      const read = (type: string, contractAddress: string, extra: Record<string, string> = {}) =>
        service.getAllowance({ ...SEPOLIA, type, contractAddress, owner: owner.address, spender: spender.address, ...extra });
      expect(await read("erc20", gold)).to.deep.equal({
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: gold,
        owner: owner.address,
        spender: spender.address,
        allowance: "500",
        simulated: environment.name === "the simulated chain",
      });
      expect(await read("ERC721", art, { tokenId: "1" })).to.include({ tokenId: "1", approved: true, isApprovedForAll: true });
      expect(await read("ERC721", art, { tokenId: "3" })).to.include({ tokenId: "3", approved: false });
      expect(await read("ERC1155", itemsAddress)).to.include({ isApprovedForAll: true });

      // Revoked: all false, and an ERC20 allowance of 0.
      await expectOperationMined(
        service,
        await service.approve({
          ...SEPOLIA,
          type: "ERC1155",
          contractAddress: itemsAddress,
          spender: spender.address,
          all: false,
          ...as(owner),
        }),
      );
      await expectOperationMined(
        service,
        await service.approve({ ...SEPOLIA, type: "ERC20", contractAddress: gold, spender: spender.address, amount: "0", ...as(owner) }),
      );
      expect(await read("ERC1155", itemsAddress)).to.include({ isApprovedForAll: false });
      expect(await read("ERC20", gold)).to.include({ allowance: "0" });
      await expectServiceError(read("ERC721", art, { tokenId: "999" }), ErrorCode.NOT_TOKEN_OWNER, "tokenId");
    });

    it("refuses, before signing, a write the token would revert, naming the reason", async function () {
      const itemsAddress = await items.getAddress();
      const tooMuch = await refusedBeforeSigning(
        () =>
          service.transfer({
            ...SEPOLIA,
            type: "ERC20",
            contractAddress: gold,
            to: recipient.address,
            amount: parseEther("5000").toString(),
            ...as(owner),
          }),
        ErrorCode.INSUFFICIENT_TOKEN_BALANCE,
        "amount",
      );
      expect(tooMuch.details).to.include({ reason: "ERC20InsufficientBalance", needed: parseEther("5000").toString() });
      expect(tooMuch.message).to.include("ERC20InsufficientBalance");

      const notOwned = await refusedBeforeSigning(
        () => service.transfer({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: spender.address, tokenId: "2", ...as(owner) }),
        ErrorCode.NOT_TOKEN_OWNER,
        "tokenId",
      );
      expect(notOwned.details).to.deep.equal({ reason: "ERC721IncorrectOwner", owner: recipient.address });
      const missing = await refusedBeforeSigning(
        () => service.transfer({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: spender.address, tokenId: "999", ...as(owner) }),
        ErrorCode.NOT_TOKEN_OWNER,
        "tokenId",
      );
      expect(missing.details).to.deep.equal({ reason: "ERC721NonexistentToken" });
      const notApprover = await refusedBeforeSigning(
        () => service.approve({ ...SEPOLIA, type: "ERC721", contractAddress: art, spender: spender.address, tokenId: "2", ...as(owner) }),
        ErrorCode.NOT_TOKEN_OWNER,
        "tokenId",
      );
      expect(notApprover.details).to.include({ reason: "ERC721InvalidApprover" });

      const fewItems = await refusedBeforeSigning(
        () =>
          service.transfer({
            ...SEPOLIA,
            type: "ERC1155",
            contractAddress: itemsAddress,
            to: recipient.address,
            tokenId: "7",
            amount: "71",
            ...as(owner),
          }),
        ErrorCode.INSUFFICIENT_TOKEN_BALANCE,
        "amount",
      );
      expect(fewItems.details).to.include({ reason: "ERC1155InsufficientBalance", balance: "70" });
      await refusedBeforeSigning(
        () =>
          service.transfer({
            ...SEPOLIA,
            type: "ERC1155",
            contractAddress: itemsAddress,
            to: recipient.address,
            tokenId: "8",
            amount: "1",
            ...as(owner),
          }),
        ErrorCode.NOT_TOKEN_OWNER,
        "tokenId",
      );
      const broke = await refusedBeforeSigning(
        () => service.transfer({ ...SEPOLIA, type: "NATIVE", to: recipient.address, amount: parseEther("1000").toString(), ...as(owner) }),
        ErrorCode.INSUFFICIENT_FUNDS,
        "amount",
      );
      expect(broke.details).to.include({ needed: parseEther("1000").toString(), symbol: "ETH" });
      // All of it, with nothing left for the fee: the pipeline's funds check counts the value with the fee.
      const everything = (await env.node.getBalance(owner.address, "pending")).toString();
      const feeOnTop = await refusedBeforeSigning(
        () => service.transfer({ ...SEPOLIA, type: "NATIVE", to: recipient.address, amount: everything, ...as(owner) }),
        ErrorCode.INSUFFICIENT_FUNDS,
        "sender",
      );
      expect(BigInt(feeOnTop.details!.needed as string) > BigInt(everything)).to.equal(true);
      // An ERC721 contract is not an ERC20, nor a wallet a token.
      await refusedBeforeSigning(
        () => service.transfer({ ...SEPOLIA, type: "ERC20", contractAddress: art, to: recipient.address, amount: "1", ...as(owner) }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
      );
      await refusedBeforeSigning(
        () =>
          service.transfer({
            ...SEPOLIA,
            type: "ERC721",
            contractAddress: spender.address,
            to: recipient.address,
            tokenId: "1",
            ...as(owner),
          }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
      );
      // What no cheap read finds, the node's estimate does (a paused token; a contract that takes no tokens); the generic
      // revert decoding names the error where it is built (WOULD_REVERT), TRANSACTION_REJECTED until then.
      const pausableAddress = await pausable.getAddress();
      for (const write of [
        () =>
          service.transfer({
            ...SEPOLIA,
            type: "ERC20",
            contractAddress: pausableAddress,
            to: recipient.address,
            amount: "5",
            ...as(owner),
          }),
        () => service.transfer({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: noReceiver, tokenId: "3", ...as(owner) }),
      ]) {
        const [nonce, records] = [await nonceOf(owner.address), env.store.inserted.length];
        const error = await write().then(
          () => undefined,
          (refusal: unknown) => refusal as { code?: string },
        );
        expect(["WOULD_REVERT", "TRANSACTION_REJECTED"]).to.include(error?.code);
        expect(await nonceOf(owner.address)).to.equal(nonce);
        expect(env.store.inserted.length).to.equal(records);
      }
    });

    it("reads a token's metadata and what it supports", async function () {
      const simulated = environment.name === "the simulated chain";
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: gold })).to.deep.equal({
        ...SEPOLIA,
        contractAddress: gold,
        type: "ERC20",
        name: "Gold",
        symbol: "GLD",
        decimals: 18,
        totalSupply: parseEther("1000").toString(),
        // An uncapped launch's cap is the largest uint256.
        cap: ((1n << 256n) - 1n).toString(),
        features: ["accessControl", "capped", "mintable"],
        simulated,
      });
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: art })).to.deep.equal({
        ...SEPOLIA,
        contractAddress: art,
        type: "ERC721",
        name: "Art",
        symbol: "ART",
        totalSupply: "6",
        features: ["accessControl", "enumerable", "metadata", "mintable"],
        simulated,
      });
      const pausableAddress = await pausable.getAddress();
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: pausableAddress })).to.include({
        type: "ERC20",
        symbol: "PSE",
        decimals: 18,
        totalSupply: "1000",
        paused: true,
      });
      expect((await service.getTokenInfo({ ...SEPOLIA, contractAddress: pausableAddress })).features).to.deep.equal(["pausable"]);
      const itemsInfo = await service.getTokenInfo({ ...SEPOLIA, contractAddress: await items.getAddress() });
      expect(itemsInfo).to.include({ type: "ERC1155" });
      expect(itemsInfo.features).to.deep.equal(["metadata"]);
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: await plain.getAddress() })).to.deep.include({
        type: "ERC721",
        name: "Plain",
        features: ["metadata"],
      });
      await expectServiceError(
        service.getTokenInfo({ ...SEPOLIA, contractAddress: owner.address }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
      );
      await expectServiceError(
        service.getTokenInfo({ ...SEPOLIA, contractAddress: noReceiver }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
      );
    });

    it("pages an owner's ERC721 ids with a cursor that survives transfers, enumerable or not", async function () {
      const page = (contractAddress: string, cursor?: string, limit = 2) =>
        service.listOwnedTokens({ ...SEPOLIA, contractAddress, owner: owner.address, limit, ...(cursor ? { cursor } : {}) });
      // The owner holds 1, 3, 4, 5, 6 of Art (2 went to the recipient).
      const first = await page(art);
      expect(first).to.include({ balance: "5", source: "enumerable" });
      expect(first.tokenIds).to.deep.equal(["1", "3"]);
      // A transfer between pages: the next page starts after 3 all the same, and the id gone is not on it.
      await expectOperationMined(
        service,
        await service.transfer({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: recipient.address, tokenId: "4", ...as(owner) }),
      );
      const second = await page(art, first.nextCursor!);
      expect(second.tokenIds).to.deep.equal(["5", "6"]);
      expect(second.nextCursor).to.equal(null);
      expect((await page(art, undefined, 100)).tokenIds).to.deep.equal(["1", "3", "5", "6"]);

      const plainAddress = await plain.getAddress();
      await expectOperationMined(
        service,
        await service.transfer({
          ...SEPOLIA,
          type: "ERC721",
          contractAddress: plainAddress,
          to: recipient.address,
          tokenId: "9",
          ...as(owner),
        }),
      );
      const logs = await page(plainAddress, undefined, 1);
      expect(logs).to.include({ balance: "2", source: "transfer-logs" });
      expect(logs.tokenIds).to.deep.equal(["5"]);
      expect((await page(plainAddress, logs.nextCursor!, 1)).tokenIds).to.deep.equal(["12"]);
      const theirs = await service.listOwnedTokens({ ...SEPOLIA, contractAddress: plainAddress, owner: recipient.address });
      expect(theirs.tokenIds).to.deep.equal(["9"]);

      await expectServiceError(page(art, "not-a-cursor"), ErrorCode.INVALID_ARGUMENT, "cursor");
      await expectServiceError(page(gold), ErrorCode.NOT_A_TOKEN_CONTRACT, "contractAddress");
    });

    it("pages an owner's ERC1155 ids with their amounts, from single and batch transfer logs, as the node holds them", async function () {
      const itemsAddress = await items.getAddress();
      const collector = EthersWallet.createRandom().address;
      const deployer = await env.deployer.getAddress();
      // TransferSingle to the collector (a mint), TransferBatch to it (a batch sent by the deployer), and an id it
      // received and sent on, which it no longer holds.
      await (await items.mint(collector, 3n, 4n)).wait();
      for (const id of [20n, 21n]) await (await items.mint(deployer, id, 50n)).wait();
      await (await items.safeBatchTransferFrom(deployer, collector, [20n, 21n], [5n, 6n], "0x")).wait();
      await (await items.mint(owner.address, 40n, 10n)).wait();
      await expectOperationMined(
        service,
        await service.transfer({
          ...SEPOLIA,
          type: "ERC1155",
          contractAddress: itemsAddress,
          to: collector,
          tokenId: "40",
          amount: "10",
          ...as(owner),
        }),
      );

      const page = (holder: string, cursor?: string, limit = 2) =>
        service.listOwnedTokens({ ...SEPOLIA, contractAddress: itemsAddress, owner: holder, limit, ...(cursor ? { cursor } : {}) });
      const first = await page(collector);
      expect(first).to.include({ type: "ERC1155", balance: "4", source: "transfer-logs" });
      expect(first.tokenIds).to.deep.equal(["3", "20"]);
      expect(first.amounts).to.deep.equal(["4", "5"]);
      const second = await page(collector, first.nextCursor!);
      expect(second.tokenIds).to.deep.equal(["21", "40"]);
      expect(second.amounts).to.deep.equal(["6", "10"]);
      expect(second.nextCursor).to.equal(null);

      // The owner sent all of id 40 on: it is not listed, and every amount listed is what the node answers.
      const theirs = await page(owner.address, undefined, 100);
      expect(theirs.tokenIds).not.to.include("40");
      expect(theirs.tokenIds).to.include("7");
      const itemsOnNode = new Contract(itemsAddress, erc1155, env.node);
      for (const [index, id] of theirs.tokenIds.entries())
        expect(await itemsOnNode.getFunction("balanceOf")(owner.address, BigInt(id))).to.equal(BigInt(theirs.amounts![index]!));

      // An ERC721 listing has no amounts.
      expect(await service.listOwnedTokens({ ...SEPOLIA, contractAddress: art, owner: owner.address }))
        .to.include({ type: "ERC721" })
        .and.not.have.property("amounts");
    });

    it("prepares a native transfer with its value, and takes it back signed by the caller", async function () {
      const amount = parseEther("0.25");
      const body = { ...SEPOLIA, type: "NATIVE", to: spender.address, amount: amount.toString(), sender: owner.address };
      const prepared = await service.prepareTransfer(body);
      expect(prepared.unsignedTransaction).to.include({ to: spender.address, value: amount.toString(), data: "0x" });
      expect(prepared.type).to.equal("NATIVE");
      const signedTransaction = await new EthersWallet(owner.privateKey).signTransaction(prepared.unsignedTransaction);
      const before = await env.node.getBalance(spender.address);
      const sent = await service.transfer({ ...body, signedTransaction });
      expect(sent.nonce).to.equal(prepared.unsignedTransaction.nonce);
      await expectOperationMined(service, sent);
      expect(await env.node.getBalance(spender.address)).to.equal(before + amount);

      // A signed transaction that sends another amount is not the prepared one.
      const again = await service.prepareTransfer(body);
      const tampered = await new EthersWallet(owner.privateKey).signTransaction({ ...again.unsignedTransaction, value: amount + 1n });
      const error = await expectServiceError(
        service.transfer({ ...body, signedTransaction: tampered }),
        ErrorCode.TRANSACTION_MISMATCH,
        "signedTransaction",
      );
      expect(error.details).to.include({ property: "value" });
    });
  });
}
