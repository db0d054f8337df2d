import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet } from "ethers";
import hre from "hardhat";

import { forgottenEntries, SimulatedChain } from "../../src/chains/evm/simulated-chain.js";
import type { JournalEntry } from "../../src/chains/evm/journal.js";
import type { EvmNetworkInfo } from "../../src/chains/evm/chain.js";
import { hardhatSimulatedChains } from "../../src/hardhat/simulated-chains.js";
import { tokenServiceFor } from "../../src/hardhat/token-service-for.js";
import { isTokenServiceError } from "../../src/domain/errors.js";
import { parseChainFault } from "../../src/domain/faults.js";
import { isUnansweredCall, translateProviderError } from "../../src/chains/evm/provider-errors.js";

const SEPOLIA_INFO: EvmNetworkInfo = {
  chain: "ethereum",
  network: "sepolia",
  kind: "evm",
  chainId: 11155111,
  nativeSymbol: "ETH",
  nativeDecimals: 18,
};

/** A transfer signed by `wallet` with this nonce and value, priced for a fresh chain's base fee. */
const transfer = (wallet: Wallet, nonce: number, value: bigint) =>
  wallet.signTransaction({
    chainId: 11155111,
    nonce,
    to: wallet.address,
    value,
    gasLimit: 21_000n,
    type: 2,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
  });

describe("chain faults in the journal: what a restart leaves out", function () {
  let directory: string;

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "hts-fault-journal-"));
  });

  after(async function () {
    await rm(directory, { recursive: true, force: true });
  });

  it("cancels, for each hash a forget entry names, the latest earlier entry of that transaction", async function () {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const [a, b] = [await transfer(wallet, 0, 1n), await transfer(wallet, 0, 2n)];
    const { keccak256 } = await import("ethers");
    const entries: JournalEntry[] = [
      { op: "rawTransaction", raw: a },
      { op: "forget", transactions: [keccak256(a)] },
      { op: "rawTransaction", raw: b },
      { op: "rawTransaction", raw: a },
      { op: "forget", transactions: [keccak256(a), keccak256(b)] },
      { op: "forget", transactions: [keccak256(a)] },
    ];
    expect([...forgottenEntries(entries)].sort()).to.deep.equal([0, 2, 3]);
    expect(forgottenEntries([{ op: "rawTransaction", raw: a }]).size).to.equal(0);
  });

  it("replays a chain whose forgotten transaction's nonce another took: the other is mined, the forgotten one is not", async function () {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const [forgotten, taken] = [await transfer(wallet, 0, 1n), await transfer(wallet, 0, 2n)];
    const { keccak256 } = await import("ethers");
    const journal = path.join(directory, "ethereum-sepolia.jsonl");
    const lines: JournalEntry[] = [
      { op: "fund", address: wallet.address, amount: (10n ** 18n).toString() },
      { op: "rawTransaction", raw: forgotten },
      { op: "forget", transactions: [keccak256(forgotten)] },
      { op: "rawTransaction", raw: taken, baseFee: "0x3b9aca00" },
      { op: "mine", baseFee: "0xba43b7400" },
    ];
    await writeFile(journal, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    const chain = await SimulatedChain.start(hardhatSimulatedChains(hre), SEPOLIA_INFO, { blockTimeSeconds: 0, journalPath: journal });
    try {
      expect(chain.replay).to.deep.include({ entries: 5, tornBytes: 0, rejectedLines: 0 });
      expect(await chain.provider.getTransaction(keccak256(forgotten))).to.equal(null);
      const receipt = await chain.provider.getTransactionReceipt(keccak256(taken));
      expect(receipt?.blockNumber).to.equal(1);
      expect((await chain.provider.getBlock(1))?.baseFeePerGas).to.equal(10n ** 9n);
      // The empty block a fee spike mined comes back, at its base fee.
      expect((await chain.provider.getBlock(2))?.baseFeePerGas).to.equal(50n * 10n ** 9n);
    } finally {
      await chain.close();
    }
  });
});

