import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";

import { Transaction } from "ethers";

import { createTokenService, resolveNetwork } from "../src/api.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

describe("simulated chain journal: replay after a crash", function () {
  let dataDir: string;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-journal-"));
  });

  afterEach(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("drops a last line cut short by kill -9, keeps everything before it, and reports size and replay time", async function () {
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
      expect(replay).to.include({ path: journal, entries: 2, bytes: Buffer.byteLength(complete), tornBytes: 36 });
      expect(replay!.milliseconds).to.be.a("number").and.to.be.greaterThan(0);
      expect(await readFile(journal, "utf8"), "the torn line is cut off the file").to.equal(complete);
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

  it("refuses a journal whose middle is not a journal entry, naming the file and the line", async function () {
    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    const service = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    await service.faucet({ ...SEPOLIA, address: service.createWallet(SEPOLIA).address });
    await service.close();
    await writeFile(journal, `garbage\n${await readFile(journal, "utf8")}`);
    const reopened = await createTokenService({ hre, env: {}, dataDir, blockTimeSeconds: 0 });
    try {
      let refusal: unknown;
      await reopened.evm.openJournaled().catch((error: unknown) => (refusal = error));
      expect((refusal as Error)?.message).to.include(`${journal} line 1 is not a journal entry`);
    } finally {
      await reopened.close();
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
