import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import type { EvmChain } from "../../src/chains/evm/chain.js";
import type { NonceHealing } from "../../src/core/operations/nonce-healing.js";
import { cancelAt, signedAboveAbandoned, TestCancels } from "../helpers/nonce-fillers.js";
import { fundedWallet, transferToNewAddress, transitionReasons } from "../helpers/service.js";
import { until } from "../helpers/until.js";

// Nonces that heal, on the in-process simulated chain, with its faults making what live networks do: a transaction from
// the same sender sent elsewhere, a node that forgets its pool, a nonce left unused below transactions that wait.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const GWEI = 10n ** 9n;

describe("nonces that heal on a simulated chain (fault injection)", function () {
  let service: TokenService;
  let chain: EvmChain;
  const healings: NonceHealing[] = [];
  const cancels = new TestCancels({ maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 2n * GWEI });

  before(async function () {
    service = await createTokenService({
      hre,
      env: {},
      chainFaults: true,
      nonceReservationMs: 300,
      nonceFillers: [cancels],
      onNonceHealing: (healing) => healings.push(healing),
    });
    chain = await service.evmChain(service.chains.resolve(SEPOLIA.chain, SEPOLIA.network), "test");
  });

  after(async function () {
    await service?.close();
  });

  afterEach(async function () {
    await (await service.chainFaults(SEPOLIA)).clear();
  });

  const transfer = (sender: { address: string; privateKey: string }, amount = "1") =>
    transferToNewAddress(service, SEPOLIA, sender, amount);

  const healingsOf = (sender: string, kind?: NonceHealing["kind"]) =>
    healings.filter((healing) => healing.sender === sender && (kind === undefined || healing.kind === kind));

  it("settles a record whose nonce another transaction took failed (NONCE_TAKEN) at the first look, and the next send takes the next nonce", async function () {
    const sender = await fundedWallet(service, SEPOLIA);
    const faults = await service.chainFaults(SEPOLIA);
    await faults.inject({ fault: "stall", seconds: 600 });
    const mine = await transfer(sender);
    // The same key, another wallet: the same nonce at a higher fee replaces the service's transaction in the pool.
    const theirs = await cancelAt(sender, mine.nonce, { maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: 20n * GWEI });
    await chain.broadcast(theirs);
    await faults.clear();
    const record = await service.operations.wait(mine.id, 10_000);
    expect(record.status, transitionReasons(record).join("; ")).to.equal("failed");
    expect(record.error?.code).to.equal("NONCE_TAKEN");
    // Decided at the first look that missed it: never sent again, never waiting out the drop window.
    expect(record.transitions.map((transition) => transition.status)).to.deep.equal(["signed", "pending", "failed"]);
    expect(record.transitions.at(-1)!.reason).to.match(new RegExp(`nonce ${mine.nonce} was taken by another transaction`));
    expect(healingsOf(sender.address, "nonce-taken")).to.have.lengthOf(1);
    expect(healingsOf(sender.address, "nonce-taken")[0]).to.deep.include({ nonce: mine.nonce, operationId: mine.id, ...SEPOLIA });

    const next = await transfer(sender);
    expect(next.nonce).to.equal(mine.nonce + 1);
    expect((await service.operations.wait(next.id, 10_000)).status).to.equal("mined");
  });

  it("sends a sender's transactions the node forgot again in nonce order, the lowest first even when its record is not due", async function () {
    const sender = await fundedWallet(service, SEPOLIA);
    const faults = await service.chainFaults(SEPOLIA);
    await faults.inject({ fault: "stall", seconds: 600 });
    const sent = [await transfer(sender, "1"), await transfer(sender, "2"), await transfer(sender, "3")];
    expect(sent.map((entry) => entry.nonce)).to.deep.equal([sent[0]!.nonce, sent[0]!.nonce + 1, sent[0]!.nonce + 2]);
    await until(
      async () =>
        (await Promise.all(sent.map((entry) => service.operations.store.getOperation(entry.id)))).every(
          (record) => record?.status === "pending",
        ),
      "the tracker saw all three in the node's pool",
    );
    // The lowest nonce's record is not looked at again for a minute: the tracker must send it for the others' sake.
    await service.operations.tracker.stop();
    await service.operations.store.changeOperation(sent[0]!.id, { checkInMs: 60_000 });
    const drop = await faults.inject({ fault: "drop" });
    expect(drop.effect.forgotten).to.have.members(sent.map((entry) => entry.transactionHash));
    // Mining on send again: a transaction above a missing nonce is refused, so order decides.
    await faults.clear();
    service.operations.start();
    const later = await Promise.all(sent.slice(1).map((entry) => service.operations.wait(entry.id, 10_000)));
    expect(
      later.map((record) => record.status),
      later.flatMap(transitionReasons).join("; "),
    ).to.deep.equal(["mined", "mined"]);
    expect((await chain.provider.getTransactionReceipt(sent[0]!.transactionHash))?.status).to.equal(1);
    // Each sent again once: a record in the pass with a transition, one below it from its stored raw form.
    const rebroadcasts = healingsOf(sender.address, "rebroadcast");
    expect(rebroadcasts.map((healing) => healing.nonce).sort()).to.deep.equal(sent.map((entry) => entry.nonce));
    expect(rebroadcasts.find((healing) => healing.nonce === sent[0]!.nonce)?.detail).to.match(/later nonces waited for it/);
    // Its own look, whenever it comes, finds it mined.
    await service.operations.store.changeOperation(sent[0]!.id, { checkInMs: 0 });
    service.operations.tracker.kick();
    expect((await service.operations.wait(sent[0]!.id, 10_000)).status).to.equal("mined");
  });

  it("a drop that ends on its own: every record of the burst is sent again and mined", async function () {
    const sender = await fundedWallet(service, SEPOLIA);
    const faults = await service.chainFaults(SEPOLIA);
    // Long enough that the whole burst lands inside it on a loaded machine; checked below, not assumed.
    const drop = await faults.inject({ fault: "drop", seconds: 3 });
    const sent = await Promise.all([1, 2, 3, 4].map((amount) => transfer(sender, String(amount))));
    expect(
      faults.list().find((fault) => fault.id === drop.id)?.effect,
      "the burst sent while the drop still held the chain",
    ).to.deep.include({ held: 4 });
    const records = await Promise.all(sent.map((entry) => service.operations.wait(entry.id, 15_000)));
    expect(
      records.map((record) => record.status),
      records.flatMap(transitionReasons).join("; "),
    ).to.deep.equal(["mined", "mined", "mined", "mined"]);
    expect(
      healingsOf(sender.address, "rebroadcast")
        .map((healing) => healing.nonce)
        .sort(),
    ).to.deep.equal(sent.map((entry) => entry.nonce).sort());
  });

  it("fills a nonce left unused below a waiting transaction with a filler's transaction, once its reservation expired", async function () {
    const sender = await fundedWallet(service, SEPOLIA);
    cancels.allow(sender);
    const faults = await service.chainFaults(SEPOLIA);
    await faults.inject({ fault: "stall", seconds: 600 });
    // A prepare reserves the next nonce for a signer who never comes back; the send after it takes the one above.
    const prepared = await service.prepareTransfer({ ...SEPOLIA, type: "NATIVE", to: sender.address, amount: "1", sender: sender.address });
    const gap = prepared.unsignedTransaction.nonce;
    const above = await transfer(sender);
    expect(above.nonce).to.equal(gap + 1);
    // The chain mines on send again: the transaction above the gap is refused, and waits for the tracker.
    await faults.clear();
    const record = await service.operations.wait(above.id, 15_000);
    expect(record.status, transitionReasons(record).join("; ")).to.equal("mined");
    expect(cancels.asked.some((asked) => asked.sender === sender.address && asked.nonce === gap)).to.equal(true);
    expect(healingsOf(sender.address, "gap-filled")).to.deep.equal([
      { ...SEPOLIA, sender: sender.address, nonce: gap, kind: "gap-filled", detail: "filled with the test's cancel" },
    ]);
    expect(await chain.provider.getTransactionCount(sender.address, "latest")).to.equal(gap + 2);
  });

  it("reports a gap nothing fills once; the sender's next send takes that nonce and the one waiting above it is mined", async function () {
    const sender = await fundedWallet(service, SEPOLIA);
    const faults = await service.chainFaults(SEPOLIA);
    await faults.inject({ fault: "stall", seconds: 600 });
    // A prepare never signed, below a transaction the caller signed (a key-in-body send would sign its filler ahead).
    const { gap, above } = await signedAboveAbandoned(service, sender);
    await faults.clear();
    await until(() => healingsOf(sender.address, "gap-unfilled").length > 0, "the unfilled gap reported", 15_000);
    expect(healingsOf(sender.address, "gap-unfilled")[0]).to.deep.include({ nonce: gap });
    expect(healingsOf(sender.address, "gap-unfilled")[0]!.detail).to.match(new RegExp(`next send, which takes nonce ${gap}`));
    const filler = await transfer(sender);
    expect(filler.nonce).to.equal(gap);
    const records = await Promise.all([filler, above].map((entry) => service.operations.wait(entry.id, 15_000)));
    expect(
      records.map((entry) => entry.status),
      records.flatMap(transitionReasons).join("; "),
    ).to.deep.equal(["mined", "mined"]);
    expect(healingsOf(sender.address, "gap-unfilled"), "reported once while open").to.have.lengthOf(1);
  });
});