describe("a call the node never judged is no revert (ethers calls both CALL_EXCEPTION)", function () {
  it("tells an estimate the rpc-errors fault refused or timed out from one that reverted", async function () {
    const chain = await SimulatedChain.start(hardhatSimulatedChains(hre), SEPOLIA_INFO, {
      blockTimeSeconds: 0,
      faults: { requestTimeoutMs: 50 },
    });
    const estimate = (data: string) =>
      chain.provider.send("eth_estimateGas", [{ data }]).then(
        () => expect.fail("the estimate should fail"),
        (error: unknown) => error,
      );
    try {
      // Creation code that reverts at once: PUSH1 0, PUSH1 0, REVERT.
      const reverted = await estimate("0x60006000fd");
      expect((reverted as { code?: string }).code).to.equal("CALL_EXCEPTION");
      expect(isUnansweredCall(reverted)).to.equal(false);
      await chain.faults!.inject(parseChainFault({ fault: "rpc-errors", rate: 1, errors: ["503"] }));
      const refused = await estimate("0x00");
      expect((refused as { code?: string }).code, "ethers' name for it").to.equal("CALL_EXCEPTION");
      expect(isUnansweredCall(refused)).to.equal(true);
      expect(translateProviderError(refused, "the node").code).to.equal("UPSTREAM_UNAVAILABLE");
      await chain.faults!.inject(parseChainFault({ fault: "rpc-errors", rate: 1, errors: ["timeout"] }));
      const late = await estimate("0x00");
      expect(isUnansweredCall(late)).to.equal(true);
      expect(translateProviderError(late, "the node").code).to.equal("UPSTREAM_TIMEOUT");
    } finally {
      await chain.close();
    }
  });
});

describe("chain faults through the programmatic API (service.chainFaults)", function () {
  it("is refused with CHAIN_FAULTS_OFF unless the service was made with chainFaults: true", async function () {
    const service = await tokenServiceFor(hre, { blockTimeSeconds: 0 });
    try {
      const refusal = await service.chainFaults({ chain: "ethereum", network: "sepolia" }).catch((error: unknown) => error);
      expect(isTokenServiceError(refusal, "CHAIN_FAULTS_OFF"), String(refusal)).to.equal(true);
    } finally {
      await service.close();
    }
  });

  it("starts, lists and clears faults on a simulated pair, checks them, and refuses a live one", async function () {
    const service = await tokenServiceFor(hre, {
      blockTimeSeconds: 0,
      chainFaults: true,
      rpcUrls: { "ethereum/mainnet": "http://127.0.0.1:9" },
    });
    try {
      const live = await service.chainFaults({ chain: "ethereum", network: "mainnet" }).catch((error: unknown) => error);
      expect(isTokenServiceError(live, "LIVE_NETWORK_FAULTS"), String(live)).to.equal(true);
      const faults = await service.chainFaults({ chain: "ethereum", network: "testnet" });
      const bad = await faults.inject({ fault: "rpc-errors", rate: 1.5 }).catch((error: unknown) => error);
      expect(isTokenServiceError(bad, "INVALID_ARGUMENT") && bad.field).to.equal("rate");
      const spike = await faults.inject({ fault: "fee-spike", baseFeePerGas: "50000000000", blocks: 2 });
      expect(spike).to.deep.include({ fault: "fee-spike", chain: "ethereum", network: "sepolia", status: "active" });
      expect(faults.list().map((fault) => fault.id)).to.deep.equal([spike.id]);
      const chain = await service.evm.get({ ...SEPOLIA_INFO });
      expect((await chain.provider.getBlock("latest"))?.baseFeePerGas).to.equal(50n * 10n ** 9n);
      const [cleared] = await faults.clear(spike.id);
      expect(cleared).to.deep.include({ status: "ended", endReason: "cleared" });
      expect(faults.list()).to.deep.equal([]);
    } finally {
      await service.close();
    }
  });
});
