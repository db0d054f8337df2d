/**
 * What a node meant by refusing a transaction, read from its message. Nodes word the same refusal differently: geth
 * and the clients built on it (Erigon, Reth, Arbitrum Nitro, op-geth, bor, coreth, BSC), Besu, Nethermind, OpenEthereum,
 * zkSync, Moonbeam, anvil and Hardhat's EDR. Every place that must tell refusals apart reads this one table, so a
 * wording learnt for one (a failover's echo, the tracker's resend, the answer to the caller) is learnt for all.
 *
 * - `already-known`: the node holds this very transaction (a resend's echo), so the send succeeded.
 * - `replacement-underpriced`: another transaction holds the nonce and this one's fees are not enough above its.
 * - `nonce-too-low`: the nonce is used: mined, by this transaction or another.
 * - `insufficient-funds`: the sender cannot pay the value and the fee.
 * - `underpriced`: too cheap for the chain now (its max fee under the base fee, or its price under the pool's minimum).
 */
export type NodeRefusal = "already-known" | "replacement-underpriced" | "nonce-too-low" | "insufficient-funds" | "underpriced";

/** In this order: a replacement's refusal also says "underpriced", and OpenEthereum's says "too low" and "nonce". */
const REFUSALS: ReadonlyArray<readonly [NodeRefusal, RegExp]> = [
  // geth, Erigon: "already known"; Besu, Klaytn, zkSync: "known transaction"; OpenEthereum: "…was already imported";
  // Nethermind: "AlreadyKnown"; Moonbeam: "Pool(AlreadyImported)".
  ["already-known", /already known|known transaction|already imported|\bAlreadyKnown\b|\bPool\(AlreadyImported\)/i],
  // geth, Besu: "replacement transaction underpriced"; OpenEthereum: "…There is another transaction with same nonce in
  // the queue"; Klaytn: "…another tx which has the same nonce in the tx pool".
  ["replacement-underpriced", /replacement transaction underpriced|another (transaction|tx) (which has|with) (the )?same nonce/i],
  // geth, Besu, anvil: "nonce too low"; OpenEthereum: "Transaction nonce is too low"; Nethermind: "OldNonce";
  // Moonbeam: "Pool(Stale)".
  ["nonce-too-low", /nonce (is )?too low|\bOldNonce\b|\bPool\(Stale\)/i],
  // geth: "insufficient funds for gas * price + value"; EDR: "Sender doesn't have enough funds to send tx"; Besu:
  // "Upfront cost exceeds account balance"; Nethermind: "InsufficientFunds"; Arbitrum: "not enough funds for gas";
  // zkSync: "insufficient balance for transfer".
  [
    "insufficient-funds",
    /insufficient funds|doesn't have enough funds|upfront cost exceeds account balance|\bInsufficientFunds\b|not enough funds for gas|insufficient balance for transfer/i,
  ],
  // geth: "transaction underpriced", "max fee per gas less than block base fee"; Hardhat: "…too low for the next block";
  // Besu: "Gas price below configured minimum gas price", "Gas price below current base fee"; Nethermind: "FeeTooLow",
  // "FeeTooLowToCompete"; Arbitrum: "gas price too low"; Celo: "gasprice is less than gas price minimum floor".
  [
    "underpriced",
    /transaction underpriced|(max fee|fee cap|feecap|gas price)[^.]*(less|lower) than[^.]*base ?fee|too low for the next block|gas price below (configured minimum gas price|current base fee)|\bFeeTooLow(ToCompete)?\b|gas price too low|gasprice is less than gas price minimum/i,
  ],
];

/** The refusal a node's message says, or undefined when it says none of these (a revert, an outage, anything else). */
export function nodeRefusal(message: string): NodeRefusal | undefined {
  for (const [refusal, pattern] of REFUSALS) if (pattern.test(message)) return refusal;
  return undefined;
}

/** The message of an error as thrown (ethers keeps the node's own words inside it), or the value as text. */
export function refusalOf(error: unknown): NodeRefusal | undefined {
  return nodeRefusal(String((error as { message?: unknown } | null)?.message ?? error));
}
