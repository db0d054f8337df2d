import { ZeroAddress } from "ethers";

import { parseEvmAddress } from "./addresses.js";
import { invalidArgument } from "./errors.js";

// A token's options, at the level of OpenZeppelin's Contracts Wizard: each option adds one audited extension of
// OpenZeppelin Contracts to the deployed contract, and a token launched without it does not have it. Every
// combination is a contract of its own, generated from one template (src/chains/evm/variants/variant-source.ts): those
// of FEATURES alone are compiled at build time (docs/decisions/0031-token-variants.md), those with an option of
// FIRST_USE_FEATURES on the first launch that needs them (docs/decisions/0062-variants-compiled-on-first-use.md). The
// name of a combination's contract is derived here, the one place the generator and the launch read it from.

export type TokenKind = "ERC20" | "ERC721" | "ERC1155";

/**
 * Who may call the restricted functions (mint, pause): one owner (`Ownable`), role holders (`AccessControl`), or
 * whoever an OpenZeppelin AccessManager given at launch allows (`AccessManaged`, the Wizard's "managed").
 */
export type Access = "ownable" | "roles" | "managed";
/** The access of the precompiled variants; every "managed" variant is compiled on first use (docs/decisions/0064). */
export const ACCESS_VALUES: readonly Access[] = ["ownable", "roles"];
/** Every access a launch may name. */
export const ALL_ACCESS_VALUES: readonly Access[] = [...ACCESS_VALUES, "managed"];

/** The on/off options of each kind, in the order a variant's name lists them. */
export const FEATURES = {
  ERC20: ["burnable", "pausable", "permit", "capped", "mintable", "votes"],
  ERC721: ["burnable", "pausable", "enumerable", "uriStorage", "royalty"],
  ERC1155: ["burnable", "pausable", "supply", "royalty"],
} as const satisfies Record<TokenKind, readonly string[]>;

/**
 * The options compiled on first use, after FEATURES in a variant's name. Adding them to FEATURES would multiply the
 * shipped variants by eight. `timestamp` is `votes` with the Wizard's clock mode "timestamp" (never without `votes`).
 */
export const FIRST_USE_FEATURES = {
  ERC20: ["flashmint", "callback", "timestamp"],
  ERC721: ["votes", "timestamp"],
  ERC1155: ["updatableUri"],
} as const satisfies Record<TokenKind, readonly string[]>;

export type Feature<K extends TokenKind> = (typeof FEATURES)[K][number];

/** How votes count time (the Wizard's clock modes, ERC-6372): block numbers, OpenZeppelin's default, or timestamps. */
export type ClockMode = "blocknumber" | "timestamp";
export const CLOCK_MODES: readonly ClockMode[] = ["blocknumber", "timestamp"];

/** ERC-2981: what a sale of any token of the collection owes, and to whom. */
export interface Royalty {
  receiver: string;
  /** Out of 10 000 (ERC-2981's denominator in OpenZeppelin's implementation): 250 = 2.5 %. */
  basisPoints: number;
}

/** `votes`: whether the token counts votes; `clockMode`, how (present only with votes). */
interface Votes {
  votes: boolean;
  clockMode?: ClockMode;
}

/** `upgradeable`: present only when the token is deployed behind a proxy. */
interface Upgradeability {
  upgradeable?: Upgradeable;
}

export type Erc20Options = Record<Exclude<Feature<"ERC20">, "votes">, boolean> &
  Votes &
  Upgradeability & { flashmint: boolean; callback: boolean; access: Access };
export type Erc721Options = Record<Exclude<Feature<"ERC721">, "royalty">, boolean> &
  Votes &
  Upgradeability & { royalty?: Royalty; access: Access };
export type Erc1155Options = Record<Exclude<Feature<"ERC1155">, "royalty">, boolean> &
  Upgradeability & {
    updatableUri: boolean;
    royalty?: Royalty;
    access: Access;
  };

/**
 * The Wizard's `upgradeable`: the token is deployed behind an ERC-1967 proxy (docs/decisions/0065), upgraded by the
 * implementation itself (`uups`, UUPSUpgradeable) or by the proxy's ProxyAdmin (`transparent`).
 */
export type Upgradeable = "uups" | "transparent";
export const UPGRADEABLE_VALUES: readonly Upgradeable[] = ["uups", "transparent"];

