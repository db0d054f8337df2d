import { expect } from "chai";

import { nonceSteps, type WaitingRecord } from "../../src/core/operations/nonce-healing.js";

const waiting = (id: string, nonce: number, broadcast = true): WaitingRecord => ({ id, nonce, broadcast });

describe("nonceSteps: the order of a sender's sends in one tracker pass", function () {
  it("sends the records the node lost lowest nonce first, whatever order the pass found them in", function () {
    const steps = nonceSteps(5, [waiting("c", 7), waiting("a", 5), waiting("b", 6)]);
    expect(steps).to.deep.equal([
      { kind: "broadcast", id: "a", nonce: 5 },
      { kind: "broadcast", id: "b", nonce: 6 },
      { kind: "broadcast", id: "c", nonce: 7 },
    ]);
  });

  it("fills each nonce from the node's next one up that no record of the pass holds, before the record above it", function () {
    // 5 and 7 are in no record of this pass (not due, another replica's, ended, or never used): filled in place.
    const steps = nonceSteps(5, [waiting("b", 6), waiting("d", 8, false)]);
    expect(steps).to.deep.equal([
      { kind: "fill", nonce: 5 },
      { kind: "broadcast", id: "b", nonce: 6 },
      { kind: "fill", nonce: 7 },
    ]);
  });

  it("fills below a record that waits in the pool too: a transaction queued behind a gap is stranded there", function () {
    expect(nonceSteps(3, [waiting("q", 5, false)])).to.deep.equal([
      { kind: "fill", nonce: 3 },
      { kind: "fill", nonce: 4 },
    ]);
  });

  it("fills nothing below the node's next nonce, nor above the highest record that waits", function () {
    expect(nonceSteps(9, [waiting("a", 4), waiting("b", 9, false)])).to.deep.equal([{ kind: "broadcast", id: "a", nonce: 4 }]);
    expect(nonceSteps(4, [])).to.deep.equal([]);
  });

  it("without the node's next nonce, sends the records in nonce order and fills nothing", function () {
    expect(nonceSteps(undefined, [waiting("b", 9), waiting("a", 2)])).to.deep.equal([
      { kind: "broadcast", id: "a", nonce: 2 },
      { kind: "broadcast", id: "b", nonce: 9 },
    ]);
  });

  it("fills at most the given number of gap nonces in one pass; the records still go, in order", function () {
    const steps = nonceSteps(0, [waiting("far", 100)], 3);
    expect(steps).to.deep.equal([
      { kind: "fill", nonce: 0 },
      { kind: "fill", nonce: 1 },
      { kind: "fill", nonce: 2 },
      { kind: "broadcast", id: "far", nonce: 100 },
    ]);
  });
});
