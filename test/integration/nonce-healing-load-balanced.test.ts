import { expect } from "chai";
import { Transaction, Wallet } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService, type TransferOutcome } from "../../src/api.js";
import type { NonceHealing } from "../../src/core/operations/nonce-healing.js";
import type { OperationRecord } from "../../src/core/operations/types.js";
import type { AnvilNode } from "../helpers/anvil.js";
import { startAnvilNetwork, type AnvilNetwork } from "../helpers/anvil-network.js";
import { cancelAt, signedAboveAbandoned, TestCancels } from "../helpers/nonce-fillers.js";
import { startRoundRobinRelay, type RelayedRequest, type RoundRobinRelay } from "../helpers/round-robin-relay.js";
import { transferToNewAddress, transitionReasons } from "../helpers/service.js";
import { until } from "../helpers/until.js";

// Nonces that heal behind a provider's load balancer: two real anvil nodes of one chain (one genesis; a block one node
// mines, the other takes as it is) that do not share their transaction pools, behind one URL that hands each request to
// the next node in turn. The service knows only that URL. A transaction sent through it reaches one node; what the
// other learns, it learns only if something sends it there, so each node's next nonce for a sender may differ.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const GWEI = 10n ** 9n;
const BOUND_MS = 30_000;

const statuses = (record: OperationRecord) => record.transitions.map((transition) => transition.status);

/** A call the tracker makes when it looks at the chain: the head, a block's receipts, a receipt by hash. */
const isChainLook = (call: { method: string; params: unknown[] }) =>
  call.method === "eth_getTransactionReceipt" ||
  call.method === "eth_getBlockReceipts" ||
  (call.method === "eth_getBlockByNumber" && call.params[0] === "latest");

