import { expect } from "chai";

import {
  decide,
  decideGrant,
  decideSent,
  type ChainObservation,
  type Decision,
  type DecidePolicy,
  type Observation,
} from "../../src/core/operations/decide.js";
import type { LeasedOperation, OperationChange } from "../../src/core/operations/types.js";
import { OPERATION_STATUSES, transitionOf, type OperationStatus, type OperationTransaction } from "../../src/domain/lifecycle.js";

const POLICY: DecidePolicy = { confirmations: 3, dropAfterMs: 60_000, reorgWatchMs: 3_600_000, behindGraceMs: 30_000 };
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
    stuck: null,
    transactions: [],
    broadcastBlock: null,
    ...fields,
  };
}

const HASHES = {
  original: `0x${"ab".repeat(32)}`,
  rung1: `0x${"01".repeat(32)}`,
  rung2: `0x${"02".repeat(32)}`,
  rung3: `0x${"03".repeat(32)}`,
  cancel: `0x${"cc".repeat(32)}`,
};
const GWEI = 1_000_000_000n;

const step = (transactionHash: string, role: OperationTransaction["role"], rung: number, maxFeeGwei: bigint, sent: boolean) => ({
  transactionHash,
  role,
  rung,
  maxFeePerGas: (maxFeeGwei * GWEI).toString(),
  maxPriorityFeePerGas: GWEI.toString(),
  gasPrice: null,
  broadcastAt: sent ? new Date(NOW - 60_000).toISOString() : null,
});

