import { expect } from "chai";
import { type JsonRpcApiProvider, getCreateAddress } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../src/api.js";
import type { EvmChain } from "../src/evm/chain.js";
import { ErrorCode, isTokenServiceError } from "../src/errors.js";
import { sendTransaction, type BroadcastHooks, type SignedTransactionInfo } from "../src/evm/send-transaction.js";
import { InProcessSenderLock, senderLockKey } from "../src/evm/sender-lock.js";
import { fundedWallet, type Pair } from "./helpers/service.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
/** Creation code that deploys an empty contract: 0x00 returned as runtime code. */
const DEPLOY = "0x600a600c600039600a6000f3602a60005260206000f3";
/** Creation code that reverts. */
const REVERTS = "0x60006000fd";

describe("sends from one sender, in batches inside the sender lock", function () {
  let service: TokenService;
  let chain: EvmChain;

  before(async function () {
    service = await createTokenService({ hre, env: {} });
    chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
  });

  after(async function () {
    await service.close();
  });

  /**
   * Sends `datas` from `wallet` as one batch: the sender lock is held while they queue, so they all wait for it and
   * the batch takes them together when it is released.
   */
  async function oneBatch(
    wallet: { address: string; privateKey: string },
    datas: string[],
    hooks: (index: number) => BroadcastHooks = () => ({}),
  ): Promise<Array<PromiseSettledResult<SignedTransactionInfo>>> {
    const lock = new InProcessSenderLock();
    let release!: () => void;
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const held = lock.withLock(
      senderLockKey(chain.info.chainId, wallet.address),
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          entered();
        }),
    );
    await holding;
    const sends = datas.map((data, index) =>
      sendTransaction(chain, lock, { sender: wallet.address, privateKey: wallet.privateKey, data }, hooks(index)),
    );
    release();
    await held;
    return Promise.allSettled(sends);
  }

  const nonceOf = (address: string, tag: "latest" | "pending") => chain.provider.getTransactionCount(address, tag);

  async function expectMinedInOrder(sent: SignedTransactionInfo[]): Promise<void> {
    for (const info of sent) {
      const receipt = await chain.provider.getTransactionReceipt(info.transactionHash);
      expect(receipt?.status, `nonce ${info.nonce}`).to.equal(1);
    }
  }

  it("gives a batch consecutive nonces; a send that would revert takes none, and every other one is mined", async function () {
    const wallet = await fundedWallet(service, SEPOLIA);
    const results = await oneBatch(wallet, [DEPLOY, DEPLOY, REVERTS, DEPLOY, DEPLOY]);
    expect(results.map((result) => result.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const reverted = (results[2] as PromiseRejectedResult).reason;
    expect(isTokenServiceError(reverted, ErrorCode.TRANSACTION_REJECTED), String(reverted)).to.equal(true);
    const sent = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    expect(sent.map((info) => info.nonce)).to.deep.equal([0, 1, 2, 3]);
    await expectMinedInOrder(sent);
    expect(await nonceOf(wallet.address, "latest")).to.equal(4);
    for (const info of sent)
      expect(await chain.provider.getCode(getCreateAddress({ from: wallet.address, nonce: info.nonce }))).to.not.equal("0x");
  });

  it("counts what the sends before it may spend: the ones the balance cannot cover are refused before signing", async function () {
    const wallet = service.createWallet(SEPOLIA);
    const [probe] = await oneBatch(wallet, [DEPLOY]);
    const needed = BigInt((probe as PromiseRejectedResult).reason.details.needed as string);
    // Enough for two and a half sends at the most each may cost; no block is mined before the batch, so fees stay.
    await service.faucet({ ...SEPOLIA, address: wallet.address, amount: ((needed * 5n) / 2n).toString() });
    const results = await oneBatch(wallet, [DEPLOY, DEPLOY, DEPLOY, DEPLOY]);
    expect(results.map((result) => result.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected", "rejected"]);
    for (const result of results.slice(2)) {
      const error = (result as PromiseRejectedResult).reason;
      expect(isTokenServiceError(error, ErrorCode.INSUFFICIENT_FUNDS), String(error)).to.equal(true);
      expect(error.message).to.match(/left after the sends queued before this one/);
      expect(BigInt(error.details.available as string) < needed).to.equal(true);
    }
    const sent = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    expect(sent.map((info) => info.nonce)).to.deep.equal([0, 1]);
    await expectMinedInOrder(sent);
    expect(await nonceOf(wallet.address, "pending")).to.equal(2);
  });

  it("sends none of a batch's later nonces once the node refuses one, so none is left waiting for a gap", async function () {
    const wallet = await fundedWallet(service, SEPOLIA);
    const results = await oneBatch(wallet, [DEPLOY, DEPLOY, DEPLOY], (index) =>
      index === 0
        ? // Between signing and broadcasting, the sender's funds go: the node refuses the first send.
          {
            beforeBroadcast: async () =>
              void (await (chain.provider as JsonRpcApiProvider).send("hardhat_setBalance", [wallet.address, "0x0"])),
          }
        : {},
    );
    expect(results.map((result) => result.status)).to.deep.equal(["rejected", "rejected", "rejected"]);
    const [refused, ...notSent] = results.map((result) => (result as PromiseRejectedResult).reason);
    expect(isTokenServiceError(refused, ErrorCode.INSUFFICIENT_FUNDS), String(refused)).to.equal(true);
    for (const error of notSent) {
      expect(isTokenServiceError(error, ErrorCode.TRANSACTION_REJECTED), String(error)).to.equal(true);
      expect(error.message).to.match(/not sent: the transaction before it from .* \(nonce 0\) was refused/);
    }
    expect(await nonceOf(wallet.address, "pending"), "nothing waits in the node's pool").to.equal(0);

    await service.faucet({ ...SEPOLIA, address: wallet.address });
    const [again] = await oneBatch(wallet, [DEPLOY]);
    expect(again!.status).to.equal("fulfilled");
    const info = (again as PromiseFulfilledResult<SignedTransactionInfo>).value;
    expect(info.nonce, "the refused nonce is used again").to.equal(0);
    await expectMinedInOrder([info]);
  });

  it("sends none of the later nonces when a record cannot be written, and the earlier ones are mined", async function () {
    const wallet = await fundedWallet(service, SEPOLIA);
    const broadcast: number[] = [];
    const results = await oneBatch(wallet, [DEPLOY, DEPLOY, DEPLOY, DEPLOY], (index) => ({
      beforeBroadcast: async (info) => {
        if (index === 1) throw new Error("the store is unreachable");
        broadcast.push(info.nonce);
      },
    }));
    expect(results.map((result) => result.status)).to.deep.equal(["fulfilled", "rejected", "rejected", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason.message).to.equal("the store is unreachable");
    for (const result of results.slice(2)) {
      expect((result as PromiseRejectedResult).reason.message).to.match(/\(nonce 1\) could not be recorded/);
    }
    await expectMinedInOrder([(results[0] as PromiseFulfilledResult<SignedTransactionInfo>).value]);
    expect(await nonceOf(wallet.address, "pending")).to.equal(1);
  });
});