describe("nonces that heal behind a load balancer (two anvil nodes, one chain, a pool each)", function () {
  let network: AnvilNetwork;
  let relay: RoundRobinRelay;
  let service: TokenService;
  const healings: NonceHealing[] = [];
  const cancels = new TestCancels({ maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 2n * GWEI });

  before(async function () {
    network = await startAnvilNetwork(2);
    relay = await startRoundRobinRelay(network.nodes.map((node) => node.url));
    service = await createTokenService({
      hre,
      env: {},
      rpcUrls: { "ethereum/sepolia": relay.url },
      tracker: { idlePollMs: 50 },
      nonceReservationMs: 300,
      nonceFillers: [cancels],
      onNonceHealing: (healing) => healings.push(healing),
    });
  });

  after(async function () {
    await service?.close();
    await relay?.close();
    await network?.stop();
  });

  /** A new sender both nodes fund, with its key (the service never keeps one). */
  async function newSender(): Promise<Wallet> {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    await network.setBalance(wallet.address, 10n ** 19n);
    return wallet;
  }

  const transfer = (sender: Wallet, amount = "1") => transferToNewAddress(service, SEPOLIA, sender, amount);

  /**
   * A transfer, with the provider held right after its broadcast was answered: the one node it reached, and each node's
   * next nonce for the sender then, before any look of the tracker could send it anywhere else.
   */
  async function transferSeen(
    sender: Wallet,
    amount = "1",
    send: () => Promise<TransferOutcome> = () => transfer(sender, amount),
  ): Promise<{ sent: TransferOutcome; holder: number; nonces: number[] }> {
    // Its broadcast: a new transaction from the sender (the tracker may be sending its earlier ones again meanwhile).
    const before = new Set(relay.requests.flatMap((request) => broadcastsIn(request)).map((transaction) => transaction.hash));
    const isNew = (transaction: Transaction) => transaction.from === sender.address && !before.has(transaction.hash);
    const held = relay.pauseAfter((calls) => broadcastsIn({ calls }).some(isNew));
    const sending = send();
    try {
      await Promise.race([held, sending]);
      const nonces = await network.pendingNonces(sender.address);
      const broadcast = relay.requests.findLast((request) => broadcastsIn(request).some(isNew))!;
      relay.resume();
      const sent = await sending;
      expect(broadcastsIn(broadcast)[0]!.hash).to.equal(sent.transactionHash);
      return { sent, holder: broadcast.node, nonces };
    } finally {
      relay.resume();
    }
  }

  /** The transactions a request broadcasts. */
  const broadcastsIn = (request: Pick<RelayedRequest, "calls">) =>
    request.calls.filter((call) => call.method === "eth_sendRawTransaction").map((call) => Transaction.from(call.params[0] as string));

  const record = async (id: string) => (await service.operations.store.getOperation(id))!;
  const isFinal = async (ids: string[]) =>
    (await Promise.all(ids.map(record))).every((each) => each.status !== "signed" && each.status !== "pending");
  const healingsOf = (sender: string, kind: NonceHealing["kind"]) =>
    healings.filter((healing) => healing.sender === sender && healing.kind === kind);

  /** The nodes the relay handed a broadcast of the transaction `hash` to. */
  const nodesSentTo = (hash: string) => [
    ...new Set(
      relay.requests
        .filter((request) => broadcastsIn(request).some((transaction) => transaction.hash === hash))
        .map((request) => request.node),
    ),
  ];

  /** Looks of the tracker at a hash since request `mark`: its receipt asked. */
  const looksAt = (hash: string, mark: number) =>
    relay.requests
      .slice(mark)
      .filter((request) => request.calls.some((call) => call.method === "eth_getTransactionReceipt" && call.params[0] === hash)).length;

  /** What the nodes were asked since `mark`, one line a request (for a failure's message). */
  const trace = (mark: number) =>
    relay.requests
      .slice(mark)
      .map(
        (request) => `node ${request.node}: ${request.calls.map((call) => call.method).join(", ")} -> ${request.answer ?? "(no answer)"}`,
      )
      .join("\n");

  /**
   * Blocks come slower than the service looks (Ethereum: a block each 12 s, a look each second): `producer` mines the
   * next block once the tracker has asked for receipts twice since the last one, until the records `ids` are final.
   */
  async function produceUntilFinal(producer: AnvilNode, ids: string[]): Promise<void> {
    const start = relay.requests.length;
    const deadline = Date.now() + BOUND_MS;
    let blocks = 0;
    while (!(await isFinal(ids))) {
      if (Date.now() > deadline) {
        const records = await Promise.all(ids.map(record));
        throw new Error(
          `not final within ${BOUND_MS} ms (${blocks} blocks):\n${records.flatMap(transitionReasons).join("\n")}\n${trace(start)}`,
        );
      }
      const mark = relay.requests.length;
      // A look reads the head (the chain's follower) or receipts: the service follows blocks, so with no new block its
      // looks read the head alone.
      const receiptAsks = () => relay.requests.slice(mark).filter((request) => request.calls.some(isChainLook)).length;
      await until(async () => receiptAsks() >= 2 || (await isFinal(ids)), "the tracker looking", BOUND_MS);
      if (await isFinal(ids)) break;
      await relay.exclusive(() => network.mine(producer));
      blocks++;
    }
  }

  it("a node behind the other: a mined record's block missing from it is no reorg; the record stays mined, watched as before", async function () {
    const sender = await newSender();
    const { sent, holder } = await transferSeen(sender);
    const [ahead, behind] = [network.nodes[holder]!, network.nodes[1 - holder]!];
    const blockNumber = await relay.exclusive(() => network.mine(ahead, { behind: [behind] }));
    await until(async () => (await record(sent.id)).status === "mined", "mined (a receipt read at the node ahead)", BOUND_MS);
    const mark = relay.requests.length;
    // The tracker's reorg watch reads the head of each node in turn: the one behind has a lower head, and no block at the
    // record's height yet.
    const headAsks = (node: number) =>
      relay.requests
        .slice(mark)
        .filter(
          (request) => request.node === node && request.calls.some((call) => isChainLook(call) && call.method === "eth_getBlockByNumber"),
        ).length;
    await until(() => headAsks(1 - holder) >= 1 && headAsks(holder) >= 1, "the head asked of both nodes", BOUND_MS);
    const watched = await record(sent.id);
    expect(watched.status, `${transitionReasons(watched).join("; ")}\n${trace(mark)}`).to.equal("mined");
    expect(transitionReasons(watched).some((reason) => reason.includes("reorg"))).to.equal(false);
    expect(watched.blockNumber).to.equal(blockNumber);
    await relay.exclusive(() => network.catchUp(behind));
    expect(statuses(await record(sent.id))).to.deep.equal(["signed", "pending", "mined"]);
  });

  it("a send one node took never reaches the node producing the blocks: the first look that asks that node sends it there, and it is mined", async function () {
    const sender = await newSender();
    const mark = relay.requests.length;
    const { sent, holder, nonces } = await transferSeen(sender);
    const producer = network.nodes[1 - holder]!;
    expect(nonces[holder], "the node that took it counts it").to.equal(sent.nonce + 1);
    expect(nonces[1 - holder], "the producer never saw it").to.equal(sent.nonce);

    await produceUntilFinal(producer, [sent.id]);
    const mined = await record(sent.id);
    expect(mined.status, `${transitionReasons(mined).join("; ")}\n${trace(mark)}`).to.equal("mined");
    // Sent again where it was missing; not replaced with higher fees, nor dropped: the fee was never the trouble.
    expect(statuses(mined)).to.deep.equal(["signed", "pending", "pending", "mined"]);
    expect(mined.transitions[2]!.reason).to.equal("re-broadcast: the node no longer knew it");
    expect(nodesSentTo(sent.transactionHash).sort()).to.deep.equal([0, 1]);
    expect(healingsOf(sender.address, "rebroadcast").map((healing) => healing.nonce)).to.deep.equal([sent.nonce]);
    // In the pass whose pool read first reached the producer: it was sent there before the tracker's next look at it.
    const asked = relay.requests.slice(mark);
    const touches = (request: RelayedRequest, method: string) =>
      request.calls.some((call) => call.method === method && call.params[0] === sent.transactionHash);
    // The producer asked, in a pool check (the transaction by hash, then the sender's next nonce), for either: whichever
    // request of the check the load balancer gave it.
    const checked = asked.findIndex((request) => touches(request, "eth_getTransactionByHash"));
    const asksSender = (request: RelayedRequest) =>
      request.calls.some(
        (call) => call.method === "eth_getTransactionCount" && String(call.params[0]).toLowerCase() === sender.address.toLowerCase(),
      );
    const missed = asked.findIndex(
      (request, index) =>
        index >= checked && request.node === 1 - holder && (touches(request, "eth_getTransactionByHash") || asksSender(request)),
    );
    expect(checked, trace(mark)).to.be.at.least(0);
    const reached = asked.findIndex(
      (request, index) =>
        index > missed && request.node === 1 - holder && broadcastsIn(request).some((each) => each.hash === sent.transactionHash),
    );
    const nextLook = asked.findIndex((request, index) => index > missed && request.calls.some(isChainLook));
    expect(missed, trace(mark)).to.be.at.least(0);
    expect(reached, trace(mark)).to.be.greaterThan(missed);
    expect(reached, trace(mark)).to.be.lessThan(nextLook);
  });

  it("a sender's sends spread over both nodes (each node's next nonce differs): the producer gets the ones it lacks, and all are mined", async function () {
    const sender = await newSender();
    const mark = relay.requests.length;
    const seen: Array<Awaited<ReturnType<typeof transferSeen>>> = [];
    // Another client of the same provider: its request between two sends moves the turn the next broadcast falls on.
    const otherClient = () =>
      fetch(relay.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber" }) });
    while (seen.length < 6) {
      seen.push(await transferSeen(sender, String(seen.length + 1)));
      const holders = seen.map((each) => each.holder);
      if (holders.length >= 3 && new Set(holders).size === 2) break;
      if (holders.length >= 2 && holders.at(-1) === holders.at(-2)) await otherClient();
    }
    const sent = seen.map((each) => each.sent);
    expect(new Set(seen.map((each) => each.holder)).size, "sends on both nodes").to.equal(2);
    expect(sent.map((each) => each.nonce)).to.deep.equal(sent.map((_, index) => sent[0]!.nonce + index));
    // The producer lacks the lowest one, and holds a later one it cannot mine before it.
    const producerIndex = 1 - seen[0]!.holder;
    const producer = network.nodes[producerIndex]!;
    const last = seen.at(-1)!.nonces;
    // Unless the tracker already sent it the lowest (the relay saw that broadcast reach it): it heals as sends go on.
    if (!nodesSentTo(sent[0]!.transactionHash).includes(producerIndex)) {
      expect(last[producerIndex], "the producer's next nonce: the lowest, which it lacks").to.equal(sent[0]!.nonce);
    }
    expect(last[seen[0]!.holder]).to.be.greaterThan(sent[0]!.nonce);

    await produceUntilFinal(
      producer,
      sent.map((each) => each.id),
    );
    const records = await Promise.all(sent.map((each) => record(each.id)));
    expect(
      records.map((each) => each.status),
      `${records.flatMap(transitionReasons).join("; ")}\n${trace(mark)}`,
    ).to.deep.equal(sent.map(() => "mined"));
    expect(records.flatMap((each) => each.transitions).filter((transition) => transition.reason.startsWith("replaced by"))).to.deep.equal(
      [],
    );
    const lacked = seen.filter((each) => each.holder !== producerIndex).map((each) => each.sent.nonce);
    const resent = new Set(healingsOf(sender.address, "rebroadcast").map((healing) => healing.nonce));
    expect(
      lacked.filter((nonce) => !resent.has(nonce)),
      "every nonce the producer lacked was sent to it again",
    ).to.deep.equal([]);
  });

  it("another wallet's transaction at the service's nonce, mined by the producer: the record the chain decided is settled failed (NONCE_TAKEN) within one pass, and the next send takes the next nonce", async function () {
    const sender = await newSender();
    const { sent: mine, holder } = await transferSeen(sender);
    const producer = network.nodes[1 - holder]!;
    // The same key in another wallet, with its own endpoint: straight to the producing node, at a higher fee.
    const theirs = await cancelAt(sender, mine.nonce, { maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: 20n * GWEI });
    await producer.rpc("eth_sendRawTransaction", [theirs]);
    await relay.exclusive(() => network.mine(producer));
    const theirReceipt = (await producer.rpc("eth_getTransactionReceipt", [Transaction.from(theirs).hash])) as { status: string } | null;
    expect(theirReceipt?.status).to.equal("0x1");
    expect(await network.pendingNonces(sender.address), "both nodes: the nonce used, the service's copy gone").to.deep.equal([
      mine.nonce + 1,
      mine.nonce + 1,
    ]);
    const mark = relay.requests.length;
    await until(() => isFinal([mine.id]), "the record settled", BOUND_MS);
    const failed = await record(mine.id);
    expect(failed.status, `${transitionReasons(failed).join("; ")}\n${trace(mark)}`).to.equal("failed");
    expect(failed.error?.code).to.equal("NONCE_TAKEN");
    expect(statuses(failed)).not.to.include("dropped");
    // One pass after the block: its look, and the look again after the nonce count that confirms it.
    expect(looksAt(mine.transactionHash, mark), trace(mark)).to.be.at.most(2);
    expect(healingsOf(sender.address, "nonce-taken").map((healing) => healing.operationId)).to.deep.equal([mine.id]);

    const next = await transfer(sender);
    expect(next.nonce).to.equal(mine.nonce + 1);
    await produceUntilFinal(producer, [next.id]);
    expect((await record(next.id)).status).to.equal("mined");
  });

  it("a nonce the service left unused below a send that waits: a filler's transaction takes it on the producer, and the send is mined", async function () {
    const sender = await newSender();
    cancels.allow(sender);
    const prepared = await service.prepareTransfer({ ...SEPOLIA, type: "NATIVE", to: sender.address, amount: "1", sender: sender.address });
    const gap = prepared.unsignedTransaction.nonce;
    const { sent: above, holder } = await transferSeen(sender);
    expect(above.nonce).to.equal(gap + 1);
    const producer = network.nodes[1 - holder]!;
    const mark = relay.requests.length;

    await produceUntilFinal(producer, [above.id]);
    const mined = await record(above.id);
    expect(mined.status, `${transitionReasons(mined).join("; ")}\n${trace(mark)}`).to.equal("mined");
    expect(healingsOf(sender.address, "gap-filled").map((healing) => healing.nonce)).to.include(gap);
    // The chain's transaction at the gap is the filler's cancel (to the sender, no value).
    const filled = await cancelAt(sender, gap, { maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    const receipt = (await producer.rpc("eth_getTransactionReceipt", [Transaction.from(filled).hash])) as { status: string } | null;
    expect(receipt?.status).to.equal("0x1");
    expect(await network.pendingNonces(sender.address)).to.deep.equal([gap + 2, gap + 2]);
  });

  it("a nonce the service left unused, nothing to fill it: reported, and the sender's next send takes it; both are mined", async function () {
    const sender = await newSender();
    // A prepare never signed, below a transaction the caller signed (a key-in-body send would sign its filler ahead).
    let gap = -1;
    const { sent: above, holder } = await transferSeen(sender, "1", async () => {
      const made = await signedAboveAbandoned(service, sender);
      gap = made.gap;
      return made.above;
    });
    expect(above.nonce).to.equal(gap + 1);
    const producer = network.nodes[1 - holder]!;
    await until(() => healingsOf(sender.address, "gap-unfilled").length > 0, "the unfilled gap reported", BOUND_MS);
    const filler = await transfer(sender);
    expect(filler.nonce, "the next send takes the gap, whichever node it asked").to.equal(gap);
    const mark = relay.requests.length;
    await produceUntilFinal(producer, [filler.id, above.id]);
    const records = await Promise.all([filler, above].map((each) => record(each.id)));
    expect(
      records.map((each) => each.status),
      `${records.flatMap(transitionReasons).join("; ")}\n${trace(mark)}`,
    ).to.deep.equal(["mined", "mined"]);
    expect(healingsOf(sender.address, "gap-unfilled"), "once while it was open").to.have.lengthOf(1);
  });
});
