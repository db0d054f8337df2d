import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { type JsonRpcApiProvider, Wallet, getCreateAddress, toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import type { EvmChain } from "../../src/chains/evm/chain.js";
import { ErrorCode, isTokenServiceError } from "../../src/domain/errors.js";
import { sendTransaction, waitingSends } from "../../src/chains/evm/write/send-transaction.js";
import type { BroadcastHooks, SignedTransactionInfo } from "../../src/chains/evm/write/send-types.js";
import { InProcessSenderLock, senderLockKey, type SenderLock } from "../../src/chains/evm/sender-lock.js";
import { MAX_BATCH } from "../../src/chains/evm/write/sender-batches.js";
import type { LaunchOutcome } from "../../src/core/operations/operations.js";
import { openStore } from "../../src/store/open-store.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startGatedProxy } from "../helpers/json-rpc-servers.js";
import { until } from "../helpers/until.js";
import { fundedWallet, type Pair } from "../helpers/service.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
/** Creation code that deploys an empty contract: 0x00 returned as runtime code. */
const DEPLOY = "0x600a600c600039600a6000f3602a60005260206000f3";
/** Creation code that reverts. */
const REVERTS = "0x60006000fd";

/** Takes `sender`'s lock and keeps it until the answered function is called (which resolves once it is let go). */
async function holdSenderLock(lock: SenderLock, chain: EvmChain, sender: string): Promise<() => Promise<void>> {
  let release!: () => void;
  let entered!: () => void;
  const holding = new Promise<void>((resolve) => (entered = resolve));
  const held = lock.withLock(
    senderLockKey(chain.info.chainId, sender),
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        entered();
      }),
  );
  await holding;
  return () => {
    release();
    return held;
  };
}

/**
 * The same batches on the simulated chain (signed and recorded at once, broadcast together) and on a live node (anvil:
 * signed and recorded in growing groups while the earlier ones are broadcast, those recorded meanwhile in one JSON-RPC batch).
 */