/** Which contract a launch deploys: the kind, the options that are on, the access control, and how it upgrades. */
export interface Variant {
  kind: TokenKind;
  features: readonly string[];
  access: Access;
  /** Absent: not upgradeable (every precompiled variant). */
  upgradeable?: Upgradeable;
}

/** At most this many basis points: ERC-2981's royalty cannot exceed the sale price. */
export const MAX_ROYALTY_BASIS_POINTS = 10_000;

const capitalized = (text: string) => text[0]!.toUpperCase() + text.slice(1);

/** A kind's options in the order a variant's name lists them: FEATURES, then FIRST_USE_FEATURES. */
export function featureOrder(kind: TokenKind): readonly string[] {
  return [...FEATURES[kind], ...FIRST_USE_FEATURES[kind]];
}

/** The name's last word for each `upgradeable`. */
const UPGRADEABLE_SUFFIX: Record<Upgradeable, string> = { uups: "UUPS", transparent: "Transparent" };

/**
 * The contract of a variant: `ServiceERC20BurnablePermitRoles` (features in featureOrder, then the access, then for an
 * upgradeable implementation `UUPS` or `Transparent`).
 */
export function variantName(variant: Variant): string {
  const features = featureOrder(variant.kind).filter((feature) => variant.features.includes(feature));
  const upgradeable = variant.upgradeable === undefined ? "" : UPGRADEABLE_SUFFIX[variant.upgradeable];
  return `Service${variant.kind}${features.map(capitalized).join("")}${capitalized(variant.access)}${upgradeable}`;
}

/**
 * Whether a variant ships compiled (src/artifacts/variants/): its access is one of ACCESS_VALUES and none of its options
 * is one of FIRST_USE_FEATURES.
 */
export function isPrecompiled(variant: Variant): boolean {
  const shipped: readonly string[] = FEATURES[variant.kind];
  return (
    variant.upgradeable === undefined &&
    ACCESS_VALUES.includes(variant.access) &&
    variant.features.every((feature) => shipped.includes(feature))
  );
}

/** Every precompiled variant: each subset of a kind's FEATURES with each access (the build compiles them all). */
export function allVariants(): Variant[] {
  const variants: Variant[] = [];
  for (const kind of Object.keys(FEATURES) as TokenKind[]) {
    const features: readonly string[] = FEATURES[kind];
    for (let mask = 0; mask < 1 << features.length; mask++) {
      for (const access of ACCESS_VALUES) {
        variants.push({ kind, features: features.filter((_, bit) => (mask & (1 << bit)) !== 0), access });
      }
    }
  }
  return variants;
}

/** The variant a kind's parsed options select. */
export function variantOf(kind: TokenKind, options: Erc20Options | Erc721Options | Erc1155Options): Variant {
  const fields = options as unknown as Record<string, unknown>;
  const features = featureOrder(kind).filter((feature) =>
    feature === "royalty"
      ? fields.royalty !== undefined
      : feature === "timestamp"
        ? fields.votes === true && fields.clockMode === "timestamp"
        : fields[feature] === true,
  );
  return { kind, features, access: options.access, ...(options.upgradeable !== undefined ? { upgradeable: options.upgradeable } : {}) };
}

/** The options fields beyond FEATURES (`timestamp` is a value of `votes`, not a field). */
const OPTION_FIELDS: Record<TokenKind, readonly string[]> = {
  ERC20: ["flashmint", "callback"],
  ERC721: ["votes"],
  ERC1155: ["updatableUri"],
};

function parseOptionsObject(value: unknown, field: string, kind: TokenKind): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(field, `${field} must be an object of options, e.g. { "burnable": true }`);
  }
  const allowed = [...FEATURES[kind], ...OPTION_FIELDS[kind], "access", "upgradeable"];
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw invalidArgument(`${field}.${unknown[0]}`, `unknown option for ${kind}: ${unknown.join(", ")}; allowed: ${allowed.join(", ")}`, {
      unknownOptions: unknown,
    });
  }
  return value as Record<string, unknown>;
}

