import { formatUnits } from "./units.js";

// Amounts say what they are (docs/decisions/0060-amounts-echoed.md): an answer that carries an amount in smallest
// units carries its display form and the decimals beside it, and a warning when the amount looks like a unit mix-up
// (whole tokens sent where smallest units are taken: "1000" on an 18-decimal token is 10^-15 tokens). A warning never
// refuses: the amount may be meant.

export const WarningCode = {
  /** An ERC20 amount above 0 and below one whole token, at a token with decimals. */
  AMOUNT_BELOW_ONE_TOKEN: "AMOUNT_BELOW_ONE_TOKEN",
  /** A native EVM amount (a faucet grant, a native transfer) above 0 and below 1 gwei. */
  AMOUNT_BELOW_ONE_GWEI: "AMOUNT_BELOW_ONE_GWEI",
} as const;

export type WarningCode = (typeof WarningCode)[keyof typeof WarningCode];

export interface AmountWarning {
  code: WarningCode;
  /** The request field the amount came from: `token.initialSupply`, `amount`, `recipients[2].amount`. */
  field: string;
  message: string;
}

/** A write's amount as its answer echoes it where it has a unit (ERC20, native): `amount` is in smallest units. */
export interface AmountEcho {
  /** `amount` in whole units at `decimals`: exact, no trailing zeros. */
  uiAmount?: string;
  /** The token's (or native currency's) decimals `amount` is in. */
  decimals?: number;
}

/** An answer's warnings: present only when there is one. */
export type Warned = { warnings?: AmountWarning[] };

/** Gwei are 9 decimals below the native unit on an 18-decimal chain: 10^(decimals - 9) smallest units. */
const GWEI_DECIMALS = 9;

/** The scale that ends each warning: what one whole unit is in smallest units. */
const oneWhole = (decimals: number, unit: string) => `(one whole ${unit} is ${10n ** BigInt(decimals)} smallest units)`;

/**
 * An ERC20 amount in (0, 10^decimals) at a token with decimals: most often whole tokens sent as smallest units.
 * `symbol` names the unit when known.
 */
export function belowOneToken(amount: bigint, decimals: number, field: string, symbol?: string): AmountWarning | undefined {
  if (decimals === 0 || amount === 0n || amount >= 10n ** BigInt(decimals)) return undefined;
  const unit = symbol ? ` ${symbol}` : " tokens";
  return {
    code: WarningCode.AMOUNT_BELOW_ONE_TOKEN,
    field,
    message: `${field} is ${amount} smallest units, ${formatUnits(amount, decimals)}${unit} at ${decimals} decimals: less than one whole token ${oneWhole(decimals, "token")}`,
  };
}

/** A native EVM amount in (0, 1 gwei): wei meant as ETH (a faucet's "5" is 5 wei). */
export function belowOneGwei(amount: bigint, decimals: number, field: string, symbol = "ETH"): AmountWarning | undefined {
  const gwei = 10n ** BigInt(Math.max(decimals - GWEI_DECIMALS, 0));
  if (amount === 0n || amount >= gwei) return undefined;
  return {
    code: WarningCode.AMOUNT_BELOW_ONE_GWEI,
    field,
    message: `${field} is ${amount} smallest units, ${formatUnits(amount, decimals)} ${symbol}: less than 1 gwei ${oneWhole(decimals, symbol)}`,
  };
}

/** `answer` with `warnings` when any is given, and without the field otherwise. */
export function withWarnings<T extends object>(answer: T, warnings: ReadonlyArray<AmountWarning | undefined>): T & Warned {
  const found = warnings.filter((warning): warning is AmountWarning => warning !== undefined);
  return found.length === 0 ? answer : { ...answer, warnings: found };
}

type AmountFields = { amount?: unknown; recipients?: unknown; decimals?: unknown };

const isInteger = (value: unknown): value is string | number =>
  (typeof value === "string" && /^\d+$/.test(value)) || (typeof value === "number" && Number.isSafeInteger(value) && value >= 0);

/**
 * A write's fields with `uiAmount` beside each `amount` (a batch's recipients too), where `decimals` says the unit: an
 * ERC20's or the native currency's. Fields without decimals (an ERC1155 count, an ERC721) are as given.
 */
