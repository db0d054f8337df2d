import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";

import { Wallet, toQuantity } from "ethers";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import type { EvmNetworkInfo } from "../../src/chains/evm/chain.js";
import { checkpointPathOf } from "../../src/chains/evm/checkpoint.js";
import { ChainJournal } from "../../src/chains/evm/journal.js";
import { SimulatedChain } from "../../src/chains/evm/simulated-chain.js";
import { parseChainFault } from "../../src/domain/faults.js";
import { hardhatSimulatedChains } from "../../src/hardhat/simulated-chains.js";
import { smallDisk } from "../helpers/tmpfs.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const INFO = resolveNetwork(SEPOLIA.chain, SEPOLIA.network) as EvmNetworkInfo;

async function chainOf(service: TokenService): Promise<SimulatedChain> {
  const chain = await service.evm.get(INFO);
  if (!(chain instanceof SimulatedChain)) throw new Error("expected a simulated chain");
  return chain;
}

interface World {
  wallet: { address: string; privateKey: string };
  other: string;
  tokens: string[];
}

/** Everything a restart must bring back: balances, nonces, token balances, code and the tokens' first storage slots. */
async function stateOf(service: TokenService, world: World): Promise<unknown> {
  const chain = await chainOf(service);
  const read = (method: string, params: unknown[]) => chain.rpc!(method, params);
  const accounts = [world.wallet.address, world.other, ...world.tokens];
  const result: Record<string, unknown> = {};
  for (const address of accounts) {
    result[address] = {
      balance: await read("eth_getBalance", [address, "latest"]),
      nonce: await read("eth_getTransactionCount", [address, "latest"]),
      code: await read("eth_getCode", [address, "latest"]),
      slots: await Promise.all(Array.from({ length: 8 }, (_, slot) => read("eth_getStorageAt", [address, toQuantity(slot), "latest"]))),
    };
  }
  for (const holder of [world.wallet.address, world.other]) {
    const balances = await service.getBalances({ ...SEPOLIA, address: holder, erc20TokenContractAddresses: world.tokens });
    result[`tokens of ${holder}`] = Object.values(balances.balances).map((entry) => entry.balance);
  }
  result.head = await read("eth_blockNumber", []);
  return result;
}

async function launchAndTransfer(service: TokenService, world: World, name: string): Promise<void> {
  const launched = await service.operations.launch({
    ...SEPOLIA,
    type: "ERC20",
    token: { name, symbol: name.slice(0, 4).toUpperCase(), initialSupply: "1000" },
    sender: world.wallet.address,
    privateKey: world.wallet.privateKey,
  });
  expect((await service.operations.settle(launched, 30_000)).status).to.equal("mined");
  world.tokens.push(launched.contractAddress!);
  const sent = await service.operations.transfer({
    ...SEPOLIA,
    type: "ERC20",
    contractAddress: launched.contractAddress!,
    to: world.other,
    amount: "7",
    sender: world.wallet.address,
    privateKey: world.wallet.privateKey,
  });
  expect((await service.operations.settle(sent, 30_000)).status).to.equal("mined");
}

