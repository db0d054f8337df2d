import { expect } from "chai";

import { decide, decideGrant, decideSent, type Decision, type DecidePolicy, type Observation } from "../../src/core/operations/decide.js";
import type { LeasedOperation, OperationChange } from "../../src/core/operations/types.js";
import { OPERATION_STATUSES, transitionOf, type OperationStatus } from "../../src/domain/lifecycle.js";

const POLICY: DecidePolicy = { confirmations: 3, dropAfterMs: 60_000, reorgWatchMs: 3_600_000 };
const NOW = Date.parse("2026-11-25T12:00:00Z");

function record(status: OperationStatus, fields: Partial<LeasedOperation> = {}): LeasedOperation {
  return {
    id: "op-1",
    apiKeyId: null,
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: {},
    sender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    transactionHash: `0x${"ab".repeat(32)}`,
    contractAddress: null,
    nonce: 0,
    rawTransaction: "0x02",
    status,
    error: null,
    blockNumber: status === "mined" ? 10 : null,
    blockHash: status === "mined" ? "0xblock10" : null,
    result: null,
    transitions: [],
    createdAt: new Date(NOW - 1_000).toISOString(),
    updatedAt: new Date(NOW - 1_000).toISOString(),
    missingSince: null,
    minedAt: status === "mined" ? new Date(NOW - 60_000).toISOString() : null,
    ...fields,
  };
}

const chain = (fields: Partial<Extract<Observation, { kind: "chain" }>> = {}): Observation => ({
  kind: "chain",
  simulated: false,
  pollMs: 1_000,
  head: 20,
  receipt: null,
  inPool: false,
  ...fields,
});

function changeOf(decision: Decision): OperationChange {
  expect(decision, "a change, not an action").to.have.property("change");
  return (decision as { change: OperationChange }).change;
}

