// The fees of an operation's replacements, as data. A transaction the chain does not include (its max fee under a base
// fee that rose, its tip under what block builders take) is replaced by the same call at the same nonce with higher
// fees; nodes take a replacement only with every fee raised by at least 10 % (geth's default price bump). The service
// never stores a private key, so a send whose key is at hand signs its replacements ahead: a short ladder of fees from
// its first ones up to a ceiling, the top step kept for a cancel. Pure: bigint arithmetic only.

/** A transaction's fees: EIP-1559 (type 2) or legacy (type 0), in wei. */
export type Fees = { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };

/**
 * Each replacement raises every fee by at least this much: 12.5 %, above the 10 % nodes require (geth, Erigon, anvil,
 * Hardhat), and as much as the base fee can rise in one block.
 */
export const MIN_BUMP = { numerator: 9n, denominator: 8n } as const;

/** Without a configured ceiling, an operation's replacements may go up to this many times its first max fee. */
export const DEFAULT_CEILING_MULTIPLE = 8n;

/**
 * Steps a key-in-body send signs ahead above its first fees: replacements on all but the top step, the cancel on the
 * top one (so that a cancel can still replace the highest replacement). Each step costs one signature at send time.
 */
export const LADDER_STEPS = 5;

/** One step of a fee ladder: its fees and its place (1 for the first replacement). */
export interface LadderStep {
  rung: number;
  fees: Fees;
}

export interface FeeLadder {
  /** Rungs 1 to n − 1, fees rising by at least the minimum bump each. */
  replacements: LadderStep[];
  /** Rung n, at the ceiling; undefined when the ceiling leaves no room for even one bump. */
  cancel: LadderStep | undefined;
}

const ceilDiv = (value: bigint, divisor: bigint) => (value + divisor - 1n) / divisor;
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** What one gas may cost at most. */
export function maxFeeOf(fees: Fees): bigint {
  return fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
}

/** What goes to the block's builder per gas at most: the tip, or a legacy transaction's whole price. */
export function tipOf(fees: Fees): bigint {
  return fees.type === 2 ? fees.maxPriorityFeePerGas : fees.gasPrice;
}

/** Every fee raised by the minimum bump, rounded up. */
export function bumped(fees: Fees): Fees {
  const up = (value: bigint) => ceilDiv(value * MIN_BUMP.numerator, MIN_BUMP.denominator);
  return fees.type === 2
    ? { type: 2, maxFeePerGas: up(fees.maxFeePerGas), maxPriorityFeePerGas: up(fees.maxPriorityFeePerGas) }
    : { type: 0, gasPrice: up(fees.gasPrice) };
}

/**
 * `fees` raised where `needed` (what the node's fee data says a transaction needs now) asks more, keeping their type: a
 * legacy `needed` asks its price as a max fee and no particular tip.
 */
export function raisedTo(fees: Fees, needed: Fees | undefined): Fees {
  if (needed === undefined) return fees;
  const neededTip = needed.type === 2 ? needed.maxPriorityFeePerGas : 0n;
  if (fees.type === 0) return { type: 0, gasPrice: max(fees.gasPrice, maxFeeOf(needed)) };
  const maxFeePerGas = max(fees.maxFeePerGas, maxFeeOf(needed));
  return { type: 2, maxFeePerGas, maxPriorityFeePerGas: min(maxFeePerGas, max(fees.maxPriorityFeePerGas, neededTip)) };
}

/** Whether `fees` pay at least what `needed` asks (the same reading as `raisedTo`). */
export function covers(fees: Fees, needed: Fees | undefined): boolean {
  if (needed === undefined) return true;
  const raised = raisedTo(fees, needed);
  return maxFeeOf(raised) === maxFeeOf(fees) && tipOf(raised) === tipOf(fees);
}

/** Whether `next` may replace `current` at the same nonce: every fee raised by at least the minimum bump. */
export function isReplacementOf(next: Fees, current: Fees): boolean {
  const floor = bumped(current);
  if (next.type !== current.type) return false;
  return maxFeeOf(next) >= maxFeeOf(floor) && tipOf(next) >= tipOf(floor);
}