describe("simulated chain checkpoint: a start replays only the journal after it", function () {
  let dataDir: string;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-checkpoint-"));
  });

  afterEach(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = (entries = "0") =>
    createTokenService({ hre, env: { TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES: entries }, dataDir, blockTimeSeconds: 0 });

  it("restarts from a checkpoint and the journal after it with the same balances, nonces, token balances, code and storage", async function () {
    const first = await start();
    const wallet = first.createWallet(SEPOLIA);
    const world: World = { wallet, other: first.createWallet(SEPOLIA).address, tokens: [] };
    await first.faucet({ ...SEPOLIA, address: wallet.address });
    await launchAndTransfer(first, world, "Before");
    const chain = await chainOf(first);
    const outcome = await chain.checkpoint();
    expect(outcome, JSON.stringify(outcome)).to.deep.include({ ok: true, height: 2, entriesCovered: 3, rotated: true });
    // A token the last checkpoint holds changes, one holder's balance to zero (a slot cleared): the next one has it so.
    const rest = await first.operations.transfer({
      ...SEPOLIA,
      type: "ERC20",
      contractAddress: world.tokens[0]!,
      to: world.other,
      amount: "993",
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    expect((await first.operations.settle(rest, 30_000)).status).to.equal("mined");
    expect(await chain.checkpoint()).to.deep.include({ ok: true, height: 3, entriesCovered: 4 });
    await launchAndTransfer(first, world, "After");
    await first.faucet({ ...SEPOLIA, address: world.other, amount: "12345" });
    const before = await stateOf(first, world);
    await first.close();

    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    expect((await readFile(journal, "utf8")).trim().split("\n")).to.have.length(1 + 3, "the marker, then the entries after the checkpoint");

    const second = await start();
    try {
      const [replay] = await second.evm.openJournaled();
      expect(replay!.entries, "only the entries after the checkpoint are replayed").to.equal(3);
      expect(replay!.checkpoint).to.deep.include({ height: 3, entriesCovered: 4 });
      expect(await stateOf(second, world)).to.deep.equal(before);
      // The chain goes on from there: the sender's next nonce, a new token.
      await launchAndTransfer(second, world, "Later");
    } finally {
      await second.close();
    }
  });

  it("restores a checkpoint by set calls when the chain factory cannot take a genesis, to the same state", async function () {
    const first = await start();
    const wallet = first.createWallet(SEPOLIA);
    const world: World = { wallet, other: first.createWallet(SEPOLIA).address, tokens: [] };
    await first.faucet({ ...SEPOLIA, address: wallet.address });
    await launchAndTransfer(first, world, "Genesisless");
    expect((await (await chainOf(first)).checkpoint())?.ok).to.equal(true);
    const before = await stateOf(first, world);
    await first.close();

    const factory = hardhatSimulatedChains(hre);
    const second = await createTokenService({
      hre,
      env: { TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES: "0" },
      dataDir,
      blockTimeSeconds: 0,
      // A factory without genesis support (another Hardhat version): the accounts are set one call at a time.
      simulatedChainFactory: (info) => factory(info),
    });
    try {
      const [replay] = await second.evm.openJournaled();
      expect(replay!.entries).to.equal(0);
      expect(await stateOf(second, world)).to.deep.equal(before);
    } finally {
      await second.close();
    }
  });

  it("writes checkpoints by itself every N entries; a start after many entries replays fewer than N", async function () {
    const first = await start("4");
    const wallet = first.createWallet(SEPOLIA);
    const world: World = { wallet, other: first.createWallet(SEPOLIA).address, tokens: [] };
    await first.faucet({ ...SEPOLIA, address: wallet.address });
    for (let index = 0; index < 5; index++) await launchAndTransfer(first, world, `Token${index}`);
    // 11 entries, each sent after the one before was mined: checkpoints come due after the 4th and the 8th.
    const before = await stateOf(first, world);
    await first.close(); // waits for a checkpoint under way

    const second = await start("4");
    try {
      const [replay] = await second.evm.openJournaled();
      expect(replay!.entries).to.be.lessThan(4);
      expect(replay!.checkpoint!.entriesCovered).to.be.at.least(8);
      expect(replay!.checkpoint!.entriesCovered + replay!.entries).to.equal(11);
      expect(await stateOf(second, world)).to.deep.equal(before);
    } finally {
      await second.close();
    }
  });

  it("starts right after a kill between the checkpoint and the journal's rotation, or during the checkpoint's write", async function () {
    const first = await start();
    const wallet = first.createWallet(SEPOLIA);
    const world: World = { wallet, other: first.createWallet(SEPOLIA).address, tokens: [] };
    await first.faucet({ ...SEPOLIA, address: wallet.address });
    await launchAndTransfer(first, world, "Before");
    const journal = path.join(dataDir, "chains", "ethereum-sepolia.jsonl");
    const unrotated = await readFile(journal);
    expect((await (await chainOf(first)).checkpoint())?.ok).to.equal(true);
    await launchAndTransfer(first, world, "After");
    const before = await stateOf(first, world);
    await first.close();

    // As if killed after the checkpoint's rename, before the journal was rotated: the old journal, then what followed.
    const after = (await readFile(journal, "utf8")).split("\n").slice(1).join("\n");
    await writeFile(journal, Buffer.concat([unrotated, Buffer.from(after)]));
    // And a checkpoint write killed half-way: its temporary file is left beside the whole one.
    await writeFile(`${checkpointPathOf(journal)}.999999.tmp`, '{"version":1,"id":"torn');

    const second = await start();
    try {
      const [replay] = await second.evm.openJournaled();
      expect(replay!.entries).to.equal(2);
      expect(await stateOf(second, world)).to.deep.equal(before);
      const first = JSON.parse((await readFile(journal, "utf8")).split("\n")[0]!) as { op: string };
      expect(first.op, "the journal is cut at the checkpoint on start").to.equal("checkpoint");
    } finally {
      await second.close();
    }
  });

  it("a checkpoint the full disk refuses leaves the last checkpoint and the journal whole; the chain goes on and checkpoints later", async function () {
    const disk = await smallDisk("4m");
    const service = await createTokenService({
      hre,
      env: { TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES: "0" },
      dataDir: disk.path,
      blockTimeSeconds: 0,
    });
    let restarted: TokenService | undefined;
    try {
      const wallet = service.createWallet(SEPOLIA);
      const world: World = { wallet, other: service.createWallet(SEPOLIA).address, tokens: [] };
      await service.faucet({ ...SEPOLIA, address: wallet.address });
      await launchAndTransfer(service, world, "Before");
      const chain = await chainOf(service);
      expect((await chain.checkpoint())?.ok).to.equal(true);
      await launchAndTransfer(service, world, "After");
      const journal = path.join(disk.path, "chains", "ethereum-sepolia.jsonl");
      const checkpointFile = checkpointPathOf(journal);
      const [journalBefore, checkpointBefore] = await Promise.all([readFile(journal), readFile(checkpointFile)]);

      disk.fill();
      const refused = await chain.checkpoint();
      expect(refused?.ok, JSON.stringify(refused)).to.equal(false);
      expect(await readFile(journal)).to.deep.equal(journalBefore);
      expect(await readFile(checkpointFile)).to.deep.equal(checkpointBefore);
      expect((await readdir(path.dirname(journal))).filter((name) => name.endsWith(".tmp"))).to.deep.equal([]);
      disk.unfill();

      await launchAndTransfer(service, world, "Later");
      expect((await chain.checkpoint())?.ok).to.equal(true);
      const before = await stateOf(service, world);
      await service.close();

      restarted = await createTokenService({ hre, env: {}, dataDir: disk.path, blockTimeSeconds: 0 });
      const [replay] = await restarted.evm.openJournaled();
      expect(replay!.entries).to.equal(0);
      expect(await stateOf(restarted, world)).to.deep.equal(before);
    } finally {
      await (restarted ?? service).close().catch(() => undefined);
      await disk.remove();
    }
  });
});

describe("simulated chain checkpoint with faults on: a reorg reaches back no further than it", function () {
  let directory: string;

  beforeEach(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "hts-checkpoint-faults-"));
  });

  afterEach(async function () {
    await rm(directory, { recursive: true, force: true });
  });

  it("refuses a reorg below the checkpoint, replays one above it after a restart, and keeps the state", async function () {
    const journalPath = path.join(directory, "ethereum-sepolia.jsonl");
    const options = { blockTimeSeconds: 0, journalPath, checkpointEntries: 0, faults: { requestTimeoutMs: 50 } };
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const send = (nonce: number) =>
      wallet.signTransaction({
        chainId: INFO.chainId,
        nonce,
        to: wallet.address,
        value: 1n,
        gasLimit: 21_000n,
        type: 2,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
    const chain = await SimulatedChain.start(hardhatSimulatedChains(hre), INFO, options);
    let before: unknown;
    try {
      await chain.fund(wallet.address, 10n ** 18n);
      for (let nonce = 0; nonce < 3; nonce++) await chain.broadcast(await send(nonce));
      expect(await chain.checkpoint()).to.deep.include({ ok: true, height: 3 });
      for (let nonce = 3; nonce < 5; nonce++) await chain.broadcast(await send(nonce));
      const tooDeep = await chain.faults!.inject(parseChainFault({ fault: "reorg", blocks: 3 })).catch((error: unknown) => error);
      expect((tooDeep as Error).message).to.include("at most its latest 2 blocks");
      await chain.faults!.inject(parseChainFault({ fault: "reorg", blocks: 2 }));
      before = {
        head: await chain.provider.getBlockNumber(),
        nonce: await chain.provider.getTransactionCount(wallet.address),
        balance: await chain.provider.getBalance(wallet.address),
      };
    } finally {
      await chain.close();
    }
    const restarted = await SimulatedChain.start(hardhatSimulatedChains(hre), INFO, options);
    try {
      expect(restarted.replay!.checkpoint).to.deep.include({ height: 3 });
      expect({
        head: await restarted.provider.getBlockNumber(),
        nonce: await restarted.provider.getTransactionCount(wallet.address),
        balance: await restarted.provider.getBalance(wallet.address),
      }).to.deep.equal(before);
    } finally {
      await restarted.close();
    }
  });
});

