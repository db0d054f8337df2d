import { expect } from "chai";

import type { BitcoinTransactionStatus } from "../../src/chains/bitcoin/backend.js";
import { observationOf } from "../../src/core/operations/bitcoin-sends.js";

// A Bitcoin record sent as several transactions (its first, a speed-up, a cancel) is settled by whichever of them a
// block holds, not only the one it follows: a replacement that lost the race (a miner that never saw it) leaves the
// original to be mined. The regtest suite (held-replacements) meets the usual case for real; these are the rest.

const ORIGINAL = "aa".repeat(32);
const REPLACEMENT = "bb".repeat(32);
const CANCEL = "cc".repeat(32);
const confirmed = (height: number): BitcoinTransactionStatus => ({
  state: "confirmed",
  blockHeight: height,
  blockHash: "0f".repeat(32),
  confirmations: 1,
});
const mempool: BitcoinTransactionStatus = { state: "mempool" };
const unknown: BitcoinTransactionStatus = { state: "unknown" };

describe("Bitcoin records: what the statuses of every transaction sent tell the tracker", function () {
  it("names the mined transaction in the receipt when it is not the one followed: the original won over its speed-up", function () {
    const seen = observationOf(REPLACEMENT, [REPLACEMENT, ORIGINAL], [unknown, confirmed(120)], 121);
    expect(seen).to.deep.include({ kind: "chain", inPool: false, head: 121 });
    expect(seen).to.have.nested.property("receipt.transactionHash", ORIGINAL);
    expect(seen).to.have.nested.property("receipt.blockNumber", 120);
  });

  it("prefers a block over a mempool: the mined one settles the record even while another is still pooled", function () {
    const seen = observationOf(CANCEL, [CANCEL, ORIGINAL], [mempool, confirmed(7)], 7);
    expect(seen).to.have.nested.property("receipt.transactionHash", ORIGINAL);
  });

  it("follows the pooled one when the followed one is gone: a replacement sent before a crash", function () {
    const seen = observationOf(ORIGINAL, [ORIGINAL, REPLACEMENT], [unknown, mempool], 50);
    expect(seen).to.deep.include({ kind: "chain", receipt: null, inPool: true, pooled: REPLACEMENT });
  });

  it("names no other when the followed one is pooled", function () {
    const seen = observationOf(REPLACEMENT, [REPLACEMENT, ORIGINAL], [mempool, unknown], 50);
    expect(seen).to.deep.include({ kind: "chain", receipt: null, inPool: true });
    expect(seen).to.not.have.property("pooled");
  });

  it("knows nothing when none is known: the caller sends the followed one again", function () {
    expect(observationOf(ORIGINAL, [ORIGINAL, REPLACEMENT], [unknown, unknown], 50)).to.equal(undefined);
  });
});
