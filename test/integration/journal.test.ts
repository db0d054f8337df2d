import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";

import { Transaction } from "ethers";

import { createTokenService, resolveNetwork } from "../../src/api.js";
import { openStore } from "../../src/store/open-store.js";

const signer = (wallet: { address: string; privateKey: string }) => ({ sender: wallet.address, privateKey: wallet.privateKey });

/** Reads until `done` says so, or fails after `timeoutMs`. */
async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("simulated chain journal: replay after a crash", function () {
  let dataDir: string;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-journal-"));
  });

  afterEach(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("sets aside a last line cut short by kill -9, keeps everything before it, and reports size and replay time", async function () {
    const first = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    const wallet = first.createWallet(SEPOLIA);
    await first.faucet({ ...SEPOLIA, address: wallet.address });
    const launched = await first.operations.launch({
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Kept", symbol: "KPT", initialSupply: "5" },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect((await first.operations.settle(launched, 30_000)).status).to.equal("mined");
    await first.close();

    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    const complete = await readFile(journal, "utf8");
    await appendFile(journal, '{"op":"rawTransaction","raw":"0x02f8');

    const second = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    try {
      const [replay] = await second.evm.openJournaled();
      expect(replay).to.include({ path: journal, entries: 2, bytes: Buffer.byteLength(complete), tornBytes: 36, rejectedLines: 0 });
      // The launch was block 1: only what would have come after the torn tail may differ.
      expect(replay!.lossFromBlock).to.equal(2);
      expect(replay!.milliseconds).to.be.a("number").and.to.be.greaterThan(0);
      expect(await readFile(journal, "utf8"), "the torn line is cut off the file").to.equal(complete);
      expect(await readFile(replay!.setAsidePath!, "utf8"), "and kept beside it").to.equal('{"op":"rawTransaction","raw":"0x02f8\n');
      const read = await second.getBalances({
        ...SEPOLIA,
        address: wallet.address,
        erc20TokenContractAddresses: [launched.contractAddress],
      });
      expect(read.balances.KPT!.balance).to.equal("5");
    } finally {
      await second.close();
    }
  });

  it("sets a damaged line in the middle aside, starts from every entry it can trust, and says what it set aside", async function () {
    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    const service = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    const funded = service.createWallet(SEPOLIA);
    await service.faucet({ ...SEPOLIA, address: funded.address });
    await service.close();
    const entries = await readFile(journal, "utf8");
    // A torn write followed by the next append on the same line, as a full disk once left it.
    await writeFile(journal, `{"op":"fund","addr{"op":"rawTransaction"\n${entries}`);
    const reopened = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    try {
      const [replay] = await reopened.evm.openJournaled();
      expect(replay).to.include({ entries: 1, rejectedLines: 1, tornBytes: 0 });
      expect(replay!.lossFromBlock, "the first line was lost: any block may differ").to.equal(1);
      expect(await readFile(replay!.setAsidePath!, "utf8")).to.equal('{"op":"fund","addr{"op":"rawTransaction"\n');
      expect(await readFile(journal, "utf8"), "the journal keeps the trusted entries").to.equal(entries);
      const read = await reopened.getBalances({ ...SEPOLIA, address: funded.address });
      expect(read.balances.ETH!.balance).to.equal((10n ** 19n).toString());
    } finally {
      await reopened.close();
    }
  });

  it("checks the records of a chain that lost journal lines: a transaction that is gone is sent again from its raw form and mined", async function () {
    const storeDir = await mkdtemp(path.join(tmpdir(), "hts-journal-store-"));
    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    try {
      const firstStore = await openStore({ dataDir: storeDir });
      const first = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0, operationStore: firstStore });
      const wallet = first.createWallet(SEPOLIA);
      await first.faucet({ ...SEPOLIA, address: wallet.address });
      const kept = await first.launch({ ...SEPOLIA, type: "ERC20", token: { name: "Kept", symbol: "KPT" }, ...signer(wallet) });
      expect((await first.operations.settle(kept, 30_000)).status).to.equal("mined");
      const lost = await first.launch({ ...SEPOLIA, type: "ERC20", token: { name: "Lost", symbol: "LST" }, ...signer(wallet) });
      expect((await first.operations.settle(lost, 30_000)).status).to.equal("mined");
      await first.close();
      await firstStore.close();

      // The second launch's entry is damaged on disk.
      const lines = (await readFile(journal, "utf8")).trim().split("\n");
      expect(lines).to.have.length(3);
      await writeFile(journal, `${lines[0]}\n${lines[1]}\n${lines[2]!.slice(0, 40)}#damaged\n`);

      const secondStore = await openStore({ dataDir: storeDir });
      // How many mined records the loss sends back to the tracker: the lost launch's, not the kept one's.
      const rechecked: number[] = [];
      const recheckMined = secondStore.recheckMined.bind(secondStore);
      secondStore.recheckMined = async (...args) => {
        const count = await recheckMined(...args);
        rechecked.push(count);
        return count;
      };
      const second = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0, operationStore: secondStore });
      try {
        const [replay] = await second.evm.openJournaled();
        expect(replay).to.include({ entries: 2, rejectedLines: 1 });
        // The kept launch is block 1, replayed as it was; the lost one was block 2, where checking starts.
        expect(replay!.lossFromBlock).to.equal(2);
        expect(rechecked).to.deep.equal([1]);
        const record = await pollUntil(
          () => second.operations.store.getOperation(lost.id),
          (found) => found?.status === "mined" && found.transitions.length > 3,
        );
        expect(record!.transitions.map((transition) => transition.status)).to.deep.equal([
          "signed",
          "pending",
          "mined",
          "pending",
          "pending",
          "mined",
        ]);
        expect(record!.transitions[3]!.reason).to.include("lost with part of the simulated chain's journal");
        const chain = await second.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
        expect(await chain.provider.getCode(lost.contractAddress), "the lost launch is back").to.not.equal("0x");
        expect((await second.operations.store.getOperation(kept.id))!.transitions, "the kept one is untouched").to.have.length(3);
      } finally {
        await second.close();
        await secondStore.close();
      }
    } finally {
      await rm(storeDir, { recursive: true, force: true });
    }
  });

  it("journals a burst from one sender (sent at once, in batches) in nonce order: every launch is back after a restart", async function () {
    const first = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    const wallet = first.createWallet(SEPOLIA);
    await first.faucet({ ...SEPOLIA, address: wallet.address });
    const launched = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const outcome = await first.operations.launch({
          ...SEPOLIA,
          type: index % 3 === 0 ? "ERC721" : "ERC20",
          token: { name: `Burst ${index}`, symbol: `B${index}`, ...(index % 3 === 0 ? {} : { initialSupply: String(index) }) },
          sender: wallet.address,
          privateKey: wallet.privateKey,
        });
        expect((await first.operations.settle(outcome, 30_000)).status).to.equal("mined");
        return outcome;
      }),
    );
    await first.close();

    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    const nonces = (await readFile(journal, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { op: string; raw?: string })
      .filter((entry) => entry.op === "rawTransaction")
      .map((entry) => Transaction.from(entry.raw!).nonce);
    expect(nonces).to.deep.equal(Array.from({ length: 30 }, (_, index) => index));

    const second = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    try {
      const chain = await second.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "read");
      expect(await chain.provider.getTransactionCount(wallet.address)).to.equal(30);
      for (const outcome of launched)
        expect(await chain.provider.getCode(outcome.contractAddress), outcome.contractAddress).to.not.equal("0x");
    } finally {
      await second.close();
    }
  });
});
