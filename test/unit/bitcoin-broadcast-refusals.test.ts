import { expect } from "chai";

import {
  type BroadcastRefusalReason,
  broadcastOutcome,
  broadcastRefusalReason,
  broadcastRefused,
  isAlreadyKnown,
} from "../../src/chains/bitcoin/broadcast-refusals.js";
import { ErrorCode, TokenServiceError } from "../../src/domain/errors.js";

/**
 * Reject reasons as Bitcoin Core words them (validation.cpp, policy/rbf.cpp, rpc/mempool.cpp, node/transaction.cpp),
 * as sendrawtransaction answers them and Esplora passes them on. The regtest suite meets fee-too-low and inputs-spent
 * for real.
 */
const RECORDED: Record<BroadcastRefusalReason, string[]> = {
  "fee-too-low": [
    "min relay fee not met, 110 < 141",
    "mempool min fee not met, 141 < 1410",
    "insufficient fee, rejecting replacement 6f0c…; new feerate 0.00002000 BTC/kvB <= old feerate 0.00003000 BTC/kvB",
    "insufficient fee, rejecting replacement 6f0c…, not enough additional fees to relay; 0.00000029 < 0.00000141",
  ],
  "inputs-spent": ["bad-txns-inputs-missingorspent", "missing-inputs"],
  conflict: ["txn-mempool-conflict", "too many potential replacements", "replacement-adds-unconfirmed"],
  dust: ["dust"],
  nonstandard: ["tx-size", "scriptpubkey", "bare-multisig", "multi-op-return", "version", "non-BIP68-final"],
  "fee-too-high": ["Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)", "max-fee-exceeded"],
  invalid: [
    "mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)",
    "non-mandatory-script-verify-flag (Non-canonical signature: S value is unnecessarily high)",
    "bad-txns-in-belowout, value in (0.001) < value out (0.002)",
    "TX decode failed. Make sure the tx has at least one input.",
  ],
  refused: ["a reason no node gave yet"],
  "mempool-full": ["mempool full"],
  "too-long-mempool-chain": [
    "too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]",
    "too-long-mempool-chain, exceeds descendant size limit",
  ],
};

const UPSTREAM = { backend: "bitcoind", endpoint: "127.0.0.1:18443" } as const;

describe("bitcoin broadcast refusals: final or try again", function () {
  for (const [reason, messages] of Object.entries(RECORDED)) {
    it(`reads ${reason} from the node's words`, function () {
      for (const message of messages) expect(broadcastRefusalReason(message), message).to.equal(reason);
    });
  }

  it("types a refusal as TRANSACTION_REJECTED with reason, retryable and the node's words; only a full mempool or a long chain retries", function () {
    const full = broadcastRefused(UPSTREAM, "mempool full", -26);
    expect(full.code).to.equal(ErrorCode.TRANSACTION_REJECTED);
    expect(full.details).to.deep.include({ reason: "mempool-full", retryable: true, nodeMessage: "mempool full", rpcCode: -26 });
    expect(broadcastOutcome(full)).to.deep.equal({ kind: "retry", reason: "mempool-full" });
    const conflict = broadcastRefused(UPSTREAM, "txn-mempool-conflict");
    expect(conflict.message).to.equal("bitcoind at 127.0.0.1:18443 refused the transaction: txn-mempool-conflict");
    expect(broadcastOutcome(conflict)).to.deep.equal({ kind: "final", reason: "conflict" });
    for (const reason of Object.keys(RECORDED) as BroadcastRefusalReason[]) {
      const retryable = broadcastRefused(UPSTREAM, RECORDED[reason][0]!).details!.retryable;
      expect(retryable, reason).to.equal(reason === "mempool-full" || reason === "too-long-mempool-chain");
    }
  });

  it("tells a backend that did not answer (retry: it may hold the transaction) from errors that are no broadcast failure", function () {
    expect(broadcastOutcome(new TokenServiceError(ErrorCode.UPSTREAM_TIMEOUT, "did not answer"))).to.deep.equal({ kind: "retry" });
    expect(broadcastOutcome(new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, "down"))).to.deep.equal({ kind: "retry" });
    expect(broadcastOutcome(new TokenServiceError(ErrorCode.INVALID_ARGUMENT, "bad"))).to.equal(undefined);
    expect(broadcastOutcome(new Error("bug"))).to.equal(undefined);
  });

  it("recognises a transaction the node already holds, in its mempool or its chain", function () {
    for (const message of [
      "txn-already-in-mempool",
      "txn-already-known",
      "Transaction already in block chain",
      "Transaction outputs already in utxo set",
    ]) {
      expect(isAlreadyKnown(message), message).to.equal(true);
    }
    expect(isAlreadyKnown("txn-mempool-conflict")).to.equal(false);
  });
});
