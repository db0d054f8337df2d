import type { BitcoinAddressType } from "./wallet-keys.js";

// Size and fee arithmetic of the transactions the service signs: weight units (WU) as BIP 141 counts them, virtual
// bytes (vB = ceil(WU / 4)) as fee rates are quoted, and Bitcoin Core's dust threshold. Pure numbers, no I/O.

/**
 * Weight of one input spending each address type, its signature at its largest, so that an estimate is never below the
 * signed transaction's real size (and the fee rate paid never below the one asked):
 * - p2wpkh: outpoint 36 + empty scriptSig 1 + sequence 4 = 41 B (164 WU), witness: 1 item count + 1+72 signature
 *   (71-byte DER with a 33-byte r, plus the sighash byte) + 1+33 public key = 108 WU. 272 WU = 68 vB.
 * - p2tr (key path): 41 B (164 WU), witness: 1 item count + 1+64 Schnorr signature (SIGHASH_DEFAULT) = 66 WU. 230 WU.
 * - p2pkh: 36 + 1 + scriptSig (1+72 signature, 1+33 public key = 107) + 4 = 148 B, no witness. 592 WU.
 */
export const INPUT_WEIGHT: Readonly<Record<BitcoinAddressType, number>> = { p2wpkh: 272, p2tr: 230, p2pkh: 592 };

/** Length of Bitcoin's CompactSize integer encoding. */
export function compactSizeLength(value: number): number {
  if (value < 0xfd) return 1;
  if (value <= 0xffff) return 3;
  if (value <= 0xffffffff) return 5;
  return 9;
}

/** Serialized bytes of one output: value 8 + script length + script. */
export function outputSize(script: Uint8Array): number {
  return 8 + compactSizeLength(script.length) + script.length;
}

/**
 * The weight of a transaction spending `inputCount` outputs of `inputType` to outputs with these scripts: version 4 +
 * input and output counts + locktime 4, outputs (non-witness, 4 WU a byte), inputs as INPUT_WEIGHT, and the segwit
 * marker and flag (2 WU) when the inputs have witnesses. All inputs are of one type: a send spends one address's coins.
 */
export function transactionWeight(inputType: BitcoinAddressType, inputCount: number, outputScripts: readonly Uint8Array[]): number {
  const base = 4 + compactSizeLength(inputCount) + compactSizeLength(outputScripts.length) + 4;
  const outputs = outputScripts.reduce((sum, script) => sum + outputSize(script), 0);
  const hasWitness = inputType !== "p2pkh";
  const inputs = inputCount * INPUT_WEIGHT[inputType];
  return (base + outputs) * 4 + inputs + (hasWitness ? 2 : 0);
}

/** Virtual size in vB of a weight, as BIP 141 defines it (and fee rates are quoted per). */
export function virtualSize(weight: number): number {
  return Math.ceil(weight / 4);
}

/** The estimated virtual size of such a transaction (an upper bound of the signed one's). */
export function estimateVirtualSize(inputType: BitcoinAddressType, inputCount: number, outputScripts: readonly Uint8Array[]): number {
  return virtualSize(transactionWeight(inputType, inputCount, outputScripts));
}

/**
 * The fee rate a backend answers when it has no estimate (a regtest node, a quiet signet, an Esplora without data),
 * and below which it answers none, sat/vB: Bitcoin Core's default `-minrelaytxfee` up to version 29 (1000 sat/kvB),
 * which most of the network still relays at. A node whose mempool minimum is higher raises it (bitcoind backend).
 */
export const FEE_RATE_FLOOR = 1;

/** The highest fee rate a send may ask for, sat/vB: Bitcoin Core's default `maxfeerate` of sendrawtransaction (0.1 BTC/kvB). */
export const MAX_FEE_RATE = 10_000;

/**
 * A fee rate in sat/vB as an integer of millisatoshis per vB, so that fee arithmetic is exact in bigint: Bitcoin
 * Core's rates have 3 decimals of sat/vB (it counts in sat/kvB), so nothing finer is meaningful. Rounds up.
 */
export function milliSatoshisPerVbyte(feeRate: number): bigint {
  if (!Number.isFinite(feeRate) || feeRate <= 0) throw new RangeError(`not a fee rate: ${feeRate}`);
  return BigInt(Math.ceil(Math.round(feeRate * 1_000_000) / 1000));
}

/** The fee, in satoshis, paying at least `feeRate` sat/vB for `vsize` vB (rounded up to the satoshi). */
export function feeFor(vsize: number, feeRate: number): bigint {
  const milli = milliSatoshisPerVbyte(feeRate) * BigInt(vsize);
  return (milli + 999n) / 1000n;
}

/** A fee's rate in sat/vB, for messages and records: three decimals, rounded down (it is never more than was paid). */
export function feeRateOf(fee: bigint, vsize: number): number {
  return Number((fee * 1000n) / BigInt(vsize)) / 1000;
}

/** Bitcoin Core's default `-dustrelayfee`: 3000 sat/kvB. */
export const DUST_RELAY_FEE_SAT_PER_KVB = 3000n;

/** Whether a script is a segwit witness program (OP_0..OP_16 then one push of 2 to 40 bytes), as Core's IsWitnessProgram. */
function isWitnessProgram(script: Uint8Array): boolean {
  if (script.length < 4 || script.length > 42) return false;
  const version = script[0]!;
  if (version !== 0x00 && (version < 0x51 || version > 0x60)) return false;
  return script[1]! + 2 === script.length;
}

/**
 * The smallest value an output with this script may carry and still be relayed by Bitcoin Core's default policy
 * (GetDustThreshold): the cost, at the dust relay fee, of the output plus the input that would spend it (67 vB for a
 * witness program, 148 B otherwise). 294 sat for p2wpkh, 330 for p2tr and p2wsh, 540 for p2sh, 546 for p2pkh. An
 * OP_RETURN output is never spent, so it has no threshold.
 */
export function dustThreshold(script: Uint8Array, dustRelayFeeSatPerKvB = DUST_RELAY_FEE_SAT_PER_KVB): bigint {
  if (script[0] === 0x6a) return 0n;
  const spendingInput = isWitnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(outputSize(script) + spendingInput) * dustRelayFeeSatPerKvB) / 1000n;
}