/** An operation's fee ceiling: the pair's configured one, or DEFAULT_CEILING_MULTIPLE times its first max fee. */
export function ceilingOf(first: Fees, configured: bigint | undefined): bigint {
  return configured ?? maxFeeOf(first) * DEFAULT_CEILING_MULTIPLE;
}

/** `first` scaled to a max fee of `target`, the tip in proportion (rounded up, never above the max fee, never lower than `floor`'s). */
function stepAt(first: Fees, target: bigint, floor: Fees): Fees {
  if (first.type === 0) return { type: 0, gasPrice: max(target, tipOf(floor)) };
  const tip = max(ceilDiv(first.maxPriorityFeePerGas * target, first.maxFeePerGas), tipOf(floor));
  return { type: 2, maxFeePerGas: target, maxPriorityFeePerGas: min(tip, target) };
}

/**
 * The ladder a send signs ahead: up to `steps` steps from `first` to `ceiling`, evenly spaced in ratio (each at least
 * the minimum bump above the one below), the top one at the ceiling itself and kept for the cancel. As many steps as
 * the ceiling leaves room for; none when even one bump would pass it (or the first max fee is 0).
 */
export function feeLadder(first: Fees, ceiling: bigint, steps = LADDER_STEPS): FeeLadder {
  const base = maxFeeOf(first);
  let count = 0;
  for (let fee = base; base > 0n && count < steps; count++) {
    fee = maxFeeOf(bumped({ type: 0, gasPrice: fee }));
    if (fee > ceiling) break;
  }
  if (count === 0) return { replacements: [], cancel: undefined };
  // The ratio between steps, in millionths: the count-th root of ceiling / base (a float is precise enough for a ratio;
  // the fees themselves stay bigint, and each step is checked against the minimum bump below).
  const ratio = Math.pow(Number((ceiling * 1_000_000n) / base) / 1_000_000, 1 / count);
  const ladder: LadderStep[] = [];
  let below = first;
  for (let rung = 1; rung <= count; rung++) {
    const scaled = rung === count ? ceiling : (base * BigInt(Math.floor(Math.pow(ratio, rung) * 1_000_000))) / 1_000_000n;
    const floor = bumped(below);
    const target = min(ceiling, max(scaled, maxFeeOf(floor)));
    below = stepAt(first, target, floor);
    ladder.push({ rung, fees: below });
  }
  return { replacements: ladder.slice(0, -1), cancel: ladder.at(-1) };
}

/**
 * The step to send after `currentRung`: the lowest above it that pays what the node asks now (`needed`), else the
 * highest above it (the closest the ladder comes); undefined when no step is left above it.
 */
export function nextStep<T extends LadderStep>(steps: readonly T[], currentRung: number, needed: Fees | undefined): T | undefined {
  const above = steps.filter((step) => step.rung > currentRung).sort((a, b) => a.rung - b.rung);
  return above.find((step) => covers(step.fees, needed)) ?? above.at(-1);
}

/**
 * Fees for a replacement of `current` signed now (by the caller, or for a cancel): the minimum bump, raised to what the
 * node asks (`needed`), the max fee held at `ceiling` if that still bumps enough; undefined when even the minimum bump
 * passes the ceiling.
 */
export function replacementFees(current: Fees, needed: Fees | undefined, ceiling: bigint): Fees | undefined {
  const floor = bumped(current);
  if (maxFeeOf(floor) > ceiling) return undefined;
  const raised = raisedTo(floor, needed);
  if (raised.type === 0) return { type: 0, gasPrice: min(raised.gasPrice, ceiling) };
  const maxFeePerGas = min(raised.maxFeePerGas, ceiling);
  return { type: 2, maxFeePerGas, maxPriorityFeePerGas: min(raised.maxPriorityFeePerGas, maxFeePerGas) };
}

/** Wei as gwei, for messages: up to 9 decimals, trailing zeros dropped. */
export function formatGwei(wei: bigint): string {
  const whole = wei / 1_000_000_000n;
  const fraction = (wei % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

/** Gwei as typed (`30`, `0.05`: up to 9 decimals) in wei; undefined when it is not such a number. */
export function parseGwei(text: string): bigint | undefined {
  const match = /^(\d{1,12})(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (match === null) return undefined;
  return BigInt(match[1]!) * 1_000_000_000n + BigInt((match[2] ?? "").padEnd(9, "0"));
}
