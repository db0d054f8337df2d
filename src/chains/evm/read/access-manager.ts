import { ZeroAddress, getAddress } from "ethers";

import { TokenServiceError, invalidArgument, type ErrorCode } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { accessManager, probes } from "../standard-abi.js";
import { codeAt, view, viewCall } from "./view-call.js";

// Tokens launched with access "managed" (OpenZeppelin's AccessManaged, docs/decisions/0064-access-managed.md) have no
// owner and no roles: every restricted function asks the AccessManager named at launch, `canCall(caller, target,
// selector)`, and reverts with AccessManagedUnauthorized(caller) unless it answers `immediate`. The service asks the
// same question before signing, so that a refusal names that reason instead of costing a reverted transaction.

/** The AccessManager of an AccessManaged contract (its `authority()`), or undefined for a contract without one. */
export async function managedAuthority(chain: EvmChain, contract: string): Promise<string | undefined> {
  const authority = await view<string>(chain, contract, probes, "authority");
  return authority === undefined ? undefined : getAddress(authority);
}

/** What the manager answers for `caller` calling `selector` on `target`; undefined when it does not answer canCall. */
async function canCall(
  chain: EvmChain,
  authority: string,
  caller: string,
  target: string,
  selector: string,
): Promise<{ immediate: boolean; delay: number } | undefined> {
  const data = await viewCall(chain, authority, accessManager.encodeFunctionData("canCall", [caller, target, selector]));
  try {
    const [immediate, delay] = accessManager.decodeFunctionResult("canCall", data);
    return { immediate: immediate as boolean, delay: Number(delay) };
  } catch {
    return undefined;
  }
}

/**
 * A launch with access "managed": its authority must be a contract that answers AccessManager's canCall. The token
 * cannot change its authority but through the authority itself (setAuthority is restricted), so an address without
 * code, or a contract that does not answer, would leave mint, pause and every restricted function reverting forever.
 */
export async function preflightAuthority(chain: EvmChain, authority: string, sender: string): Promise<void> {
  const code = await codeAt(chain, authority);
  const problem =
    code === "0x"
      ? `${authority} has no code on ${chain.info.chain}/${chain.info.network} (an account, or nothing deployed there yet)`
      : (await canCall(chain, authority, sender, ZeroAddress, "0x00000000")) === undefined
        ? `${authority} does not answer canCall(address,address,bytes4) as OpenZeppelin's AccessManager does`
        : undefined;
  if (problem === undefined) return;
  throw invalidArgument(
    "token.authority",
    `token.authority must be an AccessManager contract: ${problem}. The token would ask it before every mint and pause, and every one would revert; nothing was signed or sent`,
    { authority },
  );
}

/**
 * Refuses a restricted call `data` from `sender` on a managed token that its manager would refuse outright: not
 * allowed, and no delay (a call allowed after a delay reverts unless scheduled on the manager first; the node's
 * estimate judges that one, naming AccessManagerNotScheduled). The refusal is `code` (NOT_A_MINTER for a mint) with
 * the token's own error decoded in `details`, as WOULD_REVERT gives it.
 */
export async function requireManagedCaller(
  chain: EvmChain,
  authority: string,
  sender: string,
  contract: string,
  data: string,
  code: ErrorCode,
): Promise<void> {
  const answer = await canCall(chain, authority, sender, contract, data.slice(0, 10));
  if (answer === undefined || answer.immediate || answer.delay > 0) return;
  throw new TokenServiceError(
    code,
    `${sender} may not call ${data.slice(0, 10)} on ${contract}: its AccessManager ${authority} does not allow it, so the token would revert with AccessManagedUnauthorized(${sender}); nothing was signed or sent`,
    { field: "sender", details: { error: "AccessManagedUnauthorized", args: { caller: sender }, authority } },
  );
}
