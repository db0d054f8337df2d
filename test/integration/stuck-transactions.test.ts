import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet, keccak256 } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import type { ChainFaultControl } from "../../src/core/token-service.js";
import type { OperationRecord } from "../../src/core/operations/types.js";
import type { NonceHealing } from "../../src/core/operations/nonce-healing.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { parseChainFault } from "../../src/domain/faults.js";
import { SimulatedChain } from "../../src/chains/evm/simulated-chain.js";
import { hardhatSimulatedChains } from "../../src/hardhat/simulated-chains.js";
import { expectServiceError } from "../helpers/errors.js";
import { fundedWallet } from "../helpers/service.js";
import { until } from "../helpers/until.js";

// Stuck transactions on the simulated chain, made stuck on purpose with its faults (docs/faults.md): a stall holds the
// launch unmined while a fee spike raises the base fee over its max fee; the chain then mines a block every 200 ms at
// the spiked fee, and the launch waits until the tracker replaces it (after 2 blocks here) with a step of its ladder.

const pair = { chain: "ethereum", network: "sepolia" };
const token = { name: "Stuck", symbol: "STK", initialSupply: "1" };

describe("stuck transactions on a simulated chain (fee spikes and stalls)", function () {
  let service: TokenService;
  let faults: ChainFaultControl;

  const healings: NonceHealing[] = [];

  before(async function () {
    service = await createTokenService({
      hre,
      env: { TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_ETHEREUM_SEPOLIA: "2" },
      chainFaults: true,
      blockTimeSeconds: 0.2,
      onNonceHealing: (healing) => healings.push(healing),
    });
    faults = await service.chainFaults(pair);
  });

  afterEach(async function () {
    await faults?.clear();
  });

  after(async function () {
    await service?.close();
  });

  const record = async (id: string) => (await service.operations.store.getOperation(id))!;
  const head = async () =>
    (await service.evm.get({ ...pair, kind: "evm", chainId: 11155111, nativeSymbol: "ETH", nativeDecimals: 18 })).provider.getBlockNumber();

  /** A key-in-body launch held unmined by a stall, seen pending by the tracker; the stall's id to end it. */
  async function heldLaunch(wallet: { address: string; privateKey: string }) {
    const stall = await faults.inject({ fault: "stall", seconds: 120 });
    const launched = await service.launch({ ...pair, type: "ERC20", token, sender: wallet.address, privateKey: wallet.privateKey });
    await until(async () => (await record(launched.id)).status === "pending", "the launch seen pending");
    return { launched, stall };
  }

  /** The first max fee a record was sent with. */
  const firstMaxFee = (held: OperationRecord) => BigInt(held.transactions.find(({ role }) => role === "original")!.maxFeePerGas!);

  it("signs the ladder ahead with the launch, replaces it when a fee rise overtakes it, and ends mined under another hash", async function () {
    const wallet = await fundedWallet(service, pair);
    const { launched, stall } = await heldLaunch(wallet);
    const held = await record(launched.id);
    expect(held.transactions.map(({ role, rung }) => `${role} ${rung}`)).to.deep.equal([
      "original 0",
      "replacement 1",
      "replacement 2",
      "replacement 3",
      "replacement 4",
      "cancel 5",
    ]);
    expect(held.transactions.filter(({ broadcastAt }) => broadcastAt !== null).map(({ role }) => role)).to.deep.equal(["original"]);

    await faults.inject({ fault: "fee-spike", baseFeePerGas: (firstMaxFee(held) * 2n).toString(), blocks: 1_000 });
    await faults.clear(stall.id);
    const mined = await service.operations.wait(launched.id, 60_000);
    expect(mined.status).to.equal("mined");
    expect(mined.transactionHash).to.not.equal(launched.transactionHash);
    const step = mined.transactions.find(({ transactionHash }) => transactionHash === mined.transactionHash)!;
    expect(step.role).to.equal("replacement");
    expect(BigInt(step.maxFeePerGas!) >= firstMaxFee(held) * 2n, "the step mined pays the spiked base fee").to.equal(true);
    expect(mined.transitions.map(({ reason }) => reason)).to.satisfy((reasons: string[]) =>
      reasons.some((reason) => reason.startsWith(`replaced by ${mined.transactionHash} (not included `)),
    );
    expect(mined.transitions.at(-1)?.reason).to.match(new RegExp(`^included in block \\d+ \\(as replacement ${mined.transactionHash}\\)$`));

    // Every hash it was sent under answers: the first one replaced by the one mined.
    const first = await service.getTransaction({ ...pair, transactionHash: launched.transactionHash });
    expect(first).to.include({ status: "dropped", replaced: true, replacedBy: mined.transactionHash });
    const last = await service.getTransaction({ ...pair, transactionHash: mined.transactionHash! });
    expect(last).to.include({ status: "mined", contractAddress: launched.contractAddress });
    expect(last).to.not.have.property("replaced");
    expect((await service.operations.store.findByTransactionHash(pair.chain, pair.network, launched.transactionHash))?.id).to.equal(
      launched.id,
    );
  });

  it("stays pending at the ladder's top, says it is stuck once, and is mined when the fees come back down", async function () {
    const wallet = await fundedWallet(service, pair);
    const { launched, stall } = await heldLaunch(wallet);
    const held = await record(launched.id);
    const spike = await faults.inject({ fault: "fee-spike", baseFeePerGas: (firstMaxFee(held) * 100n).toString(), blocks: 1_000 });
    await faults.clear(stall.id);
    await until(async () => (await record(launched.id)).stuck !== null, "the stuck notice", 30_000);
    const stuck = await record(launched.id);
    const top = held.transactions.filter(({ role }) => role === "replacement").at(-1)!;
    expect(stuck).to.deep.include({ status: "pending", transactionHash: top.transactionHash });
    expect(stuck.stuck).to.deep.include({ transactionHash: top.transactionHash });
    expect(stuck.stuck!.reason).to.contain("the ladder's last replacement is sent");
    // The cancel, at the ceiling, is never sent by itself.
    expect(stuck.transactions.find(({ role }) => role === "cancel")?.broadcastAt).to.equal(null);

    // Blocks go by at the spiked fee: nothing more is sent or said.
    const seenAt = await head();
    await until(async () => (await head()) >= seenAt + 5, "five more blocks");
    expect(await record(launched.id)).to.deep.include({
      stuck: stuck.stuck,
      transactionHash: top.transactionHash,
      transitions: stuck.transitions,
    });

    await faults.clear(spike.id);
    const mined = await service.operations.wait(launched.id, 60_000);
    expect(mined).to.deep.include({ status: "mined", transactionHash: top.transactionHash });
  });

  it("cancels a launch: a zero-value transfer to the sender takes its nonce, the operation ends cancelled", async function () {
    const wallet = await fundedWallet(service, pair);
    const { launched, stall } = await heldLaunch(wallet);
    const outcome = await service.cancelOperation(launched.id);
    if (!("sent" in outcome)) throw new Error("a key-in-body launch has its cancel signed ahead");
    const cancel = outcome.sent.transactions.find(({ role }) => role === "cancel")!;
    expect(outcome.sent).to.deep.include({ status: "pending", transactionHash: cancel.transactionHash });
    expect(cancel.broadcastAt).to.be.a("string");
    expect(outcome.sent.transitions.at(-1)?.reason).to.match(
      /^cancel sent: 0x[0-9a-f]{64} \(a zero-value transfer to the sender at nonce 0/,
    );

    await faults.clear(stall.id);
    const cancelled = await service.operations.wait(launched.id, 60_000);
    expect(cancelled).to.deep.include({ status: "cancelled", transactionHash: cancel.transactionHash, error: null });
    const chain = await service.evm.get({ ...pair, kind: "evm", chainId: 11155111, nativeSymbol: "ETH", nativeDecimals: 18 });
    expect(await chain.provider.getCode(launched.contractAddress), "no contract was deployed").to.equal("0x");
    expect(await chain.provider.getTransactionCount(wallet.address)).to.equal(1);
    expect(await service.getTransaction({ ...pair, transactionHash: launched.transactionHash })).to.include({
      replaced: true,
      replacedBy: cancel.transactionHash,
    });
    await expectServiceError(service.cancelOperation(launched.id), ErrorCode.OPERATION_FINAL, undefined);
    await expectServiceError(service.speedUp(launched.id), ErrorCode.OPERATION_FINAL, undefined);
  });

  it("speeds a launch up on request with the next step signed ahead", async function () {
    const wallet = await fundedWallet(service, pair);
    const { launched, stall } = await heldLaunch(wallet);
    const outcome = await service.speedUp(launched.id);
    if (!("sent" in outcome)) throw new Error("a key-in-body launch has its ladder signed ahead");
    const step = outcome.sent.transactions.find(({ transactionHash }) => transactionHash === outcome.sent.transactionHash)!;
    expect(step).to.deep.include({ role: "replacement", rung: 1 });
    expect(outcome.sent.transitions.at(-1)?.reason).to.match(/^sped up: replaced by 0x[0-9a-f]{64} \(max fee [\d.]+ gwei\)$/);
    await faults.clear(stall.id);
    expect(await service.operations.wait(launched.id, 60_000)).to.deep.include({ status: "mined", transactionHash: step.transactionHash });
  });

  it("prepares a caller-signed send's speed-up for the caller to sign, and sends it when given back signed", async function () {
    const funded = await fundedWallet(service, pair);
    const signer = new Wallet(funded.privateKey);
    const request = { ...pair, type: "ERC20", token, sender: signer.address };
    const stall = await faults.inject({ fault: "stall", seconds: 120 });
    const prepared = await service.operations.prepareLaunch(request);
    const launched = await service.launch({ ...request, signedTransaction: await signer.signTransaction(prepared.unsignedTransaction) });
    await until(async () => (await record(launched.id)).status === "pending", "the launch seen pending");
    expect(
      (await record(launched.id)).transactions.map(({ role }) => role),
      "nothing is signed ahead without the key",
    ).to.deep.equal(["original"]);

    const asked = await service.speedUp(launched.id);
    if (!("prepared" in asked)) throw new Error("a caller-signed launch is sped up by the caller");
    const unsigned = asked.prepared.unsignedTransaction;
    expect(asked.prepared).to.deep.include({ operationId: launched.id, replacement: "speed-up", replaces: launched.transactionHash });
    expect(unsigned).to.deep.include({ nonce: prepared.unsignedTransaction.nonce, to: null, data: prepared.unsignedTransaction.data });
    expect(BigInt(unsigned.maxFeePerGas!) * 8n >= BigInt(prepared.unsignedTransaction.maxFeePerGas!) * 9n, "12.5 % more").to.equal(true);

    // Not a replacement: the same fees again; another call; another signer.
    const same = await signer.signTransaction({
      ...prepared.unsignedTransaction,
      gasLimit: BigInt(prepared.unsignedTransaction.gasLimit) + 1n,
    });
    await expectServiceError(
      service.speedUp(launched.id, { signedTransaction: same }),
      ErrorCode.TRANSACTION_MISMATCH,
      "signedTransaction",
    );
    const cheap = await signer.signTransaction({ ...unsigned, maxFeePerGas: prepared.unsignedTransaction.maxFeePerGas });
    await expectServiceError(
      service.speedUp(launched.id, { signedTransaction: cheap }),
      ErrorCode.TRANSACTION_MISMATCH,
      "signedTransaction",
    );
    const stranger = await Wallet.createRandom().signTransaction(unsigned);
    await expectServiceError(
      service.speedUp(launched.id, { signedTransaction: stranger }),
      ErrorCode.KEY_SENDER_MISMATCH,
      "signedTransaction",
    );

    const signed = await signer.signTransaction(unsigned);
    const sent = await service.speedUp(launched.id, { signedTransaction: signed });
    if (!("sent" in sent)) throw new Error("a signed replacement is sent");
    expect(sent.sent.transactionHash).to.not.equal(launched.transactionHash);
    expect(sent.sent.transactions.map(({ role, rung }) => `${role} ${rung}`)).to.deep.equal(["original 0", "replacement 1"]);
    await expectServiceError(service.speedUp(launched.id, { signedTransaction: signed }), ErrorCode.ALREADY_SUBMITTED, "signedTransaction");
    await faults.clear(stall.id);
    expect(await service.operations.wait(launched.id, 60_000)).to.deep.include({
      status: "mined",
      transactionHash: sent.sent.transactionHash,
    });
  });

  it("says at once that a caller-signed send waits for its caller, when it is not included in time", async function () {
    const funded = await fundedWallet(service, pair);
    const signer = new Wallet(funded.privateKey);
    const request = { ...pair, type: "ERC20", token, sender: signer.address };
    const stall = await faults.inject({ fault: "stall", seconds: 120 });
    const prepared = await service.operations.prepareLaunch(request);
    const launched = await service.launch({ ...request, signedTransaction: await signer.signTransaction(prepared.unsignedTransaction) });
    await until(async () => (await record(launched.id)).status === "pending", "the launch seen pending");
    await faults.inject({
      fault: "fee-spike",
      baseFeePerGas: (BigInt(prepared.unsignedTransaction.maxFeePerGas!) * 3n).toString(),
      blocks: 1_000,
    });
    await faults.clear(stall.id);
    await until(async () => (await record(launched.id)).stuck !== null, "the stuck notice", 30_000);
    expect((await record(launched.id)).stuck!.reason).to.contain(`speed it up (POST /api/v1/operations/${launched.id}/speed-up`);
    // The caller cancels it: prepared, signed, sent; the cancel pays the spiked fee, and lands.
    const asked = await service.cancelOperation(launched.id);
    if (!("prepared" in asked)) throw new Error("a caller-signed launch is cancelled by the caller");
    expect(asked.prepared.unsignedTransaction).to.deep.include({ to: signer.address, data: "0x", value: "0", gasLimit: "21000" });
    const sent = await service.cancelOperation(launched.id, {
      signedTransaction: await signer.signTransaction(asked.prepared.unsignedTransaction),
    });
    if (!("sent" in sent)) throw new Error("a signed cancel is sent");
    expect(sent.sent.stuck, "a replacement clears the notice").to.equal(null);
    expect((await service.operations.wait(launched.id, 60_000)).status).to.equal("cancelled");
  });

  it("refuses what would pay over the pair's fee ceiling before anything is signed (FEE_CAP_EXCEEDED)", async function () {
    const capped = await createTokenService({ hre, env: { TOKEN_SERVICE_FEE_CAP_ETHEREUM_SEPOLIA: "0.000000001" } });
    try {
      const wallet = await fundedWallet(capped, pair);
      const launch = { ...pair, type: "ERC20", token, sender: wallet.address };
      const refused = await expectServiceError(
        capped.launch({ ...launch, privateKey: wallet.privateKey }),
        ErrorCode.FEE_CAP_EXCEEDED,
        undefined,
        [wallet.privateKey],
      );
      expect(refused.message).to.match(
        /over ethereum\/sepolia's fee ceiling of 0\.000000001 gwei \(TOKEN_SERVICE_FEE_CAP_ETHEREUM_SEPOLIA\): nothing was signed or sent$/,
      );
      expect(refused.details).to.deep.include({
        ceiling: "1",
        ceilingGwei: "0.000000001",
        source: "TOKEN_SERVICE_FEE_CAP_ETHEREUM_SEPOLIA",
      });
      await expectServiceError(capped.operations.prepareLaunch(launch), ErrorCode.FEE_CAP_EXCEEDED, undefined);
      const chain = await capped.evm.get({ ...pair, kind: "evm", chainId: 11155111, nativeSymbol: "ETH", nativeDecimals: 18 });
      expect(await chain.provider.getTransactionCount(wallet.address, "pending"), "nothing was sent").to.equal(0);
      expect(await capped.operations.store.heldNonces(pair.chain, pair.network, wallet.address), "nothing was recorded").to.deep.equal([]);
    } finally {
      await capped.close();
    }
  });

  it("fills a nonce its operation left unused with that operation's pre-signed cancel, so the send above it is mined", async function () {
    const wallet = await fundedWallet(service, pair);
    const stall = await faults.inject({ fault: "stall", seconds: 120 });
    const send = () => service.launch({ ...pair, type: "ERC20", token, sender: wallet.address, privateKey: wallet.privateKey });
    const [below, above] = [await send(), await send()];
    expect(above.nonce).to.equal(below.nonce + 1);
    await until(async () => (await record(above.id)).status === "pending", "the launch above seen pending");
    // The one below ends without taking its nonce (as a send refused before its broadcast does), and the node forgets both.
    await service.operations.store.changeOperation(below.id, {
      status: "failed",
      reason: "refused (made so by the test)",
      error: { code: "TRANSACTION_REJECTED", message: "refused" },
      checkInMs: null,
    });
    await faults.inject({ fault: "drop" });
    await faults.clear(stall.id);
    expect(await service.operations.wait(above.id, 30_000)).to.deep.include({ status: "mined" });
    const cancel = (await record(below.id)).transactions.find(({ role }) => role === "cancel")!;
    expect(healings.filter((healing) => healing.sender === wallet.address && healing.kind === "gap-filled")).to.deep.equal([
      {
        ...pair,
        sender: wallet.address,
        nonce: below.nonce,
        kind: "gap-filled",
        detail: `filled with the pre-signed cancel of operation ${below.id}`,
      },
    ]);
    const chain = await service.evm.get({ ...pair, kind: "evm", chainId: 11155111, nativeSymbol: "ETH", nativeDecimals: 18 });
    expect((await chain.provider.getTransactionReceipt(cancel.transactionHash))?.status, "the cancel took the nonce").to.equal(1);
    expect(await chain.provider.getCode(below.contractAddress)).to.equal("0x");
  });

  it("names what it cannot speed up or cancel", async function () {
    await expectServiceError(service.speedUp("no-such-operation"), ErrorCode.OPERATION_NOT_FOUND, "id");
    const wallet = service.createWallet(pair);
    const grant = await service.faucet({ ...pair, address: wallet.address });
    await expectServiceError(service.cancelOperation(grant.id), ErrorCode.OPERATION_FINAL, undefined);
  });
});

describe("a replacement in a simulated chain's journal: a restart mines the replacement, not what it replaced", function () {
  const SEPOLIA_INFO = { ...pair, kind: "evm" as const, chainId: 11155111, nativeSymbol: "ETH", nativeDecimals: 18 };
  let directory: string;

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "hts-replaced-journal-"));
  });

  after(async function () {
    await rm(directory, { recursive: true, force: true });
  });

  /** A transfer of `value` to itself at nonce 0, with this max fee and tip (gwei). */
  const transfer = (wallet: Wallet, value: bigint, maxFeeGwei: bigint, tipGwei: bigint) =>
    wallet.signTransaction({
      chainId: 11155111,
      nonce: 0,
      to: wallet.address,
      value,
      gasLimit: 21_000n,
      type: 2,
      maxFeePerGas: maxFeeGwei * 10n ** 9n,
      maxPriorityFeePerGas: tipGwei * 10n ** 9n,
    });

  for (const variant of [
    { name: "a chain with a block time (a pool, no faults)", options: { blockTimeSeconds: 3_600 } },
    { name: "a chain mining on send, held by a stall", options: { blockTimeSeconds: 0, faults: { requestTimeoutMs: 1_000 } } },
  ]) {
    it(`on ${variant.name}`, async function () {
      const journalPath = path.join(directory, `${variant.options.blockTimeSeconds}.jsonl`);
      const wallet = new Wallet(Wallet.createRandom().privateKey);
      const [first, replacement] = [await transfer(wallet, 1n, 10n, 1n), await transfer(wallet, 0n, 20n, 2n)];
      const start = () => SimulatedChain.start(hardhatSimulatedChains(hre), SEPOLIA_INFO, { ...variant.options, journalPath });
      const chain = await start();
      try {
        await chain.fund(wallet.address, 10n ** 18n);
        const stall = chain.faults === undefined ? undefined : await chain.faults.inject(parseChainFault({ fault: "stall", seconds: 60 }));
        await chain.broadcast(first);
        await chain.broadcast(replacement);
        if (stall !== undefined) await chain.faults!.clear(stall.id);
      } finally {
        await chain.close();
      }
      const restarted = await start();
      try {
        expect(await restarted.provider.getTransaction(keccak256(first)), "the replaced one").to.equal(null);
        const receipt = await restarted.provider.getTransactionReceipt(keccak256(replacement));
        expect(receipt?.status, "the replacement, mined at the restart").to.equal(1);
      } finally {
        await restarted.close();
      }
    });
  }
});