function flag(options: Record<string, unknown>, key: string, field: string): boolean {
  const value = options[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw invalidArgument(`${field}.${key}`, `${field}.${key} must be true or false`);
  return value;
}

/**
 * `votes`, as the Wizard takes it: true (block numbers, as before), false, or a clock mode. Answers the parsed fields:
 * a clock mode only where votes are on and count timestamps, so that `votes: true` and "blocknumber" are one contract.
 */
function votes(options: Record<string, unknown>, field: string): Votes {
  const value = options.votes;
  if (value === undefined || value === null || value === false) return { votes: false };
  if (value === true || value === "blocknumber") return { votes: true };
  if (value === "timestamp") return { votes: true, clockMode: "timestamp" };
  throw invalidArgument(`${field}.votes`, `${field}.votes must be true, false, "blocknumber" or "timestamp" (the clock votes count in)`);
}

function access(options: Record<string, unknown>, field: string): Access {
  const value = options.access;
  if (value === undefined || value === null) return "roles";
  if (typeof value !== "string" || !(ALL_ACCESS_VALUES as readonly string[]).includes(value)) {
    throw invalidArgument(`${field}.access`, `${field}.access must be "ownable", "roles" or "managed"`);
  }
  return value as Access;
}

/** `upgradeable`, as the Wizard takes it: false (or absent), "uups" or "transparent". */
function upgradeable(options: Record<string, unknown>, field: string): Upgradeability {
  const value = options.upgradeable;
  if (value === undefined || value === null || value === false) return {};
  if (typeof value !== "string" || !(UPGRADEABLE_VALUES as readonly string[]).includes(value)) {
    throw invalidArgument(
      `${field}.upgradeable`,
      `${field}.upgradeable must be "uups", "transparent" or false (how the token's proxy is upgraded); "beacon" is not offered`,
      { allowed: [...UPGRADEABLE_VALUES, false] },
    );
  }
  return { upgradeable: value as Upgradeable };
}

function royalty(options: Record<string, unknown>, field: string): Royalty | undefined {
  const value = options.royalty;
  if (value === undefined || value === null || value === false) return undefined;
  const at = `${field}.royalty`;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw invalidArgument(at, `${at} must be an object: { "receiver": "0x…", "basisPoints": 250 }`);
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => key !== "receiver" && key !== "basisPoints");
  if (unknown.length > 0)
    throw invalidArgument(`${at}.${unknown[0]}`, `unknown field of ${at}: ${unknown.join(", ")}; allowed: receiver, basisPoints`);
  const receiver = parseEvmAddress(fields.receiver, `${at}.receiver`);
  if (receiver === ZeroAddress) throw invalidArgument(`${at}.receiver`, `${at}.receiver must not be the zero address`);
  const points =
    typeof fields.basisPoints === "string" && /^\d+$/.test(fields.basisPoints) ? Number(fields.basisPoints) : fields.basisPoints;
  if (typeof points !== "number" || !Number.isInteger(points) || points < 0 || points > MAX_ROYALTY_BASIS_POINTS) {
    throw invalidArgument(
      `${at}.basisPoints`,
      `${at}.basisPoints must be an integer from 0 to ${MAX_ROYALTY_BASIS_POINTS} (10000 = 100 % of the sale price)`,
    );
  }
  return { receiver, basisPoints: points };
}

export function parseErc20Options(value: unknown, field = "token.options"): Erc20Options {
  const options = parseOptionsObject(value, field, "ERC20");
  return {
    burnable: flag(options, "burnable", field),
    pausable: flag(options, "pausable", field),
    permit: flag(options, "permit", field),
    capped: flag(options, "capped", field),
    mintable: flag(options, "mintable", field),
    ...votes(options, field),
    flashmint: flag(options, "flashmint", field),
    callback: flag(options, "callback", field),
    access: access(options, field),
    ...upgradeable(options, field),
  };
}

export function parseErc721Options(value: unknown, field = "token.options"): Erc721Options {
  const options = parseOptionsObject(value, field, "ERC721");
  const royal = royalty(options, field);
  return {
    burnable: flag(options, "burnable", field),
    pausable: flag(options, "pausable", field),
    enumerable: flag(options, "enumerable", field),
    uriStorage: flag(options, "uriStorage", field),
    ...votes(options, field),
    ...(royal !== undefined ? { royalty: royal } : {}),
    access: access(options, field),
    ...upgradeable(options, field),
  };
}

export function parseErc1155Options(value: unknown, field = "token.options"): Erc1155Options {
  const options = parseOptionsObject(value ?? {}, field, "ERC1155");
  const royal = royalty(options, field);
  return {
    burnable: flag(options, "burnable", field),
    pausable: flag(options, "pausable", field),
    supply: flag(options, "supply", field),
    updatableUri: flag(options, "updatableUri", field),
    ...(royal !== undefined ? { royalty: royal } : {}),
    access: access(options, field),
    ...upgradeable(options, field),
  };
}