for (const kind of ["simulated", "anvil"] as const) {
  describe(`sends from one sender, in batches inside the sender lock (${kind})`, function () {
    this.timeout(120_000);
    let service: TokenService;
    let chain: EvmChain;
    let node: AnvilNode | undefined;
    const rpcUrls = () => (node === undefined ? {} : { rpcUrls: { "ethereum/sepolia": node.url } });

    before(async function () {
      if (kind === "anvil") node = await startAnvil();
      service = await createTokenService({ hre, env: {}, ...rpcUrls() });
      chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
    });

    after(async function () {
      await service?.close();
      await node?.stop();
    });

    /** Sets a balance on the node (the faucet serves simulated chains only). */
    const setBalance = (address: string, wei: bigint) =>
      (chain.provider as JsonRpcApiProvider).send(node === undefined ? "hardhat_setBalance" : "anvil_setBalance", [
        address,
        toQuantity(wei),
      ]);
    /** A wallet with funds on `on`'s chain: from the faucet on a simulated one, set on the node on anvil. */
    async function funded(on: TokenService): Promise<{ address: string; privateKey: string }> {
      if (node === undefined) return fundedWallet(on, SEPOLIA);
      const wallet = on.createWallet(SEPOLIA);
      await node.rpc("anvil_setBalance", [wallet.address, toQuantity(10n ** 19n)]);
      return wallet;
    }

    /**
     * Sends `datas` from `wallet` as one batch: the sender lock is held while they queue, so they all wait for it and
     * the batch takes them together when it is released.
     */
    async function oneBatch(
      wallet: { address: string; privateKey: string },
      datas: string[],
      hooks: (index: number) => BroadcastHooks = () => ({}),
      on: EvmChain = chain,
    ): Promise<Array<PromiseSettledResult<SignedTransactionInfo>>> {
      const lock = new InProcessSenderLock();
      const release = await holdSenderLock(lock, on, wallet.address);
      const sends = datas.map((data, index) =>
        sendTransaction(on, lock, { sender: wallet.address, privateKey: wallet.privateKey, data }, hooks(index)),
      );
      await release();
      return Promise.allSettled(sends);
    }

    const nonceOf = (address: string, tag: "latest" | "pending") => chain.provider.getTransactionCount(address, tag);

    async function expectMinedInOrder(sent: SignedTransactionInfo[]): Promise<void> {
      for (const info of sent) {
        // A node that mines on send may answer the broadcast a moment before it serves the receipt.
        const receipt = await chain.provider.waitForTransaction(info.transactionHash, 1, 30_000);
        expect(receipt?.status, `nonce ${info.nonce}`).to.equal(1);
      }
    }

    it("gives a batch consecutive nonces; a send that would revert takes none, and every other one is mined", async function () {
      const wallet = await funded(service);
      const results = await oneBatch(wallet, [DEPLOY, DEPLOY, REVERTS, DEPLOY, DEPLOY]);
      expect(results.map((result) => result.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
      const reverted = (results[2] as PromiseRejectedResult).reason;
      expect(isTokenServiceError(reverted, ErrorCode.WOULD_REVERT), String(reverted)).to.equal(true);
      // revert(0, 0): a revert without data, which names nothing.
      expect(reverted.details).to.deep.equal({ error: null, args: {}, data: "0x" });
      const sent = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      expect(sent.map((info) => info.nonce)).to.deep.equal([0, 1, 2, 3]);
      await expectMinedInOrder(sent);
      expect(await nonceOf(wallet.address, "latest")).to.equal(4);
      for (const info of sent)
        expect(await chain.provider.getCode(getCreateAddress({ from: wallet.address, nonce: info.nonce }))).to.not.equal("0x");
    });

    it("records each send before it is broadcast; on a live node the first ones are broadcast while later ones are signed and recorded", async function () {
      const wallet = await funded(service);
      const count = 16;
      const recordedBefore: number[] = [];
      const results = await oneBatch(
        wallet,
        Array.from({ length: count }, () => DEPLOY),
        (index) => ({
          beforeBroadcast: async (info) => {
            expect(info.nonce).to.equal(index);
            // Not on the node yet: a send is recorded before it is broadcast.
            expect(await chain.provider.getTransaction(info.transactionHash)).to.equal(null);
            // The last one's record waits until the node has the first: were every send recorded before the first
            // broadcast, this would never happen. The simulated chain takes the batch at once, once all are recorded.
            if (kind === "anvil" && index === count - 1)
              await until(
                async () => (await nonceOf(wallet.address, "pending")) > 0,
                "the first send on the node before the last is recorded",
              );
            recordedBefore.push(index);
          },
        }),
      );
      expect(results.every((result) => result.status === "fulfilled")).to.equal(true);
      expect(recordedBefore.sort((a, b) => a - b)).to.deep.equal(Array.from({ length: count }, (_, index) => index));
      await expectMinedInOrder(results.map((result) => (result as PromiseFulfilledResult<SignedTransactionInfo>).value));
    });

    it("counts what the sends before it may spend: the ones the balance cannot cover are refused before signing", async function () {
      const wallet = service.createWallet(SEPOLIA);
      const [probe] = await oneBatch(wallet, [DEPLOY]);
      const needed = BigInt((probe as PromiseRejectedResult).reason.details.needed as string);
      // Enough for two and a half sends at the most each may cost; no block is mined before the batch, so fees stay.
      await setBalance(wallet.address, (needed * 5n) / 2n);
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

    it("leaves none of a batch's later nonces waiting for a gap once the node refuses one", async function () {
      const wallet = await funded(service);
      const results = await oneBatch(wallet, [DEPLOY, DEPLOY, DEPLOY], (index) =>
        index === 0
          ? // Between signing and broadcasting, the sender's funds go: the node refuses the first send.
            {
              beforeBroadcast: async () => void (await setBalance(wallet.address, 0n)),
            }
          : {},
      );
      expect(results.map((result) => result.status)).to.deep.equal(["rejected", "rejected", "rejected"]);
      const [refused, ...notSent] = results.map((result) => (result as PromiseRejectedResult).reason);
      expect(isTokenServiceError(refused, ErrorCode.INSUFFICIENT_FUNDS), String(refused)).to.equal(true);
      for (const error of notSent) {
        // Not sent after it; or, on a live node, sent with it in one JSON-RPC batch and refused by the node for itself.
        if (isTokenServiceError(error, ErrorCode.INSUFFICIENT_FUNDS) && kind === "anvil") continue;
        expect(isTokenServiceError(error, ErrorCode.TRANSACTION_REJECTED), String(error)).to.equal(true);
        expect(error.message).to.match(/not sent: the transaction before it from .* \(nonce 0\) was refused/);
      }
      expect(await nonceOf(wallet.address, "pending"), "nothing waits in the node's pool").to.equal(0);

      await setBalance(wallet.address, 10n ** 19n);
      const [again] = await oneBatch(wallet, [DEPLOY]);
      expect(again!.status).to.equal("fulfilled");
      const info = (again as PromiseFulfilledResult<SignedTransactionInfo>).value;
      expect(info.nonce, "the refused nonce is used again").to.equal(0);
      await expectMinedInOrder([info]);
    });

    it("sends none of the later nonces when a record cannot be written, and the earlier ones are mined", async function () {
      const wallet = await funded(service);
      const results = await oneBatch(wallet, [DEPLOY, DEPLOY, DEPLOY, DEPLOY], (index) => ({
        beforeBroadcast: async () => {
          if (index === 1 || index === 3) throw new Error(`the store refused record ${index}`);
        },
      }));
      expect(results.map((result) => result.status)).to.deep.equal(["fulfilled", "rejected", "rejected", "rejected"]);
      const [, unrecorded, notSent, alsoUnrecorded] = results.map((result) => (result as PromiseRejectedResult).reason);
      expect(unrecorded.message).to.equal("the store refused record 1");
      expect(isTokenServiceError(notSent, ErrorCode.TRANSACTION_REJECTED), String(notSent)).to.equal(true);
      expect(notSent.message).to.match(/not sent: the transaction before it from .* \(nonce 1\) could not be recorded/);
      expect(alsoUnrecorded.message, "a send whose own record failed says so").to.equal("the store refused record 3");
      await expectMinedInOrder([(results[0] as PromiseFulfilledResult<SignedTransactionInfo>).value]);
      expect(await nonceOf(wallet.address, "pending")).to.equal(1);
    });

    it("takes more sends than a batch holds in one hold of the lock: consecutive nonces across its batches, all mined", async function () {
      const wallet = await funded(service);
      const results = await oneBatch(
        wallet,
        Array.from({ length: MAX_BATCH + 3 }, () => DEPLOY),
      );
      expect(results.every((result) => result.status === "fulfilled")).to.equal(true);
      const sent = results.map((result) => (result as PromiseFulfilledResult<SignedTransactionInfo>).value);
      expect(sent.map((info) => info.nonce)).to.deep.equal(Array.from({ length: MAX_BATCH + 3 }, (_, index) => index));
      await expectMinedInOrder(sent);
      expect(await nonceOf(wallet.address, "latest")).to.equal(MAX_BATCH + 3);
    });

    if (kind === "anvil") {
      /**
       * A service whose node holds every broadcast until the test lets them through, and the chain it sends on: what the
       * service does while its first broadcasts wait is seen without racing the node.
       */
      async function gatedChain(): Promise<{ chain: EvmChain; open(): void; close(): Promise<void> }> {
        const gate = await startGatedProxy(node!.url, "eth_sendRawTransaction");
        const gated = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": gate.url } });
        return {
          chain: await gated.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read"),
          open: gate.open,
          async close() {
            await gated.close();
            await gate.close();
          },
        };
      }

      it("plans a hold's second batch while the first one's broadcasts wait, and counts what they may cost as spent", async function () {
        const wallet = service.createWallet(SEPOLIA);
        const [probe] = await oneBatch(wallet, [DEPLOY]);
        const needed = BigInt((probe as PromiseRejectedResult).reason.details.needed as string);
        // Enough for a batch and one and a half sends more; nothing is mined before the second batch reads the balance.
        await setBalance(wallet.address, needed * BigInt(MAX_BATCH + 1) + needed / 2n);
        const gated = await gatedChain();
        try {
          let nodeNonceAtSecondBatch: number | undefined;
          const sending = oneBatch(
            wallet,
            Array.from({ length: MAX_BATCH + 2 }, () => DEPLOY),
            (index) =>
              index === MAX_BATCH
                ? {
                    beforeBroadcast: async () => {
                      nodeNonceAtSecondBatch = await nonceOf(wallet.address, "pending");
                      gated.open();
                    },
                  }
                : {},
            gated.chain,
          );
          // Were the second batch planned only once the first was broadcast, its record would wait for the gate forever.
          await until(() => nodeNonceAtSecondBatch !== undefined, "the second batch's first record, the first batch's broadcasts held");
          expect(nodeNonceAtSecondBatch, "the node had none of the first batch yet").to.equal(0);
          const results = await sending;
          expect(results.slice(0, MAX_BATCH + 1).every((result) => result.status === "fulfilled")).to.equal(true);
          const refused = (results[MAX_BATCH + 1] as PromiseRejectedResult).reason;
          expect(isTokenServiceError(refused, ErrorCode.INSUFFICIENT_FUNDS), String(refused)).to.equal(true);
          expect(refused.message).to.match(/left after the sends queued before this one/);
          const sent = results.slice(0, MAX_BATCH + 1).map((result) => (result as PromiseFulfilledResult<SignedTransactionInfo>).value);
          expect(sent.map((info) => info.nonce)).to.deep.equal(Array.from({ length: MAX_BATCH + 1 }, (_, index) => index));
          await expectMinedInOrder(sent);
        } finally {
          await gated.close();
        }
      });

      it("answers the sends broadcast with a refused nonce as the node did, and sends none of a hold's second batch", async function () {
        const wallet = await funded(service);
        const gated = await gatedChain();
        let secondBatchRecorded = false;
        try {
          const sending = oneBatch(
            wallet,
            Array.from({ length: MAX_BATCH + 2 }, () => DEPLOY),
            (index) => {
              // Before the first is broadcast, another transaction takes its nonce: the node refuses it ("nonce too low").
              if (index === 0)
                return {
                  beforeBroadcast: async () => {
                    const elsewhere = new Wallet(wallet.privateKey, chain.provider);
                    await (await elsewhere.sendTransaction({ to: wallet.address, value: 0n, nonce: 0 })).wait();
                  },
                };
              return index === MAX_BATCH ? { beforeBroadcast: async () => void ((secondBatchRecorded = true), gated.open()) } : {};
            },
            gated.chain,
          );
          await until(() => secondBatchRecorded, "the second batch's first record, the first batch's broadcasts held");
          const results = await sending;
          expect((results[0] as PromiseRejectedResult).reason.message).to.match(/nonce too low/);
          // The first batch's sends recorded while the gate held its first broadcast went with it, in one JSON-RPC batch:
          // the node took them (their nonces follow the one another transaction took), and they are mined.
          const first = results.slice(1, MAX_BATCH);
          const taken = first.filter((result) => result.status === "fulfilled");
          expect(taken.length, "sent with the refused one").to.be.greaterThan(0);
          await expectMinedInOrder(taken.map((result) => (result as PromiseFulfilledResult<SignedTransactionInfo>).value));
          // The ones after them, the second batch's included, were not sent once the node refused a nonce.
          for (const result of results.slice(1 + taken.length)) {
            const error = (result as PromiseRejectedResult).reason;
            expect(isTokenServiceError(error, ErrorCode.TRANSACTION_REJECTED), String(error)).to.equal(true);
            expect(error.message).to.match(/not sent: the transaction before it from .* \(nonce 0\) was refused/);
          }
          const pending = await nonceOf(wallet.address, "pending");
          expect(pending, "nothing waits in the node's pool").to.equal(await nonceOf(wallet.address, "latest"));
          expect(pending).to.equal(1 + taken.length);
        } finally {
          await gated.close();
        }
      });
    }

    it("through the recorded path: records of sends after an unrecorded one end failed, and the next launch reuses their nonces", async function () {
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-batches-"));
      const lock = new InProcessSenderLock();
      const store = await openStore({ dataDir });
      const recorded = await createTokenService({ hre, env: {}, operationStore: store, senderLock: lock, ...rpcUrls() });
      try {
        const wallet = await funded(recorded);
        const recordedChain = await recorded.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
        const launch = (index: number, id?: string) =>
          recorded.operations.launch(
            {
              ...SEPOLIA,
              type: "ERC20",
              token: { name: `Batch ${index}`, symbol: `B${index}`, initialSupply: "5" },
              sender: wallet.address,
              privateKey: wallet.privateKey,
            },
            id === undefined ? {} : { id },
          );
        const first = await launch(0);
        await recorded.operations.settle(first, 30_000);

        // The lock is held while four launches queue, so they are one batch; the second reuses the first's id, so its
        // record cannot be written.
        const release = await holdSenderLock(lock, chain, wallet.address);
        const burst = [launch(1), launch(2, first.id), launch(3), launch(4)];
        // Let go once every launch waits in the queue (they resolve the chain and check the key first).
        const deadline = Date.now() + 10_000;
        while (waitingSends(recordedChain, lock, wallet.address) < burst.length && Date.now() < deadline) await new Promise(setImmediate);
        expect(waitingSends(recordedChain, lock, wallet.address)).to.equal(burst.length);
        await release();
        const outcomes = await Promise.allSettled(burst);
        expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(["fulfilled", "rejected", "rejected", "rejected"]);
        const accepted = (outcomes[0] as PromiseFulfilledResult<LaunchOutcome>).value;
        expect(accepted.nonce).to.equal(1);
        expect((await recorded.operations.settle(accepted, 30_000)).status).to.equal("mined");

        const failed = (await store.listOperations(null, { limit: 10 })).items.filter((record) => record.status === "failed");
        expect(failed.map((record) => record.nonce).sort()).to.deep.equal([3, 4]);
        for (const record of failed) {
          expect(record.error?.code).to.equal("TRANSACTION_REJECTED");
          expect(record.error?.message).to.match(/\(nonce 2\) could not be recorded/);
        }
        expect((await store.getOperation(first.id))?.status, "the record whose id was reused is untouched").to.equal("mined");

        const next = await launch(5);
        expect(next.nonce, "the nonces nobody sent are used again").to.equal(2);
        expect((await recorded.operations.settle(next, 30_000)).status).to.equal("mined");
      } finally {
        await recorded.close();
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}