/** A key-in-body send's transactions: the original at 3 gwei, three replacements signed ahead, the cancel at the ceiling. */
const LADDER: OperationTransaction[] = [
  step(HASHES.original, "original", 0, 3n, true),
  step(HASHES.rung1, "replacement", 1, 5n, false),
  step(HASHES.rung2, "replacement", 2, 9n, false),
  step(HASHES.rung3, "replacement", 3, 15n, false),
  step(HASHES.cancel, "cancel", 4, 24n, false),
];

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

  it("counts the including block as one confirmation even when the pass read its head before that block", function () {
    // The pass's head (block 51) was read before the receipt's block 52 was mined: the receipt shows the chain is at 52.
    const receipt = { blockNumber: 52, blockHash: "0xb", status: 1 };
    const oneConfirmation = { ...POLICY, confirmations: 1 };
    expect(changeOf(decide(record("pending"), chain({ head: 51, receipt }), oneConfirmation, NOW))).to.include({ status: "mined" });
    // Two are asked for: one is missing whatever head the pass read below the block.
    expect(changeOf(decide(record("pending"), chain({ head: 51, receipt }), { ...POLICY, confirmations: 2 }, NOW))).to.include({
      status: "pending",
      reason: "included in block 52; waiting for 2 confirmations",
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

  it("takes a signed record already in a block on from pending in the same write: pending, then what its receipt says", function () {
    const receipt = { blockNumber: 10, blockHash: "0xb", status: 1 };
    // Looked at after a crash (the node has it, mined) and at the first look of a send accepted here: the same two moves.
    const included = chain({ head: 12, receipt }) as ChainObservation;
    for (const observation of [included, { kind: "accepted-here", included } as const]) {
      const decision = decide(record("signed"), observation, POLICY, NOW);
      expect(changeOf(decision)).to.include({ status: "pending", reason: "accepted by the node", broadcastBlock: 12 });
      expect((decision as { then?: OperationChange }).then).to.include({ status: "mined", blockNumber: 10, blockHash: "0xb" });
    }
    // Reverted: pending, then failed; without enough confirmations: pending, then still pending in its block.
    const reverted = decide(record("signed"), chain({ head: 30, receipt: { ...receipt, status: 0 } }), POLICY, NOW);
    expect((reverted as { then?: OperationChange }).then).to.include({ status: "failed" });
    const young = decide(record("signed"), chain({ head: 10, receipt }), POLICY, NOW);
    expect((young as { then?: OperationChange }).then).to.include({ status: "pending", blockNumber: 10 });
    // Accepted here and not in a block yet: pending alone, without asking whether the node still has it.
    expect(decide(record("signed"), { kind: "accepted-here" }, POLICY, NOW)).to.not.have.property("then");
    // A record that moved on meanwhile is left as it is.
    expect(changeOf(decide(record("mined"), { kind: "accepted-here", included }, POLICY, NOW))).to.deep.equal({});
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

  it("counts no drop window for a record refused while a live reservation holds a nonce below it, and clears one begun", function () {
    const behind: Observation = {
      kind: "broadcast",
      outcome: { kind: "refused", error: { code: "UPSTREAM_UNAVAILABLE", message: "nonce too high" }, transient: true },
      pollMs: 1_000,
      behindReservation: true,
    };
    const longAgo = new Date(NOW - 10 * POLICY.dropAfterMs).toISOString();
    for (const status of ["signed", "pending"] as const) {
      expect(changeOf(decide(record(status), behind, POLICY, NOW)), status).to.deep.equal({ checkInMs: 5_000 });
      expect(changeOf(decide(record(status, { missingSince: longAgo }), behind, POLICY, NOW)), `${status}, missing before`).to.deep.equal({
        missingSince: null,
        checkInMs: 5_000,
      });
    }
    // A refusal that is final stays final: the reservation below explains only a refusal for the gap.
    const final: Observation = {
      ...behind,
      outcome: { kind: "refused", error: { code: "INSUFFICIENT_FUNDS", message: "poor" }, transient: false },
    };
    expect(changeOf(decide(record("signed"), final, POLICY, NOW))).to.include({ status: "failed" });
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

  it("leaves a mined record's watch to the chain's follower once it took it over: looked at again when the watch ends", function () {
    const minedAt = new Date(NOW - 60_000).toISOString();
    const canonical: Observation = { kind: "canonical", hash: "0xblock10", pollMs: 1_000 };
    // Watched by the record: looked at again within minutes (a tenth of its age, at least five polls).
    expect(changeOf(decide(record("mined", { minedAt }), canonical, POLICY, NOW)).checkInMs).to.equal(6_000);
    // Taken over: once more, when the watch ends; a reorg the follower sees brings it back sooner (tracker).
    expect(changeOf(decide(record("mined", { minedAt }), { ...canonical, followed: true }, POLICY, NOW)).checkInMs).to.equal(
      POLICY.reorgWatchMs - 60_000,
    );
    const old = record("mined", { minedAt: new Date(NOW - POLICY.reorgWatchMs).toISOString() });
    expect(changeOf(decide(old, { ...canonical, followed: true }, POLICY, NOW)).checkInMs).to.equal(null);
    // Another block at its height is a reorg, taken over or not.
    expect(changeOf(decide(record("mined", { minedAt }), { ...canonical, hash: "0xother", followed: true }, POLICY, NOW))).to.include({
      status: "pending",
    });
  });

  it("waits out a node behind the chain: a mined record's block missing (no block at its height) is a reorg only once missing for the grace", function () {
    const missing: Observation = { kind: "canonical", hash: null, pollMs: 1_000 };
    // First seen missing: remembered, looked at again within a poll, still mined.
    expect(changeOf(decide(record("mined"), missing, POLICY, NOW))).to.deep.equal({ missingSince: new Date(NOW), checkInMs: 1_000 });
    const since = new Date(NOW - POLICY.behindGraceMs + 1).toISOString();
    expect(changeOf(decide(record("mined", { missingSince: since }), missing, POLICY, NOW))).to.deep.equal({
      missingSince: new Date(Date.parse(since)),
      checkInMs: 1_000,
    });
    // Back (the node caught up, or another node answered): forgotten, watched as before.
    const back = changeOf(
      decide(record("mined", { missingSince: since }), { kind: "canonical", hash: "0xblock10", pollMs: 1_000 }, POLICY, NOW),
    );
    expect(back).to.include({ missingSince: null });
    expect(back.status).to.equal(undefined);
    // Missing for the whole grace: the chain was rewound under it.
    const gone = new Date(NOW - POLICY.behindGraceMs).toISOString();
    const reorg = changeOf(decide(record("mined", { missingSince: gone }), missing, POLICY, NOW));
    expect(reorg).to.include({ status: "pending", blockNumber: null, blockHash: null, missingSince: null });
    expect(reorg.reason).to.match(/^reorg: block 10 .* no block at its height for 30 s$/);
    // Another block at its height is a reorg at once; so is a simulated chain's missing block (its reorg fault).
    expect(changeOf(decide(record("mined"), { kind: "canonical", hash: "0xother", pollMs: 1_000 }, POLICY, NOW)).status).to.equal(
      "pending",
    );
    expect(changeOf(decide(record("mined"), { ...missing, simulated: true }, POLICY, NOW)).status).to.equal("pending");
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
      {
        kind: "accepted-here",
        included: chain({ head: 30, receipt: { blockNumber: 10, blockHash: "0x1", status: 1 } }) as ChainObservation,
      },
      {
        kind: "accepted-here",
        included: chain({ head: 30, receipt: { blockNumber: 10, blockHash: "0x1", status: 0 } }) as ChainObservation,
      },
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
      { kind: "replaced", transactionHash: HASHES.rung1, outcome: { kind: "accepted" }, pollMs: 1, head: 30 },
      {
        kind: "replaced",
        transactionHash: HASHES.rung1,
        outcome: { kind: "refused", error: { code: "X", message: "x" }, transient: false },
        pollMs: 1,
        head: 30,
      },
      chain({ receipt: { blockNumber: 20, blockHash: "0x1", status: 1, transactionHash: HASHES.cancel } }),
      chain({ inPool: true, head: 40, replaceAfterBlocks: 3 }),
    ];
    // The tracker observes unfinished records and mined ones within their watch; the guard refuses the rest anyway.
    const observed = OPERATION_STATUSES.filter((status) => status !== "failed" && status !== "dropped");
    for (const status of observed) {
      for (const observation of observations) {
        const missingSince = new Date(NOW - 2 * POLICY.dropAfterMs).toISOString();
        const laddered = { transactions: LADDER, broadcastBlock: 20 };
        for (const subject of [record(status), record(status, { missingSince }), record(status, laddered)]) {
          if ((status === "mined" || status === "cancelled") && observation.kind !== "canonical") continue;
          const decision = decide(subject, observation, POLICY, NOW);
          if (!("change" in decision) || decision.change.status === undefined) continue;
          expect(transitionOf(status, decision.change.status), `${status} → ${decision.change.status} on ${observation.kind}`).to.not.equal(
            undefined,
          );
          const then = decision.then?.status;
          if (then !== undefined)
            expect(
              transitionOf(decision.change.status, then),
              `then ${decision.change.status} → ${then} on ${observation.kind}`,
            ).to.not.equal(undefined);
        }
      }
    }
  });

  describe("a transaction that is not included: replaced up its ladder, then stuck", function () {
    const pending = (fields: Partial<LeasedOperation> = {}) => record("pending", { transactions: LADDER, broadcastBlock: 20, ...fields });
    const needed = (maxFeeGwei: bigint) => ({ type: 2 as const, maxFeePerGas: maxFeeGwei * GWEI, maxPriorityFeePerGas: GWEI });

    it("counts its blocks from the head it was first seen pending at", function () {
      expect(
        changeOf(decide(pending({ broadcastBlock: null }), chain({ inPool: true, head: 25, replaceAfterBlocks: 3 }), POLICY, NOW)),
      ).to.include({
        broadcastBlock: 25,
      });
      const signed = changeOf(decide(record("signed"), chain({ inPool: true, head: 25 }), POLICY, NOW));
      expect(signed).to.include({ status: "pending", broadcastBlock: 25 });
    });

    it("waits its replace-after blocks, then sends the lowest step that pays what the node asks now", function () {
      const early = changeOf(decide(pending(), chain({ inPool: true, head: 22, replaceAfterBlocks: 3, needed: needed(8n) }), POLICY, NOW));
      expect(early).to.not.have.property("stuck");
      expect(decide(pending(), chain({ inPool: true, head: 23, replaceAfterBlocks: 3, needed: needed(8n) }), POLICY, NOW)).to.deep.equal({
        action: "replace",
        transactionHash: HASHES.rung2,
      });
      // No fee data: the next step up; more than the ladder holds: its highest replacement (never the cancel).
      expect(decide(pending(), chain({ inPool: true, head: 23, replaceAfterBlocks: 3 }), POLICY, NOW)).to.deep.include({
        transactionHash: HASHES.rung1,
      });
      expect(
        decide(pending(), chain({ inPool: true, head: 23, replaceAfterBlocks: 3, needed: needed(100n) }), POLICY, NOW),
      ).to.deep.include({
        transactionHash: HASHES.rung3,
      });
    });

    it("replaces nothing past its blocks while it pays what the node asks (waiting in line): its count starts again", function () {
      // Its 3 gwei pay a head that takes 2 (signing now would take 4): on a node that mines a block per transaction,
      // other senders' blocks pass it by.
      const inLine = changeOf(
        decide(pending(), chain({ inPool: true, head: 30, replaceAfterBlocks: 3, needed: needed(4n), floor: needed(2n) }), POLICY, NOW),
      );
      expect(inLine).to.include({ broadcastBlock: 30 });
      expect(inLine).to.not.have.property("stuck");
      expect(inLine).to.not.have.property("transactionHash");
      // The same wait with the head taking more than it pays: the ladder's step that covers what the node asks.
      const outbid = chain({ inPool: true, head: 30, replaceAfterBlocks: 3, needed: needed(4n), floor: needed(3n + 1n) });
      expect(decide(pending(), outbid, POLICY, NOW)).to.deep.equal({
        action: "replace",
        transactionHash: HASHES.rung1,
      });
    });

    it("follows a step the node took, counting its blocks again; a refused step is a stuck notice", function () {
      const accepted = changeOf(
        decide(
          pending(),
          { kind: "replaced", transactionHash: HASHES.rung2, outcome: { kind: "accepted" }, pollMs: 1_000, head: 24 },
          POLICY,
          NOW,
        ),
      );
      expect(accepted).to.include({ status: "pending", transactionHash: HASHES.rung2, broadcastBlock: 24 });
      expect(accepted.reason).to.match(/^replaced by 0x0202.* \(not included 4 blocks after it was sent, max fee 9 gwei\)$/);
      const refused = changeOf(
        decide(
          pending(),
          {
            kind: "replaced",
            transactionHash: HASHES.rung2,
            outcome: { kind: "refused", error: { code: "INSUFFICIENT_FUNDS", message: "the sender cannot pay" }, transient: false },
            pollMs: 1_000,
            head: 24,
          },
          POLICY,
          NOW,
        ),
      );
      expect(refused.status).to.equal(undefined);
      expect(refused.stuck).to.deep.include({ transactionHash: HASHES.original });
      expect(refused.stuck!.reason).to.contain("the sender cannot pay");
    });

    it("at its last replacement, says it is stuck once (the notice set), and never sends the cancel by itself", function () {
      const top = pending({ transactionHash: HASHES.rung3 });
      const stuck = changeOf(decide(top, chain({ inPool: true, head: 30, replaceAfterBlocks: 3, needed: needed(100n) }), POLICY, NOW));
      expect(stuck.status).to.equal(undefined);
      expect(stuck.stuck).to.deep.include({ transactionHash: HASHES.rung3 });
      expect(stuck.stuck!.reason).to.contain("the ceiling (24 gwei) is kept for a cancel");
      const again = changeOf(
        decide(
          { ...top, stuck: { at: "x", transactionHash: HASHES.rung3, reason: "r" } },
          chain({ inPool: true, head: 40, replaceAfterBlocks: 3 }),
          POLICY,
          NOW,
        ),
      );
      expect(again).to.not.have.property("stuck");
    });

    it("says at once that a caller-signed send waits for the caller: nothing is signed ahead for it", function () {
      const callerSigned = pending({ transactions: [LADDER[0]!] });
      const stuck = changeOf(decide(callerSigned, chain({ inPool: true, head: 23, replaceAfterBlocks: 3 }), POLICY, NOW));
      expect(stuck.stuck!.reason).to.contain("speed it up (POST /api/v1/operations/op-1/speed-up");
    });

    it("settles on whichever transaction was mined: the cancel ends it cancelled, an earlier one mined", function () {
      const following = pending({ transactionHash: HASHES.cancel });
      const cancelled = changeOf(
        decide(
          following,
          chain({ receipt: { blockNumber: 18, blockHash: "0xc", status: 1, transactionHash: HASHES.cancel } }),
          POLICY,
          NOW,
        ),
      );
      expect(cancelled).to.include({ status: "cancelled", blockNumber: 18 });
      expect(cancelled.reason).to.match(/^cancelled: the zero-value transfer 0xcccc.* took nonce 0 in block 18$/);
      const raced = changeOf(
        decide(
          following,
          chain({ receipt: { blockNumber: 18, blockHash: "0xc", status: 1, transactionHash: HASHES.original } }),
          POLICY,
          NOW,
        ),
      );
      expect(raced).to.include({ status: "mined", transactionHash: HASHES.original });
      const replacement = changeOf(
        decide(pending(), chain({ receipt: { blockNumber: 18, blockHash: "0xc", status: 1, transactionHash: HASHES.rung1 } }), POLICY, NOW),
      );
      expect(replacement).to.include({ status: "mined", transactionHash: HASHES.rung1 });
      expect(replacement.reason).to.equal(`included in block 18 with 3 confirmations (as replacement ${HASHES.rung1})`);
    });

    it("follows a replacement the node holds that its record was not told of (a crash between send and write)", function () {
      const change = changeOf(decide(pending(), chain({ inPool: true, pooled: HASHES.rung1, head: 21 }), POLICY, NOW));
      expect(change).to.include({ status: "pending", transactionHash: HASHES.rung1, broadcastBlock: 21 });
    });

    it("sends the next step in place of one the node dropped as too cheap, and never drops one it refuses only as too cheap", function () {
      // Some nodes (anvil) drop from their pool a transaction the base fee overtook: past its blocks, the next step goes.
      expect(decide(pending(), chain({ head: 23, replaceAfterBlocks: 3, needed: needed(8n) }), POLICY, NOW)).to.deep.equal({
        action: "replace",
        transactionHash: HASHES.rung2,
      });
      const underpriced = {
        kind: "refused" as const,
        error: { code: "TRANSACTION_REJECTED", message: "max fee per gas less than block base fee" },
        transient: false,
        underpriced: true,
      };
      const long = new Date(NOW - 10 * POLICY.dropAfterMs).toISOString();
      const top = pending({ transactionHash: HASHES.rung3, missingSince: long });
      const waiting = changeOf(
        decide(top, { kind: "broadcast", outcome: underpriced, pollMs: 1_000, head: 22, replaceAfterBlocks: 3 }, POLICY, NOW),
      );
      expect(waiting.status, "not dropped").to.equal(undefined);
      expect(waiting).to.not.have.property("stuck");
      const stuck = changeOf(
        decide(top, { kind: "broadcast", outcome: underpriced, pollMs: 1_000, head: 23, replaceAfterBlocks: 3 }, POLICY, NOW),
      );
      expect(stuck.status).to.equal(undefined);
      expect(stuck.stuck).to.deep.include({ transactionHash: HASHES.rung3 });
      const first = changeOf(
        decide(pending({ broadcastBlock: null }), { kind: "broadcast", outcome: { kind: "accepted" }, pollMs: 1, head: 9 }, POLICY, NOW),
      );
      expect(first, "counted from the head it was sent again at").to.include({ broadcastBlock: 9 });
    });

    it("replaces, without waiting for blocks, a transaction the node holds nowhere yet refuses again as already known", function () {
      const lost = chain({ head: 20, heldNowhere: true, needed: needed(4n) }) as ChainObservation;
      // First sent again: the node may simply have dropped it.
      expect(decide(pending(), lost, POLICY, NOW)).to.deep.equal({ action: "broadcast" });
      // "Already known", though it holds nothing at the nonce: noted, not replaced yet.
      const known = {
        kind: "broadcast" as const,
        outcome: { kind: "already-known" as const },
        pollMs: 1_000,
        head: 20,
        heldNowhere: true as const,
      };
      const noted = changeOf(decide(pending(), known, POLICY, NOW));
      expect(noted).to.deep.equal({ missingSince: new Date(NOW), checkInMs: 1_000 });
      // Still so at the next look: the next step that pays what the node asks, at once (0 of its replace-after blocks past).
      const since = new Date(NOW - 1_000).toISOString();
      expect(decide(pending({ missingSince: since }), { ...lost, replaceAfterBlocks: 3 }, POLICY, NOW)).to.deep.equal({
        action: "replace",
        transactionHash: HASHES.rung1,
        lost: true,
      });
      // The node taking the step: the record follows it, saying why.
      const replaced = changeOf(
        decide(
          pending({ missingSince: since }),
          { kind: "replaced", transactionHash: HASHES.rung1, outcome: { kind: "accepted" }, pollMs: 1_000, head: 20, lost: true },
          POLICY,
          NOW,
        ),
      );
      expect(replaced).to.deep.include({ status: "pending", transactionHash: HASHES.rung1, missingSince: null });
      expect(replaced.reason).to.contain("the node lost the transaction and would not take it again");
      // A caller-signed send has no step: the stuck notice says what happened.
      const stuck = changeOf(decide(pending({ missingSince: since, transactions: [LADDER[0]!] }), lost, POLICY, NOW));
      expect(stuck.stuck!.reason).to.contain("lost by the node (it holds nothing at nonce 0) and refused again as already known");
      // Said once: with the notice set, it is only sent again at each look.
      const noticed = pending({ missingSince: since, transactions: [LADDER[0]!], stuck: { at: since, ...stuck.stuck! } });
      expect(decide(noticed, lost, POLICY, NOW)).to.deep.equal({ action: "broadcast" });
      // Already known where the node does hold it (its next nonce is past this one): pending, nothing noted.
      const held = changeOf(decide(pending({ missingSince: since }), { ...known, heldNowhere: undefined }, POLICY, NOW));
      expect(held).to.include({ status: "pending", missingSince: null });
    });

    it("sends again the transaction it follows when the node lost every one", function () {
      expect(decide(pending({ transactionHash: HASHES.rung1, rawTransaction: null }), chain(), POLICY, NOW)).to.deep.equal({
        action: "broadcast",
      });
    });
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
