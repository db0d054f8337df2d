import { Interface, Transaction, type TransactionLike } from "ethers";

import type { EvmChain } from "../chain.js";

/** The OP Stack's GasPriceOracle predeploy, at the same address on every OP Stack chain. */
export const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F";

const oracle = new Interface(["function getL1Fee(bytes _data) view returns (uint256)"]);

/** Whether a send on this chain pays an L1 data fee besides its gas: live OP Stack chains (EDR simulates no L1). */
export function chargesL1DataFee(chain: EvmChain): boolean {
  return chain.info.rollup === "op-stack" && !chain.simulated;
}

/**
 * What an OP Stack chain charges, on top of the L2 gas, for posting this transaction's data to L1: the GasPriceOracle's
 * `getL1Fee` of the unsigned serialized transaction, at the chain's current L1 prices (the sequencer charges the same
 * formula when it includes it). 0 where nothing is charged, and on a node without the predeploy (a local devnet that
 * serves the chain id but not the OP Stack's contracts). A node's error is the caller's to translate.
 */
export async function l1DataFee(chain: EvmChain, transaction: TransactionLike): Promise<bigint> {
  if (!chargesL1DataFee(chain)) return 0n;
  const data = oracle.encodeFunctionData("getL1Fee", [Transaction.from(transaction).unsignedSerialized]);
  const answer = await chain.provider.call({ to: GAS_PRICE_ORACLE, data });
  if (answer === "0x") return 0n;
  return oracle.decodeFunctionResult("getL1Fee", answer)[0] as bigint;
}
