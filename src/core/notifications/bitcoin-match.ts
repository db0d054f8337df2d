import { eventId, type ActivityEvent, type WatchedSubscription } from "./match.js";

// Matches one Bitcoin block against the address subscriptions of its network (docs/notifications.md): pure, as the EVM
// matcher is, so that every replica and every rescan finds the same events under the same ids. Bitcoin has no account
// to debit: value reaches an address as an output paying it (`in`, one event per output), and leaves it as a
// transaction spending its coins (`out`, one event per transaction, whatever comes back to it as change being an `in`).

/** An output a transaction pays, or one its input spends (the chains layer reads them: chains/bitcoin/block-source.ts). */
export interface BitcoinOutput {
  /** Null for a script with no address (OP_RETURN, bare multisig, non-standard). */
  address: string | null;
  /** Satoshis. */
  value: bigint;
}

export interface BitcoinTransaction {
  txid: string;
  /** The outputs its inputs spend, in input order; null for the coinbase's input. */
  inputs: ReadonlyArray<BitcoinOutput | null>;
  outputs: ReadonlyArray<BitcoinOutput & { vout: number }>;
}

export interface ScannedBitcoinBlock {
  kind: "bitcoin";
  chain: string;
  network: string;
  number: number;
  hash: string;
  transactions: readonly BitcoinTransaction[];
}

/**
 * Every event of `block` for `subscriptions`, in block order: for each transaction, its `out` events (a spend of a
 * watched address's coins), then its `in` events (an output paying a watched address), in output order.
 * - `in`: `amount` the output's value, `logIndex` its vout, `from` the address of the coin its first input spends
 *   ("" for a coinbase, or a script without an address), `to` the watched address.
 * - `out`: `amount` the sum of the watched address's coins it spends (what left the address's coins; change paid back
 *   to it is an `in` of its own), `logIndex` null, `from` the watched address, `to` the first output's address that
 *   is not the watched one (the watched address itself when every output pays it or has no address).
 */
export function bitcoinEventsOf(block: ScannedBitcoinBlock, subscriptions: readonly WatchedSubscription[]): ActivityEvent[] {
  const byAddress = new Map<string, WatchedSubscription[]>();
  for (const subscription of subscriptions) {
    if (subscription.target.kind !== "address" || !subscription.target.assets.includes("native")) continue;
    const key = addressKey(subscription.target.address);
    byAddress.set(key, [...(byAddress.get(key) ?? []), subscription]);
  }
  const events: ActivityEvent[] = [];
  if (byAddress.size === 0) return events;
  const event = (subscription: WatchedSubscription, tx: BitcoinTransaction, position: string, direction: "in" | "out") => ({
    type: "chain.activity" as const,
    id: eventId(subscription.id, tx.txid, position, null, direction),
    subscriptionId: subscription.id,
    chain: block.chain,
    network: block.network,
    txHash: tx.txid,
    blockNumber: block.number,
    blockHash: block.hash,
    direction,
    asset: "native" as const,
    contract: null,
    tokenId: null,
  });

  for (const tx of block.transactions) {
    // What it spends of each watched address, in the order their first coin is spent.
    const spent = new Map<string, { address: string; amount: bigint }>();
    for (const input of tx.inputs) {
      if (input === null || input.address === null || !byAddress.has(addressKey(input.address))) continue;
      const key = addressKey(input.address);
      const sum = spent.get(key) ?? { address: input.address, amount: 0n };
      spent.set(key, { ...sum, amount: sum.amount + input.value });
    }
    for (const [key, { address, amount }] of spent) {
      const to = tx.outputs.find((output) => output.address !== null && addressKey(output.address) !== key)?.address ?? address;
      for (const subscription of byAddress.get(key)!) {
        events.push({ ...event(subscription, tx, "spend", "out"), logIndex: null, from: address, to, amount: amount.toString() });
      }
    }
    const from = tx.inputs[0]?.address ?? "";
    for (const output of tx.outputs) {
      if (output.address === null) continue;
      for (const subscription of byAddress.get(addressKey(output.address)) ?? []) {
        events.push({
          ...event(subscription, tx, `vout:${output.vout}`, "in"),
          logIndex: output.vout,
          from,
          to: output.address,
          amount: output.value.toString(),
        });
      }
    }
  }
  return events;
}

/**
 * An address as compared: bech32 and bech32m addresses (bc1, tb1, bcrt1) are case-insensitive and nodes write them in
 * lower case; a base58 address is case-sensitive.
 */
export function addressKey(address: string): string {
  return /^(bc|tb|bcrt)1/i.test(address) ? address.toLowerCase() : address;
}
