import { invalidArgument } from "../../domain/errors.js";
import { btcToSatoshis } from "./amounts.js";
import { bitcoinLibraries } from "./libraries.js";

/** A txid as backends take it: 64 lowercase hex digits (the byte-reversed hash, as explorers print it). */
export function requireTxid(txid: string): void {
  if (typeof txid !== "string" || !/^[0-9a-f]{64}$/.test(txid)) throw invalidArgument("txid", "txid must be 64 lowercase hex digits");
}

/** The txid of a signed transaction given as hex, as a node computes it. */
export function ownTxid(rawHex: string): string {
  return bitcoinLibraries().lib.Transaction.fromHex(rawHex).getId();
}

/** A fee rate in sat/vB kept to Bitcoin Core's precision (three decimals: it counts in sat/kvB), rounded up. */
export function satPerVbyte(rate: number): number {
  return Math.ceil(Math.round(rate * 1_000_000) / 1000) / 1000;
}

/** Bitcoin Core's fee rates (BTC/kvB, as JSON numbers) in sat/vB, exactly. */
export function btcPerKvbToSatPerVbyte(rate: number): number {
  return Number(btcToSatoshis(rate)) / 1000;
}
