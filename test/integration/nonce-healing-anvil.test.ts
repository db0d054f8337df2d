import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { JsonRpcProvider, Wallet, toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import type { NonceHealing } from "../../src/core/operations/nonce-healing.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { cancelAt, signedAboveAbandoned, TestCancels } from "../helpers/nonce-fillers.js";
import { transferToNewAddress, transitionReasons } from "../helpers/service.js";
import { until } from "../helpers/until.js";

// Nonces that heal against a real anvil that mines only when told (`--no-mining`, then evm_mine): another tool sends
// from the service's sender straight to the node, the node forgets its pool (anvil_dropAllTransactions,
// anvil_dropTransaction), and a nonce is left unused below a transaction queued above it.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const GWEI = 10n ** 9n;
const BOUND_MS = 30_000;

describe("nonces that heal on a live node (anvil, mining when told)", function () {
  let node: AnvilNode;
  let rpc: JsonRpcProvider;
  let service: TokenService;
  const healings: NonceHealing[] = [];
  const cancels = new TestCancels({ maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 2n * GWEI });

  before(async function () {
    node = await startAnvil({ args: ["--no-mining"] });
    rpc = new JsonRpcProvider(node.url, 11155111, { staticNetwork: true, cacheTimeout: -1 });
    service = await createTokenService({
      hre,
      env: {},
      rpcUrls: { "ethereum/sepolia": node.url },
      tracker: { dropAfterMs: 1_500, idlePollMs: 50 },
      nonceReservationMs: 300,
      nonceFillers: [cancels],
      onNonceHealing: (healing) => healings.push(healing),
    });
  });

  after(async function () {
    await service?.close();
    rpc?.destroy();
    await node?.stop();
  });

  /** A new sender the node funds, with its key (the service never keeps one). */
  async function newSender(): Promise<Wallet> {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    await node.rpc("anvil_setBalance", [wallet.address, toQuantity(10n ** 19n)]);
    return wallet;
  }

  const transfer = (sender: Wallet, amount = "1") => transferToNewAddress(service, SEPOLIA, sender, amount);

  const pendingNonce = async (address: string) => Number(await node.rpc("eth_getTransactionCount", [address, "pending"]));
  const healingsOf = (sender: string, kind: NonceHealing["kind"]) =>
    healings.filter((healing) => healing.sender === sender && healing.kind === kind);

  it("(a) another tool's transaction at the service's nonce: the record ends failed NONCE_TAKEN in one look, the next send takes the next nonce", async function () {
    const sender = await newSender();
    const mine = await transfer(sender);
    // The same key, with ethers straight to the node: a higher fee replaces the service's transaction, and is mined.
    const theirs = await cancelAt(sender, mine.nonce, { maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: 20n * GWEI });
    await rpc.broadcastTransaction(theirs);
    await node.rpc("evm_mine");
    const record = await service.operations.wait(mine.id, BOUND_MS);
    expect(record.status, transitionReasons(record).join("; ")).to.equal("failed");
    expect(record.error?.code).to.equal("NONCE_TAKEN");
    expect(record.transitions.map((transition) => transition.status)).to.deep.equal(["signed", "pending", "failed"]);
    expect(healingsOf(sender.address, "nonce-taken").map((healing) => healing.operationId)).to.deep.equal([mine.id]);

    const next = await transfer(sender);
    expect(next.nonce).to.equal(mine.nonce + 1);
    await node.rpc("evm_mine");
    expect((await service.operations.wait(next.id, BOUND_MS)).status).to.equal("mined");
  });

  it("(b) a node that lost its pool: the service sends its stored transactions again in nonce order, and the block mines them all", async function () {
    const sender = await newSender();
    const sent = [];
    for (const amount of ["1", "2", "3"]) sent.push(await transfer(sender, amount));
    const first = sent[0]!.nonce;
    expect(await pendingNonce(sender.address)).to.equal(first + 3);
    // No look at the emptied pool: the tracker may send the three again before a read here (a busy machine showed it).
    // That the node lost them is proven below: the service recorded a rebroadcast of each.
    await node.rpc("anvil_dropAllTransactions");
    await until(async () => (await pendingNonce(sender.address)) === first + 3, "all three back in the node's pool", BOUND_MS);
    await node.rpc("evm_mine");
    const records = await Promise.all(sent.map((entry) => service.operations.wait(entry.id, BOUND_MS)));
    expect(
      records.map((record) => record.status),
      records.flatMap(transitionReasons).join("; "),
    ).to.deep.equal(["mined", "mined", "mined"]);
    expect(new Set(records.map((record) => record.blockNumber)).size, "one block").to.equal(1);
    expect(
      healingsOf(sender.address, "rebroadcast")
        .map((healing) => healing.nonce)
        .sort(),
    ).to.deep.equal([first, first + 1, first + 2]);
  });

  it("(b) a node that lost a replacement: the service sends the replacement again, rebuilt from its stored signature, and it is mined under its hash", async function () {
    const sender = await newSender();
    const sent = await transfer(sender);
    const outcome = await service.speedUp(sent.id);
    if (!("sent" in outcome)) throw new Error("a key-in-body transfer has its ladder signed ahead");
    const replacement = outcome.sent.transactionHash!;
    expect(outcome.sent.transactions.find(({ transactionHash }) => transactionHash === replacement)).to.deep.include({
      role: "replacement",
      rung: 1,
    });
    await node.rpc("anvil_dropAllTransactions");
    await until(async () => (await pendingNonce(sender.address)) === sent.nonce + 1, "the replacement back in the node's pool", BOUND_MS);
    expect((await rpc.getTransaction(replacement))?.hash, "the node holds the replacement, not the first").to.equal(replacement);
    await node.rpc("evm_mine");
    const record = await service.operations.wait(sent.id, BOUND_MS);
    expect(record, transitionReasons(record).join("; ")).to.deep.include({ status: "mined", transactionHash: replacement });
    expect((await rpc.getTransactionReceipt(replacement))?.status).to.equal(1);
    expect(
      healingsOf(sender.address, "rebroadcast").map((healing) => healing.nonce),
      "sent again after the drop",
    ).to.include(sent.nonce);
  });

  it("(c) its record at a nonce ended dropped while the next one waits: a filler's transaction takes the nonce, and both are mined", async function () {
    const sender = await newSender();
    cancels.allow(sender);
    const lost = await transfer(sender, "1");
    const waiting = await transfer(sender, "2");
    // Another tool replaces the first in the pool (not mined): the service's copy is refused again until it is dropped.
    const theirs = await cancelAt(sender, lost.nonce, { maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: 20n * GWEI });
    const theirHash = await rpc.send("eth_sendRawTransaction", [theirs]);
    const dropped = await service.operations.wait(lost.id, BOUND_MS);
    expect(dropped.status, transitionReasons(dropped).join("; ")).to.equal("dropped");
    // Then the node loses the other tool's transaction: nonce `lost.nonce` is a gap below the service's waiting one.
    await node.rpc("anvil_dropTransaction", [theirHash]);
    await until(() => healingsOf(sender.address, "gap-filled").length > 0, "the gap filled", BOUND_MS);
    expect(healingsOf(sender.address, "gap-filled")[0]).to.deep.include({ nonce: lost.nonce, detail: "filled with the test's cancel" });
    // Anvil may evict the waiting one with the transaction it dropped: the tracker then sends it again too.
    await until(async () => (await pendingNonce(sender.address)) === waiting.nonce + 1, "both back in the node's pool", BOUND_MS);
    await node.rpc("evm_mine");
    const record = await service.operations.wait(waiting.id, BOUND_MS);
    expect(record.status, transitionReasons(record).join("; ")).to.equal("mined");
    expect((await service.operations.store.getOperation(lost.id))?.status, "what the client was told stays true").to.equal("dropped");
  });

  it("(c) a gap nothing fills (a prepare never signed, below one the caller signed) is reported once; the sender's next send takes it", async function () {
    const sender = await newSender();
    // A key-in-body send above it would sign its filler ahead: the one above is the caller's own signed transaction.
    const { gap, above } = await signedAboveAbandoned(service, sender);
    expect(above.nonce).to.equal(gap + 1);
    await until(() => healingsOf(sender.address, "gap-unfilled").length > 0, "the unfilled gap reported", BOUND_MS);
    expect(healingsOf(sender.address, "gap-unfilled")[0]).to.deep.include({ nonce: gap, ...SEPOLIA });
    const filler = await transfer(sender);
    expect(filler.nonce).to.equal(gap);
    await node.rpc("evm_mine");
    const records = await Promise.all([filler, above].map((entry) => service.operations.wait(entry.id, BOUND_MS)));
    expect(records.map((record) => record.status)).to.deep.equal(["mined", "mined"]);
    expect(healingsOf(sender.address, "gap-unfilled"), "once while it was open").to.have.lengthOf(1);
  });
});

describe("nonces that heal when anvil restarts with its state but not its pool", function () {
  let directory: string;
  let node: AnvilNode | undefined;
  let service: TokenService | undefined;

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "hts-anvil-state-"));
  });

  after(async function () {
    await service?.close();
    await node?.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it("(b) sends the transactions the restarted node forgot again, in nonce order, and they are mined", async function () {
    const args = ["--no-mining", "--state", path.join(directory, "state.json")];
    node = await startAnvil({ args });
    const healings: NonceHealing[] = [];
    service = await createTokenService({
      hre,
      env: {},
      rpcUrls: { "ethereum/sepolia": node.url },
      tracker: { idlePollMs: 50 },
      onNonceHealing: (healing) => healings.push(healing),
    });
    const sender = new Wallet(Wallet.createRandom().privateKey);
    await node.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 19n)]);
    await node.rpc("evm_mine");
    const send = (amount: string) =>
      service!.transfer({
        ...SEPOLIA,
        type: "NATIVE",
        to: Wallet.createRandom().address,
        amount,
        sender: sender.address,
        privateKey: sender.privateKey,
      });
    const sent = [await send("1"), await send("2"), await send("3")];
    await until(
      async () =>
        (await Promise.all(sent.map((entry) => service!.operations.store.getOperation(entry.id)))).every(
          (record) => record?.status === "pending",
        ),
      "the tracker saw all three in the node's pool",
      BOUND_MS,
    );
    // Stopped (its state written to the file) and started again where it listened: the chain is back, its pool is not.
    const { port } = node;
    await node.stop();
    node = await startAnvil({ args, port });
    expect(Number(await node.rpc("eth_getBalance", [sender.address, "latest"]))).to.be.greaterThan(0);
    const first = sent[0]!.nonce;
    await until(
      async () => Number(await node!.rpc("eth_getTransactionCount", [sender.address, "pending"])) === first + 3,
      "all three sent to the restarted node again",
      BOUND_MS,
    );
    await node.rpc("evm_mine");
    const records = await Promise.all(sent.map((entry) => service!.operations.wait(entry.id, BOUND_MS)));
    expect(
      records.map((record) => record.status),
      records.flatMap(transitionReasons).join("; "),
    ).to.deep.equal(["mined", "mined", "mined"]);
    expect(
      healings
        .filter((healing) => healing.kind === "rebroadcast")
        .map((healing) => healing.nonce)
        .sort(),
    ).to.deep.equal([first, first + 1, first + 2]);
  });
});
