import { ZeroAddress } from "ethers";

import { parseEvmAddress } from "./addresses.js";
import { invalidArgument } from "./errors.js";

// A token's options, at the level of OpenZeppelin's Contracts Wizard: each option adds one audited extension of
// OpenZeppelin Contracts to the deployed contract, and a token launched without it does not have it. Every
// combination is a contract of its own, generated from one template and compiled at build time
// (docs/decisions/0031-token-variants.md); the name of a combination's contract is derived here, the one place both
// the generator (scripts/token-variants.ts) and the launch read it from.

export type TokenKind = "ERC20" | "ERC721" | "ERC1155";

/** Who may call the restricted functions (mint, pause): one owner (`Ownable`) or role holders (`AccessControl`). */
export type Access = "ownable" | "roles";
export const ACCESS_VALUES: readonly Access[] = ["ownable", "roles"];

/** The on/off options of each kind, in the order a variant's name lists them. */
export const FEATURES = {
  ERC20: ["burnable", "pausable", "permit", "capped", "mintable", "votes"],
  ERC721: ["burnable", "pausable", "enumerable", "uriStorage", "royalty"],
  ERC1155: ["burnable", "pausable", "supply", "royalty"],
} as const satisfies Record<TokenKind, readonly string[]>;

export type Feature<K extends TokenKind> = (typeof FEATURES)[K][number];

/** ERC-2981: what a sale of any token of the collection owes, and to whom. */
export interface Royalty {
  receiver: string;
  /** Out of 10 000 (ERC-2981's denominator in OpenZeppelin's implementation): 250 = 2.5 %. */
  basisPoints: number;
}

export type Erc20Options = Record<Feature<"ERC20">, boolean> & { access: Access };
export type Erc721Options = Record<Exclude<Feature<"ERC721">, "royalty">, boolean> & { royalty?: Royalty; access: Access };
export type Erc1155Options = Record<Exclude<Feature<"ERC1155">, "royalty">, boolean> & { royalty?: Royalty; access: Access };

/** Which contract a launch deploys: the kind, the options that are on, and the access control. */
export interface Variant {
  kind: TokenKind;
  features: readonly string[];
  access: Access;
}

/** At most this many basis points: ERC-2981's royalty cannot exceed the sale price. */
export const MAX_ROYALTY_BASIS_POINTS = 10_000;

const capitalized = (text: string) => text[0]!.toUpperCase() + text.slice(1);

/** The contract of a variant: `ServiceERC20BurnablePermitRoles` (features in FEATURES' order, then the access). */
export function variantName(variant: Variant): string {
  const order: readonly string[] = FEATURES[variant.kind];
  const features = order.filter((feature) => variant.features.includes(feature));
  return `Service${variant.kind}${features.map(capitalized).join("")}${capitalized(variant.access)}`;
}

/** Every variant of every kind: each subset of its features with each access (the generator compiles them all). */
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
  const features = (FEATURES[kind] as readonly string[]).filter((feature) =>
    feature === "royalty" ? fields.royalty !== undefined : fields[feature] === true,
  );
  return { kind, features, access: options.access };
}

function parseOptionsObject(value: unknown, field: string, kind: TokenKind): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(field, `${field} must be an object of options, e.g. { "burnable": true }`);
  }
  const allowed = [...FEATURES[kind], "access"];
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

function access(options: Record<string, unknown>, field: string): Access {
  const value = options.access;
  if (value === undefined || value === null) return "roles";
  if (typeof value !== "string" || !(ACCESS_VALUES as readonly string[]).includes(value)) {
    throw invalidArgument(`${field}.access`, `${field}.access must be "ownable" or "roles"`);
  }
  return value as Access;
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
    votes: flag(options, "votes", field),
    access: access(options, field),
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
    ...(royal !== undefined ? { royalty: royal } : {}),
    access: access(options, field),
  };
}

export function parseErc1155Options(value: unknown, field = "token.options"): Erc1155Options {
  const options = parseOptionsObject(value ?? {}, field, "ERC1155");
  const royal = royalty(options, field);
  return {
    burnable: flag(options, "burnable", field),
    pausable: flag(options, "pausable", field),
    supply: flag(options, "supply", field),
    ...(royal !== undefined ? { royalty: royal } : {}),
    access: access(options, field),
  };
}
