import { ZeroAddress } from "ethers";

import { parseEvmAddress } from "./addresses.js";
import { invalidArgument } from "./errors.js";
import { parseUint256 } from "./units.js";

// Fields several writes take (transfers, approvals, burns, role and ownership changes), each checked one way.

/** An address that is not the zero address: tokens or rights given to it are lost, and tokens refuse it. */
export function counterparty(value: unknown, field: string, what: string): string {
  const address = parseEvmAddress(value, field);
  if (address === ZeroAddress) throw invalidArgument(field, `${field} must not be the zero address (${what})`);
  return address;
}

/**
 * An amount greater than 0; `requiredFor` completes "amount is required …" ("for an ERC20 transfer"). `field` names it
 * where it is not the body's `amount` (a batch mint's `recipients[2].amount`).
 */
export function positiveAmount(value: unknown, requiredFor: string, field = "amount"): bigint {
  if (value === undefined) throw invalidArgument(field, `${field} is required ${requiredFor} (smallest units, decimal string)`);
  const amount = parseUint256(value, field);
  if (amount === 0n) throw invalidArgument(field, `${field} must be greater than 0`);
  return amount;
}

/** A token id that must be given; `requiredFor` completes "tokenId is required …". */
export function requiredTokenId(value: unknown, requiredFor: string): bigint {
  if (value === undefined) throw invalidArgument("tokenId", `tokenId is required ${requiredFor}`);
  return parseUint256(value, "tokenId");
}
