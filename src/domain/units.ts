import { invalidArgument } from "./errors.js";

export const MAX_UINT256 = (1n << 256n) - 1n;

/** Exact decimal rendering of a smallest-unit integer: no floating point, no trailing zeros. */
export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export interface AmountPair {
  balance: string;
  uiBalance: string;
}

export function amountPair(amount: bigint, decimals: number): AmountPair {
  return { balance: amount.toString(), uiBalance: formatUnits(amount, decimals) };
}

/** `1.5e18`, `1e3`, `2E-3`: a number in exponent form. */
const EXPONENT_FORM = /^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/;

/**
 * Refuses an amount typed in exponent form: it mixes units (`1.5e18` is wei written the ethers way to one reader, and
 * 1.5e18 ETH to the tasks, which take whole units), so a typed amount is written out in full.
 */
export function refuseExponentForm(
  text: string,
  field: string,
  rule = `${field} is in whole units, written out as a plain decimal (1.5 is 1.5 ETH, or 1.5 tokens at the token's decimals)`,
): void {
  if (!EXPONENT_FORM.test(text.trim())) return;
  throw invalidArgument(field, `${rule}: exponent forms such as "${text.trim().slice(0, 40)}" are refused, as they mix units`, {
    rule: "no-exponent",
  });
}

/** Parses a uint256 given as a decimal string (or a safe integer number). */
export function parseUint256(value: unknown, field: string): bigint {
  let text: string;
  if (typeof value === "number" && Number.isSafeInteger(value)) {
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    throw invalidArgument(field, `${field} must be an integer in smallest units, as a decimal string`);
  }
  // A task passes an ERC1155 count as typed: its exponent form is refused with the same rule as a whole-unit amount's.
  refuseExponentForm(text, field, `${field} is a decimal integer, written out in full`);
  if (!/^\d+$/.test(text)) {
    throw invalidArgument(
      field,
      `${field} must be a non-negative integer in smallest units, as a decimal string (got "${text.slice(0, 80)}")`,
    );
  }
  const amount = BigInt(text);
  if (amount > MAX_UINT256) {
    throw invalidArgument(field, `${field} exceeds the uint256 range`);
  }
  return amount;
}

/**
 * Parses an amount a person typed in whole units ("5", "0.25", "1000") into smallest units at `decimals`.
 * The tasks take amounts this way; the HTTP API and the programmatic API take smallest units.
 */
export function parseDecimalUnits(value: string, decimals: number, field: string): bigint {
  const text = value.trim();
  refuseExponentForm(text, field);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (match === null) {
    throw invalidArgument(
      field,
      `${field} must be a non-negative decimal amount in whole units, like 5 or 0.25 (got "${text.slice(0, 80)}")`,
    );
  }
  const fraction = match[2] ?? "";
  if (fraction.replace(/0+$/, "").length > decimals) {
    throw invalidArgument(field, `${field} has more than ${decimals} decimal places (got "${text.slice(0, 80)}")`);
  }
  const amount = BigInt(match[1]! + fraction.padEnd(decimals, "0").slice(0, decimals));
  if (amount > MAX_UINT256) throw invalidArgument(field, `${field} exceeds the uint256 range`);
  return amount;
}
