import { expect } from "chai";
import { Transaction, toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import { isTokenServiceError } from "../../src/domain/errors.js";
import type { NonceHealing } from "../../src/core/operations/nonce-healing.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startFaultyRelay, type FaultyRelay, type RelayedCall } from "../helpers/faulty-relay.js";
import { expectOperationMined, type Pair } from "../helpers/service.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
/** Launches fired at once from one sender: more than one batch of records, broadcast in groups as they are recorded. */
const BURST = 24;

const isSend = (call: RelayedCall) => call.method === "eth_sendRawTransaction";
const nonceOfCall = (call: RelayedCall) => Transaction.from(call.params![0] as string).nonce;

/**
 * A burst of key-in-body launches from one sender into a live node (anvil, mining on send) through a relay that counts
 * and can fail requests: the burst's transactions go to the node in JSON-RPC batches, in nonce order, and what the node
 * answers each one (or not at all) is what its launch answers.
 */
describe("a burst's broadcasts to a live node, in JSON-RPC batches (anvil behind a relay)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let relay: FaultyRelay;
  let service: TokenService;
  const healings: NonceHealing[] = [];

  beforeEach(async function () {
    node = await startAnvil({ chainId: 11155111 });
    relay = await startFaultyRelay(node.url);
    healings.length = 0;
    service = await createTokenService({
      hre,
      env: {},
      requestTimeoutMs: 5_000,
      rpcUrls: { "ethereum/sepolia": [relay.url] },
      onNonceHealing: (healing) => healings.push(healing),
    });
  });

  afterEach(async function () {
    await service?.close();
    await relay?.close();
    await node?.stop();
  });

  async function fundedSender(): Promise<{ address: string; privateKey: string }> {
    const wallet = service.createWallet(SEPOLIA);
    await node.rpc("anvil_setBalance", [wallet.address, toQuantity(10n ** 20n)]);
    return wallet;
  }

  function launch(sender: { address: string; privateKey: string }, index: number) {
    return service.launch({
      ...SEPOLIA,
      type: "erc20",
      token: { name: `Batched ${index}`, symbol: `BT${index}`, initialSupply: "1000" },
      sender: sender.address,
      privateKey: sender.privateKey,
    });
  }

  const nonceOnNode = async (address: string, tag: "latest" | "pending") =>
    Number(BigInt((await node.rpc("eth_getTransactionCount", [address, tag])) as string));
  /** Every eth_sendRawTransaction the relay passed on or refused, one entry per call. */
  const sendCalls = () => relay.requests.flat().filter((method) => method === "eth_sendRawTransaction").length;
  const sendRequests = () => relay.requests.filter((methods) => methods.includes("eth_sendRawTransaction")).length;

  it("sends a burst's transactions in fewer requests than launches, each once, and every launch is mined", async function () {
    const sender = await fundedSender();
    const launched = await Promise.all(Array.from({ length: BURST }, (_, index) => launch(sender, index)));
    expect(launched.map((operation) => operation.status)).to.deep.equal(launched.map(() => "pending"));
    for (const operation of launched) await expectOperationMined(service, operation);
    expect(sendRequests(), "HTTP requests carrying eth_sendRawTransaction").to.be.below(BURST);
    expect(sendCalls(), "each transaction sent once").to.equal(BURST);
    expect(await nonceOnNode(sender.address, "latest"), "one transaction per launch").to.equal(BURST);
    expect(new Set(launched.map((operation) => operation.transactionHash)).size).to.equal(BURST);
  });

  it("answers the sends broadcast after a refused one as the node did; the gap is filled and the sender's next launch is mined", async function () {
    const sender = await fundedSender();
    // The first send inside a batch that has a later one after it is refused, as a node's pool refuses one transaction.
    let refusedNonce: number | undefined;
    relay.setFault(() => ({
      refuseCall: (call, position, calls) => {
        if (refusedNonce !== undefined || !isSend(call) || !calls.slice(position + 1).some(isSend)) return undefined;
        refusedNonce = nonceOfCall(call);
        return "transaction underpriced";
      },
    }));
    const outcomes = await Promise.allSettled(Array.from({ length: BURST }, (_, index) => launch(sender, index)));
    expect(refusedNonce, "a send refused inside a batch, with a later one after it").to.not.equal(undefined);
    relay.setFault(() => "forward");

    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    const accepted = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    // The refused one says so; any other refused was not sent (it came after the refused nonce, in a later group).
    for (const { reason } of refused as PromiseRejectedResult[]) {
      expect(isTokenServiceError(reason), String(reason)).to.equal(true);
      expect(reason.message).to.match(/too cheap for the chain now|not sent: the transaction before it from .* was refused/);
    }
    expect(refused.filter(({ reason }) => /too cheap/.test(reason.message))).to.have.length(1);
    // The ones the node took in the same batch, above the refused nonce, are mined: the tracker filled the gap.
    expect(
      accepted.some((operation) => operation.nonce > refusedNonce!),
      "sent with the refused one and taken",
    ).to.equal(true);
    for (const operation of accepted) await expectOperationMined(service, operation);
    expect(healings.map(({ kind, nonce }) => ({ kind, nonce }))).to.deep.include({ kind: "gap-filled", nonce: refusedNonce });

    const next = await launch(sender, BURST);
    await expectOperationMined(service, next);
    const latest = await nonceOnNode(sender.address, "latest");
    expect(await nonceOnNode(sender.address, "pending"), "nothing waits in the node's pool").to.equal(latest);
  });

  it("leaves the sends of a batch whose answer was lost signed: the tracker finds each on the node, mined once", async function () {
    const sender = await fundedSender();
    // The node takes the first batch of sends, and its answer is lost, on the first try and the one after the backoff.
    let lost = 0;
    relay.setFault((methods) => {
      if (lost >= 2 || methods.filter((method) => method === "eth_sendRawTransaction").length < 2) return "forward";
      lost++;
      return "lose-answer";
    });
    const launched = await Promise.all(Array.from({ length: BURST }, (_, index) => launch(sender, index)));
    expect(lost, "a batch of sends answered with nothing").to.equal(2);
    const unanswered = launched.filter((operation) => operation.status === "signed");
    expect(unanswered.length, "answered as signed: the outcome is unknown, never refused").to.be.above(1);
    for (const operation of launched) await expectOperationMined(service, operation);
    expect(await nonceOnNode(sender.address, "latest"), "one transaction per launch").to.equal(BURST);
  });
});