export function echoAmounts<T extends AmountFields>(fields: T): T {
  const { decimals } = fields;
  if (typeof decimals !== "number") return fields;
  // uiAmount right after its amount, so that a reader sees them side by side.
  const withUi = <F extends object>(item: F): F => {
    const entries = Object.entries(item).flatMap(([key, value]) =>
      key === "amount" && isInteger(value)
        ? [
            [key, value],
            ["uiAmount", formatUnits(BigInt(value), decimals)],
          ]
        : [[key, value]],
    );
    return Object.fromEntries(entries) as F;
  };
  const echoed = withUi(fields);
  return Array.isArray(fields.recipients)
    ? { ...echoed, recipients: fields.recipients.map((item: Record<string, unknown>) => withUi(item)) }
    : echoed;
}

/**
 * The warnings of a write's amounts, from the fields its answer (and record) hold: ERC20 amounts below one whole token,
 * native ones below 1 gwei. `type` is the write's token or asset type (ERC20, NATIVE, …).
 */
export function amountWarnings(type: string | null, fields: AmountFields, nativeSymbol?: string): AmountWarning[] {
  const { decimals } = fields;
  if (typeof decimals !== "number" || (type !== "ERC20" && type !== "NATIVE")) return [];
  const check = (amount: unknown, field: string) => {
    if (!isInteger(amount)) return undefined;
    return type === "ERC20" ? belowOneToken(BigInt(amount), decimals, field) : belowOneGwei(BigInt(amount), decimals, field, nativeSymbol);
  };
  const recipients = Array.isArray(fields.recipients)
    ? fields.recipients.map((item: Record<string, unknown>, index) => check(item.amount, `recipients[${index}].amount`))
    : [];
  return [check(fields.amount, "amount"), ...recipients].filter((warning): warning is AmountWarning => warning !== undefined);
}

/** What an ERC20 launch's answer echoes of its supply: the initial supply, and the cap when it has one. */
export interface SupplyEcho {
  initialSupply: string;
  uiInitialSupply: string;
  /** The cap (the request's `token.totalSupply`), when the launch set one. */
  totalSupply?: string;
  uiTotalSupply?: string;
  decimals: number;
}

/** An ERC20 launch's supply as its answer echoes it, with its warnings; `cap` undefined: uncapped. */
export function supplyEcho(initialSupply: bigint, cap: bigint | undefined, decimals: number, symbol?: string): SupplyEcho & Warned {
  const echo: SupplyEcho = {
    initialSupply: initialSupply.toString(),
    uiInitialSupply: formatUnits(initialSupply, decimals),
    ...(cap !== undefined ? { totalSupply: cap.toString(), uiTotalSupply: formatUnits(cap, decimals) } : {}),
    decimals,
  };
  return withWarnings(echo, [
    belowOneToken(initialSupply, decimals, "token.initialSupply", symbol),
    cap === undefined ? undefined : belowOneToken(cap, decimals, "token.totalSupply", symbol),
  ]);
}

const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * An ERC20 launch's supply echo rebuilt from its record's token fields (as the caller gave them: amounts as strings,
 * decimals default 18), as its answer had it; undefined for fields a launch would not have taken.
 */
export function recordedSupplyEcho(token: Record<string, unknown>): (SupplyEcho & Warned) | undefined {
  const decimals = token.decimals === undefined ? 18 : Number(token.decimals);
  const initial = token.initialSupply === undefined ? "0" : String(token.initialSupply).trim();
  const capText =
    token.totalSupply === undefined || token.totalSupply === null || token.totalSupply === ""
      ? undefined
      : String(token.totalSupply).trim();
  if (!Number.isInteger(decimals) || !/^\d+$/.test(initial) || (capText !== undefined && !/^\d+$/.test(capText))) return undefined;
  // As the launch's answer: a cap of 2^256 - 1 is no cap.
  const cap = capText === undefined || BigInt(capText) === MAX_UINT256 ? undefined : BigInt(capText);
  return supplyEcho(BigInt(initial), cap, decimals, typeof token.symbol === "string" ? token.symbol : undefined);
}