describe("decide: the tracker's judgement as a pure function of record, observation, policy and clock", function () {
  it("mined with enough confirmations on a live chain, then watched for reorgs", function () {
    const change = changeOf(
      decide(record("pending"), chain({ head: 12, receipt: { blockNumber: 10, blockHash: "0xb", status: 1 } }), POLICY, NOW),
    );
    expect(change).to.include({ status: "mined", blockNumber: 10, blockHash: "0xb" });
    expect(change.checkInMs).to.be.a("number");
  });

  it("stays pending while confirmations are missing, and counts one on a simulated chain", function () {
    const receipt = { blockNumber: 19, blockHash: "0xb", status: 1 };
    expect(changeOf(decide(record("pending"), chain({ receipt }), POLICY, NOW))).to.include({ status: "pending", blockNumber: 19 });
    expect(changeOf(decide(record("pending"), chain({ receipt, simulated: true }), POLICY, NOW))).to.include({
      status: "mined",
      checkInMs: null,
    });
  });

  it("fails a reverted transaction with TRANSACTION_REVERTED", function () {
    const change = changeOf(
      decide(record("pending"), chain({ head: 30, receipt: { blockNumber: 10, blockHash: "0xb", status: 0 } }), POLICY, NOW),
    );
    expect(change.status).to.equal("failed");
    expect(change.error?.code).to.equal("TRANSACTION_REVERTED");
  });

  it("moves a signed record the node has to pending first", function () {
    expect(
      changeOf(decide(record("signed"), chain({ receipt: { blockNumber: 10, blockHash: "0xb", status: 1 } }), POLICY, NOW)),
    ).to.include({
      status: "pending",
      checkInMs: 0,
    });
    expect(changeOf(decide(record("signed"), chain({ inPool: true }), POLICY, NOW))).to.include({ status: "pending" });
    expect(changeOf(decide(record("signed"), { kind: "accepted-here" }, POLICY, NOW))).to.include({ status: "pending" });
  });

  it("asks for a broadcast when the node does not know a transaction it can send again, and fails one it cannot", function () {
    expect(decide(record("pending"), chain(), POLICY, NOW)).to.deep.equal({ action: "broadcast" });
    expect(changeOf(decide(record("signed", { rawTransaction: null }), chain(), POLICY, NOW))).to.include({ status: "failed" });
  });

  it("fails a record whose nonce another transaction took (NONCE_TAKEN) at once, signed or pending, instead of sending it again", function () {
    for (const status of ["signed", "pending"] as const) {
      const subject = record(status, { nonce: 4, missingSince: new Date(NOW - 1_000).toISOString() });
      const change = changeOf(decide(subject, chain({ nonceTakenBy: { confirmedNonce: 6 } }), POLICY, NOW));
      expect(change).to.include({ status: "failed", checkInMs: null, missingSince: null });
      expect(change.error?.code).to.equal("NONCE_TAKEN");
      expect(change.reason).to.equal(
        "nonce 4 was taken by another transaction from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (the chain's next nonce for it is 6): this one can never be mined",
      );
    }
    // Seen in a block or in the pool, the record's own transaction is what the chain has: that wins over the count.
    const mined = chain({ head: 12, receipt: { blockNumber: 10, blockHash: "0xb", status: 1 }, nonceTakenBy: { confirmedNonce: 6 } });
    expect(changeOf(decide(record("pending"), mined, POLICY, NOW)).status).to.equal("mined");
    expect(changeOf(decide(record("pending"), chain({ inPool: true, nonceTakenBy: { confirmedNonce: 6 } }), POLICY, NOW)).status).to.equal(
      undefined,
    );
    // Without the count, a missing transaction is sent again, as before.
    expect(decide(record("pending"), chain(), POLICY, NOW)).to.deep.equal({ action: "broadcast" });
  });

  it("drops a pending transaction the node keeps refusing once the drop window passed on the given clock", function () {
    const refused: Observation = {
      kind: "broadcast",
      outcome: { kind: "refused", error: { code: "TRANSACTION_REJECTED", message: "nonce too low" }, transient: false },
      pollMs: 1_000,
    };
    const missingSince = new Date(NOW - 30_000).toISOString();
    expect(changeOf(decide(record("pending", { missingSince }), refused, POLICY, NOW)).status, "inside the window").to.equal(undefined);
    const later = changeOf(decide(record("pending", { missingSince }), refused, POLICY, NOW + 30_000));
    expect(later.status).to.equal("dropped");
    expect(later.error?.code).to.equal("TRANSACTION_DROPPED");
    expect(changeOf(decide(record("signed"), refused, POLICY, NOW)), "a first broadcast refused").to.include({ status: "failed" });
  });

  it("keeps trying a signed record whose broadcasts go unanswered, then drops it", function () {
    const unanswered: Observation = {
      kind: "broadcast",
      outcome: { kind: "refused", error: { code: "UPSTREAM_UNAVAILABLE", message: "down" }, transient: true },
      pollMs: 1_000,
    };
    const first = changeOf(decide(record("signed"), unanswered, POLICY, NOW));
    expect(first.status).to.equal(undefined);
    expect(first.missingSince?.getTime()).to.equal(NOW);
    const missingSince = new Date(NOW - POLICY.dropAfterMs).toISOString();
    expect(changeOf(decide(record("signed", { missingSince }), unanswered, POLICY, NOW)).status).to.equal("dropped");
    expect(changeOf(decide(record("pending", { missingSince }), unanswered, POLICY, NOW)), "pending: only look again").to.deep.equal({
      checkInMs: 2_000,
    });
  });

  it("sends a mined record back to pending when its block left the canonical chain, and stops watching after the window", function () {
    expect(changeOf(decide(record("mined"), { kind: "canonical", hash: "0xother", pollMs: 1_000 }, POLICY, NOW))).to.include({
      status: "pending",
      blockNumber: null,
    });
    expect(changeOf(decide(record("mined"), { kind: "canonical", hash: "0xblock10", pollMs: 1_000 }, POLICY, NOW)).checkInMs).to.be.a(
      "number",
    );
    const old = record("mined", { minedAt: new Date(NOW - POLICY.reorgWatchMs).toISOString() });
    expect(changeOf(decide(old, { kind: "canonical", hash: "0xblock10", pollMs: 1_000 }, POLICY, NOW)).checkInMs).to.equal(null);
  });

  it("finishes a faucet grant from the journal, makes a missing one, and fails one whose pair is no longer simulated", function () {
    const grant = record("signed", { kind: "faucet", transactionHash: null, rawTransaction: null });
    expect(
      changeOf(decide(grant, { kind: "grant", simulated: true, granted: true, balance: 5n, chainLabel: "x" }, POLICY, NOW)),
    ).to.include({
      status: "mined",
    });
    expect(decide(grant, { kind: "grant", simulated: true, granted: false, chainLabel: "x" }, POLICY, NOW)).to.deep.equal({
      action: "grant",
    });
    expect(changeOf(decide(grant, { kind: "granted", balance: 7n }, POLICY, NOW)).result).to.deep.equal({ balance: "7" });
    expect(changeOf(decide(grant, { kind: "grant", simulated: false, granted: false, chainLabel: "x" }, POLICY, NOW)).status).to.equal(
      "failed",
    );
  });

  it("never proposes a move the lifecycle table lacks, whatever it observes", function () {
    const observations: Observation[] = [
      { kind: "accepted-here" },
      { kind: "node-error" },
      { kind: "no-transaction" },
      { kind: "canonical", hash: null, pollMs: 1 },
      { kind: "granted", balance: 1n },
      { kind: "grant", simulated: true, granted: true, chainLabel: "x" },
      { kind: "grant", simulated: false, granted: false, chainLabel: "x" },
      chain({ receipt: { blockNumber: 1, blockHash: "0x1", status: 1 } }),
      chain({ receipt: { blockNumber: 1, blockHash: "0x1", status: 0 } }),
      chain({ receipt: { blockNumber: 20, blockHash: "0x1", status: 1 } }),
      chain({ inPool: true }),
      chain({ nonceTakenBy: { confirmedNonce: 5 } }),
      { kind: "broadcast", outcome: { kind: "accepted" }, pollMs: 1 },
      { kind: "broadcast", outcome: { kind: "already-known" }, pollMs: 1 },
      { kind: "broadcast", outcome: { kind: "refused", error: { code: "X", message: "x" }, transient: false }, pollMs: 1 },
      { kind: "broadcast", outcome: { kind: "refused", error: { code: "X", message: "x" }, transient: true }, pollMs: 1 },
    ];
    // The tracker observes unfinished records and mined ones within their watch; the guard refuses the rest anyway.
    const observed = OPERATION_STATUSES.filter((status) => status !== "failed" && status !== "dropped");
    for (const status of observed) {
      for (const observation of observations) {
        const missingSince = new Date(NOW - 2 * POLICY.dropAfterMs).toISOString();
        for (const subject of [record(status), record(status, { missingSince })]) {
          if (status === "mined" && observation.kind !== "canonical") continue;
          const decision = decide(subject, observation, POLICY, NOW);
          if (!("change" in decision) || decision.change.status === undefined) continue;
          expect(transitionOf(status, decision.change.status), `${status} → ${decision.change.status} on ${observation.kind}`).to.not.equal(
            undefined,
          );
        }
      }
    }
  });

  it("writes a request's own broadcast outcome: a refusal fails the record, no answer leaves it signed for the tracker", function () {
    expect(decideSent({ code: "INSUFFICIENT_FUNDS", message: "poor", transient: false }, 1_000)).to.include({ status: "failed" });
    const unknown = decideSent({ code: "UPSTREAM_TIMEOUT", message: "slow", transient: true }, 1_000);
    expect(unknown.status).to.equal(undefined);
    expect(unknown.from).to.deep.equal(["signed"]);
    expect(decideGrant({ balance: 3n })).to.include({ status: "mined" });
    expect(decideGrant({ error: { code: "X", message: "no" } })).to.include({ status: "failed" });
  });
});
