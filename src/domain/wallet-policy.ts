import { ErrorCode, TokenServiceError, invalidArgument } from "./errors.js";
import { parseEvmAddress } from "./addresses.js";
import { parseUint256 } from "./units.js";

// A held wallet's policy (docs/custody.md): what the service signs for it. Every rule is optional; a write outside any
// rule is refused with POLICY_DENIED naming the rule, before anything is signed or a nonce is taken. Checked as a pure
// function of the policy, the write and what the wallet sent today.

export interface WalletPolicy {
  /** The most native currency (smallest units) one transaction may send. */
  maxValuePerTransaction?: bigint;
  /** The most native currency its transactions may send per UTC day, on each pair. */
  maxValuePerDay?: bigint;
  /** Who may receive: a transfer's or mint's recipients, an approval's spender, a role's account, a new owner (lowercase). */
  allowedRecipients?: string[];
  /** The contracts it may call (lowercase); a launch deploys one and calls none. */
  allowedContracts?: string[];
  /** The most it may pay per gas (wei): `maxFeePerGas`, or a legacy `gasPrice`; its replacements included. */
  maxFeePerGas?: bigint;
  /** The pairs it may write on, as "chain/network". */
  networks?: string[];
}

export type PolicyRule = keyof WalletPolicy;

/** One write, as a policy sees it. */
export interface PolicedWrite {
  pair: { chain: string; network: string };
  kind: string;
  /** Native currency it sends. */
  value: bigint;
  /** Addresses that receive value or power from it (EVM: lowercase; Bitcoin: as the network writes them). */
  recipients: string[];
  /** The contract it calls (lowercase); null for a deployment or a native transfer. */
  contract: string | null;
}

const LIST_LIMIT = 100;

/** The policy a PUT body asks for, checked field by field (INVALID_ARGUMENT names the field). */
export function parseWalletPolicy(
  body: Record<string, unknown>,
  pairs: (value: string, field: string) => string,
  /** A held Bitcoin wallet's recipients are addresses of its network (no contracts, no gas); default: EVM addresses. */
  bitcoinRecipient?: (value: string, field: string) => string,
): WalletPolicy {
  if (bitcoinRecipient !== undefined) {
    for (const field of ["allowedContracts", "maxFeePerGas"] as const) {
      if (body[field] !== undefined && body[field] !== null) throw invalidArgument(field, `${field} does not apply to a Bitcoin wallet`);
    }
  }
  const policy: WalletPolicy = {};
  const amount = (field: "maxValuePerTransaction" | "maxValuePerDay" | "maxFeePerGas") => {
    const value = body[field];
    if (value === undefined || value === null) return;
    if (typeof value !== "string") throw invalidArgument(field, `${field} must be a decimal string (smallest units)`);
    policy[field] = parseUint256(value, field);
  };
  amount("maxValuePerTransaction");
  amount("maxValuePerDay");
  amount("maxFeePerGas");
  const list = (field: "allowedRecipients" | "allowedContracts" | "networks", each: (value: string, field: string) => string) => {
    const value = body[field];
    if (value === undefined || value === null) return;
    if (!Array.isArray(value) || value.length > LIST_LIMIT)
      throw invalidArgument(field, `${field} must be a list of at most ${LIST_LIMIT}`);
    policy[field] = [
      ...new Set(
        value.map((item, index) => {
          if (typeof item !== "string") throw invalidArgument(`${field}[${index}]`, `${field}[${index}] must be a string`);
          return each(item, `${field}[${index}]`);
        }),
      ),
    ];
  };
  const address = (value: string, field: string) => parseEvmAddress(value, field).toLowerCase();
  list("allowedRecipients", bitcoinRecipient ?? address);
  list("allowedContracts", address);
  list("networks", pairs);
  return policy;
}

/** The rule a write breaks, with why; undefined when the policy lets it through. `sentToday`: native value already sent. */
export function policyRefusal(
  policy: WalletPolicy,
  write: PolicedWrite,
  sentToday: bigint,
): { rule: PolicyRule; reason: string } | undefined {
  const pair = `${write.pair.chain}/${write.pair.network}`;
  if (policy.networks !== undefined && !policy.networks.includes(pair)) {
    return { rule: "networks", reason: `${pair} is not among the wallet's networks (${policy.networks.join(", ") || "none"})` };
  }
  const outside =
    policy.allowedRecipients === undefined ? undefined : write.recipients.find((each) => !policy.allowedRecipients!.includes(each));
  if (outside !== undefined) return { rule: "allowedRecipients", reason: `${outside} is not an allowed recipient` };
  if (policy.allowedContracts !== undefined && write.contract !== null && !policy.allowedContracts.includes(write.contract)) {
    return { rule: "allowedContracts", reason: `${write.contract} is not an allowed contract` };
  }
  if (policy.maxValuePerTransaction !== undefined && write.value > policy.maxValuePerTransaction) {
    return {
      rule: "maxValuePerTransaction",
      reason: `it sends ${write.value}, over the ${policy.maxValuePerTransaction} one transaction may`,
    };
  }
  if (policy.maxValuePerDay !== undefined && write.value > 0n && sentToday + write.value > policy.maxValuePerDay) {
    return {
      rule: "maxValuePerDay",
      reason: `it sends ${write.value} after ${sentToday} today (UTC), over the ${policy.maxValuePerDay} a day may`,
    };
  }
  return undefined;
}

/** The refusal a client is answered: 403 POLICY_DENIED, the rule in `field` and `details.rule`. */
export function policyDenied(address: string, refusal: { rule: PolicyRule; reason: string }): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.POLICY_DENIED,
    `the policy of ${address} refuses this write (${refusal.rule}): ${refusal.reason}; nothing was signed`,
    {
      field: refusal.rule,
      details: { rule: refusal.rule },
    },
  );
}

/** A policy as JSON: amounts as decimal strings. */
export function presentWalletPolicy(policy: WalletPolicy): Record<string, string | string[]> {
  const shown: Record<string, string | string[]> = {};
  for (const [rule, value] of Object.entries(policy) as Array<[PolicyRule, bigint | string[] | undefined]>) {
    if (value !== undefined) shown[rule] = typeof value === "bigint" ? value.toString() : value;
  }
  return shown;
}

/** A stored policy (JSON, amounts as strings) back as a policy. */
export function storedWalletPolicy(stored: Record<string, unknown>): WalletPolicy {
  const policy: WalletPolicy = {};
  for (const rule of ["maxValuePerTransaction", "maxValuePerDay", "maxFeePerGas"] as const) {
    if (typeof stored[rule] === "string") policy[rule] = BigInt(stored[rule] as string);
  }
  for (const rule of ["allowedRecipients", "allowedContracts", "networks"] as const) {
    if (Array.isArray(stored[rule])) policy[rule] = stored[rule] as string[];
  }
  return policy;
}