describe("a journal's rotation under appends that never stop", function () {
  it("takes its turn: the rotation ends while appends go on, and every append lands after the marker or before the cut", async function () {
    const directory = await mkdtemp(path.join(tmpdir(), "hts-rotation-"));
    const journal = new ChainJournal(path.join(directory, "pair.jsonl"));
    try {
      const fund = (index: number) => ({ op: "fund" as const, address: `0x${"1".repeat(40)}`, amount: String(index) });
      for (let index = 0; index < 3; index++) await journal.append(fund(index));
      const offset = await journal.durableLength();
      // Appends back to back, each started before the one before it ends: the journal is never idle.
      let appended = 3;
      const rotation: { doneAt?: number } = {};
      const appending = (async () => {
        const pending: Array<Promise<void>> = [];
        while (rotation.doneAt === undefined && appended < 5_000) {
          pending.push(journal.append(fund(appended++)));
          if (pending.length > 4) await pending.shift();
        }
        await Promise.all(pending);
      })();
      await new Promise((resolve) => setImmediate(resolve));
      await journal.rotate(offset, { op: "checkpoint", id: "test" });
      rotation.doneAt = appended;
      await appending;
      expect(rotation.doneAt, "the rotation did not wait for the appends to stop").to.be.lessThan(5_000);
      const read = await journal.read();
      expect(read.entries[0]).to.deep.equal({ op: "checkpoint", id: "test" });
      const amounts = read.entries.slice(1).map((entry) => Number((entry as { amount: string }).amount));
      expect(amounts).to.deep.equal(Array.from({ length: appended - 3 }, (_, index) => index + 3));
    } finally {
      await journal.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
