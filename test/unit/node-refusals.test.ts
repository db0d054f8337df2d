import { expect } from "chai";

import { nodeRefusal, type NodeRefusal } from "../../src/chains/evm/node-refusals.js";
import { isUnderpriced, translateProviderError } from "../../src/chains/evm/provider-errors.js";

/**
 * Refusals as nodes word them, recorded from their sources (geth's txpool errors, Besu's JsonRpcError, Nethermind's
 * AcceptTxResult, OpenEthereum's rpc helpers, Erigon, Arbitrum Nitro, zkSync, Moonbeam): those nodes do not run here.
 * anvil's and EDR's own wordings are met for real in the integration tests.
 */
const RECORDED: Record<NodeRefusal, string[]> = {
  "already-known": [
    "already known", // geth, Erigon, Reth
    "Known transaction", // Besu
    "known transaction: 0x5f0c…", // older geth
    "known transaction. transaction with hash 0xab… is already in the system", // zkSync
    "Transaction with the same hash was already imported.", // OpenEthereum
    "AlreadyKnown", // Nethermind
    "Pool(AlreadyImported)", // Moonbeam
  ],
  "replacement-underpriced": [
    "replacement transaction underpriced", // geth, anvil
    "Replacement transaction underpriced", // Besu
    "Transaction gas price 2000000000 is too low. There is another transaction with same nonce in the queue. Try increasing the gas price or incrementing the nonce.", // OpenEthereum
    "there is another tx which has the same nonce in the tx pool", // Klaytn
  ],
  "nonce-too-low": [
    "nonce too low", // geth, anvil
    "nonce too low: address 0x9a…, tx: 4 state: 5", // geth with details
    "Nonce too low", // Besu
    "Transaction nonce is too low. Try incrementing the nonce.", // OpenEthereum
    "OldNonce, Current nonce: 5, nonce of rejected tx: 3", // Nethermind
    "Pool(Stale)", // Moonbeam
  ],
  "insufficient-funds": [
    "insufficient funds for gas * price + value: balance 0, tx cost 21000000000000, overshot 21000000000000", // geth
    "Sender doesn't have enough funds to send tx. The max upfront cost is: 1 and the sender's balance is: 0.", // EDR
    "Upfront cost exceeds account balance", // Besu
    "InsufficientFunds, Account balance: 0, cumulative cost: 21000", // Nethermind
    "not enough funds for gas", // Arbitrum
    "insufficient balance for transfer", // zkSync
  ],
  underpriced: [
    "transaction underpriced: tip needed 1, tip permitted 0", // geth
    "max fee per gas less than block base fee: address 0x9a…, maxFeePerGas: 1, baseFee: 7", // geth, anvil
    "Transaction maxFeePerGas (1) is too low for the next block, which has a baseFeePerGas of 7", // Hardhat
    "Gas price below configured minimum gas price", // Besu
    "Gas price below current base fee", // Besu
    "FeeTooLow, MaxFeePerGas too low. MaxFeePerGas: 1, BaseFee: 7, MaxPriorityFeePerGas:1, Block number: 9", // Nethermind
    "FeeTooLowToCompete", // Nethermind
    "gas price too low", // Arbitrum
  ],
};

describe("node refusals: one reading of what geth, Besu, Nethermind, OpenEthereum, zkSync and Moonbeam say (recorded wordings)", function () {
  for (const [refusal, messages] of Object.entries(RECORDED) as Array<[NodeRefusal, string[]]>) {
    it(`reads ${refusal} in every client's wording`, function () {
      for (const message of messages) expect(nodeRefusal(message), message).to.equal(refusal);
    });
  }

  it("reads none in a revert, an outage or another refusal", function () {
    for (const message of [
      "execution reverted: ERC20InsufficientBalance",
      "execution reverted",
      "429 Too Many Requests",
      "nonce too high",
      "NonceGap, Future nonce. Expected nonce: 5",
      "exceeds block gas limit",
      "intrinsic gas too low",
      "invalid sender",
    ])
      expect(nodeRefusal(message), message).to.equal(undefined);
  });

  it("is what the typed errors and the fee checks read: Nethermind's and Besu's wordings give the same answers as geth's", function () {
    const asNodeError = (message: string) =>
      Object.assign(new Error(`could not coalesce error (error={ "code": -32000, "message": "${message}" })`), {});
    const pairs: Array<[string, string]> = [
      ["insufficient funds for gas * price + value", "InsufficientFunds, Account balance: 0, cumulative cost: 21000"],
      ["insufficient funds for gas * price + value", "Upfront cost exceeds account balance"],
      ["nonce too low", "OldNonce, Current nonce: 5, nonce of rejected tx: 3"],
      ["already known", "Known transaction"],
      [
        "replacement transaction underpriced",
        "Transaction gas price 2 is too low. There is another transaction with same nonce in the queue.",
      ],
    ];
    for (const [geth, other] of pairs) {
      const expected = translateProviderError(asNodeError(geth), "node");
      const got = translateProviderError(asNodeError(other), "node");
      expect({ code: got.code, message: got.message, field: got.field }, other).to.deep.equal({
        code: expected.code,
        message: expected.message,
        field: expected.field,
      });
    }
    expect(isUnderpriced(asNodeError("FeeTooLowToCompete"))).to.equal(true);
    expect(isUnderpriced(asNodeError("Replacement transaction underpriced"))).to.equal(false);
    expect(translateProviderError(asNodeError("AlreadyKnown"), "node").message).to.equal(
      "node rejected the transaction: a transaction with this nonce is already pending",
    );
  });
});
