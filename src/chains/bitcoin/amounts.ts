import { amountPair } from "../../domain/units.js";
import type { BitcoinBalance } from "./backend.js";

export const SATOSHIS_PER_BTC = 100_000_000n;
/** No amount above the 21 million BTC supply is meaningful. */
export const MAX_MONEY_SATOSHIS = 21_000_000n * SATOSHIS_PER_BTC;

/**
 * Bitcoin Core reports amounts as JSON numbers in BTC. Below 21 million BTC
 * neighbouring doubles are closer than a satoshi, so rounding the double to
 * 8 decimals recovers the node's exact amount.
 */
export function btcToSatoshis(amount: unknown): bigint {
  if (typeof amount !== "number" || !Number.isFinite(amount)) throw new TypeError(`not a BTC amount: ${String(amount)}`);
  const fixed = Math.abs(amount).toFixed(8);
  const satoshis = BigInt(fixed.replace(".", ""));
  return amount < 0 ? -satoshis : satoshis;
}

/** An exact decimal BTC string for a satoshi amount, as JSON-RPC accepts it. */
export function satoshisToBtcString(satoshis: bigint): string {
  const whole = satoshis / SATOSHIS_PER_BTC;
  const fraction = (satoshis % SATOSHIS_PER_BTC).toString().padStart(8, "0");
  return `${whole}.${fraction}`;
}

/**
 * The one balance shape both backends return: `confirmed` counts transactions
 * in blocks, `unconfirmed` is the net effect of mempool transactions (negative
 * while a spend of confirmed coins waits), `balance` is their sum.
 */
export function bitcoinBalance(confirmed: bigint, unconfirmed: bigint): BitcoinBalance {
  return { ...amountPair(confirmed + unconfirmed, 8), confirmed: amountPair(confirmed, 8), unconfirmed: amountPair(unconfirmed, 8) };
}
