import { ErrorCode, TokenServiceError } from "./errors.js";
import type { AcceptedWrite } from "./admin-requests.js";
import type { PairRequest, SigningFields } from "./requests.js";
import {
  parseErc1155Options,
  parseErc20Options,
  parseErc721Options,
  variantName,
  variantOf,
  type TokenKind,
  type Upgradeable,
  type Variant,
} from "./token-options.js";

// An upgrade of a token this service launched behind a proxy (docs/decisions/0066-upgrade-write.md): what it asks,
// what it answers, and which changes of options an upgrade may make. An upgrade calls `upgradeToAndCall` (or the
// ProxyAdmin's `upgradeAndCall`) with no data: no initializer runs, so what an initializer would set stays as it is.

/** `POST /api/v1/tokens/upgrade`: the token, who upgrades it, and the options of its new implementation. */
export interface UpgradeRequest extends PairRequest, SigningFields {
  contractAddress: string;
  sender: string;
  /** The new implementation's options, as a launch's `token.options` (the token's kind and `upgradeable` kept). */
  options: unknown;
}

/** The new implementation: where it is, and the record that deployed it (null: it was already there). */
export interface UpgradeImplementation {
  address: string;
  operationId: string | null;
}

/** The upgrade's own record answered, as every write answers, with the implementations before and after. */
export interface UpgradeResult extends AcceptedWrite {
  type: string;
  upgradeable: Upgradeable;
  variant: string;
  /** The new implementation's options, as the request gave them. */
  options: unknown;
  implementation: UpgradeImplementation;
  previousImplementation: string;
}

/**
 * The implementation's deployment was sent but not mined within the wait: no upgrade was signed. The same request,
 * sent again, finds the implementation at its address (deployed, or its record still pending) and goes on.
 */
export interface UpgradeAwaitingImplementation {
  chain: string;
  network: string;
  contractAddress: string;
  sender: string;
  implementation: UpgradeImplementation & { status: string; transactionHash: string | null };
  previousImplementation: string;
}

/** The write commands an upgrade is made of (core/operations/upgrade-intents.ts): each one transaction, one record. */
export interface ImplementationRequest extends PairRequest {
  sender: string;
  type: TokenKind;
  options: unknown;
}

export interface UpgradeCallRequest extends ImplementationRequest {
  contractAddress: string;
  implementationOperationId: string | null;
}

/** The options parsed as a launch parses them, for the token's kind; errors name `field`'s sub-fields. */
export function parseOptionsOf(kind: TokenKind, options: unknown, field = "options") {
  return kind === "ERC20"
    ? parseErc20Options(options, field)
    : kind === "ERC721"
      ? parseErc721Options(options, field)
      : parseErc1155Options(options, field);
}

/** The variant the options make for the token's kind. */
export const upgradeVariantOf = (kind: TokenKind, options: unknown, field = "options"): Variant =>
  variantOf(kind, parseOptionsOf(kind, options, field));

/**
 * Options whose base keeps state its initializer sets (ERC20Capped's cap, ERC2981's default royalty, EIP712's name and
 * version for permit and votes): added by an upgrade, which runs no initializer, the state would stay empty.
 */
const SET_BY_INITIALIZER = ["capped", "royalty", "permit", "votes"];

const incompatible = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new TokenServiceError(ErrorCode.UPGRADE_INCOMPATIBLE, `${message}; nothing was signed or sent`, { field, details });

/**
 * Refuses new options that cannot replace the current ones behind the same proxy (UPGRADE_INCOMPATIBLE naming the
 * option), or that make the same implementation (NOTHING_TO_UPGRADE); the storage layout is upgrades-core's to judge.
 */
export function checkUpgradeChange(current: Variant, next: Variant, implementation: string): void {
  if (next.upgradeable !== current.upgradeable) {
    throw incompatible(
      "options.upgradeable",
      `options.upgradeable must stay "${current.upgradeable}": the token's proxy is ${current.upgradeable === "uups" ? "a UUPS proxy" : "a transparent proxy"}, and an upgrade changes its implementation, not its kind`,
      { upgradeable: current.upgradeable },
    );
  }
  if (next.access !== current.access) {
    throw incompatible(
      "options.access",
      `options.access must stay "${current.access}": the new access control would never be initialized (an upgrade runs no initializer), leaving the token without an owner or admin`,
      { access: current.access },
    );
  }
  const added = next.features.filter((feature) => !current.features.includes(feature));
  const needsInit = added.find((feature) => SET_BY_INITIALIZER.includes(feature));
  if (needsInit !== undefined) {
    throw incompatible(
      `options.${needsInit}`,
      `options.${needsInit} cannot be added by an upgrade: its state is set by an initializer, and an upgrade runs none (it would stay empty)`,
      { option: needsInit },
    );
  }
  if (current.features.includes("timestamp") !== next.features.includes("timestamp")) {
    throw incompatible(
      "options.votes",
      "the clock of options.votes cannot change: the votes' checkpoints already count in the current one",
    );
  }
  if (variantName(next) === variantName(current)) {
    throw new TokenServiceError(
      ErrorCode.NOTHING_TO_UPGRADE,
      `the token already runs ${variantName(current)} at ${implementation}: these options make the same implementation; nothing was signed or sent`,
      { field: "options", details: { implementation, variant: variantName(current) } },
    );
  }
}
