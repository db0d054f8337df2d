import { id } from "ethers";

import type { BurnParams, PauseParams, RoleParams } from "../../../domain/admin-commands.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { managedAuthority } from "../read/access-manager.js";
import { probeCode, type CodeProbe } from "../read/code-probe.js";
import { requireTokenStandard } from "../read/token-info.js";
import { supportedInterfaces, view, viewCall } from "../read/view-call.js";
import { INTERFACE_IDS, erc721Standard, tokenExtensions } from "../standard-abi.js";
import { erc721Owner, notOwner, requireErc1155Balance, requireErc20Balance } from "./transfer.js";

// Burns and pauses: the call each makes, and what is refused before signing; and the refusals the token calls of
// domain/kinds/ name (a missing function, a role the token does not define, a token without an owner).
// A token that lacks the function (launched without the option) is NOT_SUPPORTED_BY_TOKEN, read from its code; what
// the token would revert otherwise (a sender without the role, a paused token) is found by the node's estimate and
// answered WOULD_REVERT with the token's error decoded, as for every write.

const BURN_AMOUNT_OR_ID = "burn(uint256)";
const BURN_ERC1155 = "burn(address,uint256,uint256)";

/** The call a burn makes: the sender burns its own tokens. */
export function burnData(sender: string, params: BurnParams): string {
  if (params.type === "ERC1155") return tokenExtensions.encodeFunctionData(BURN_ERC1155, [sender, params.tokenId, params.amount]);
  return tokenExtensions.encodeFunctionData(BURN_AMOUNT_OR_ID, [params.type === "ERC20" ? params.amount : params.tokenId]);
}

export function pauseData(params: PauseParams): string {
  return tokenExtensions.encodeFunctionData(params.paused ? "pause" : "unpause");
}

function notSupported(contract: string, message: string, details: Record<string, unknown>, field = "contractAddress"): TokenServiceError {
  return new TokenServiceError(ErrorCode.NOT_SUPPORTED_BY_TOKEN, `${contract} ${message}`, {
    field,
    details: { contractAddress: contract, ...details },
  });
}

/** Refuses a token whose code has none of `signatures` (undefined, a proxy the probe cannot see through, passes). */
function requireFunctions(probe: CodeProbe, contract: string, signatures: string[], option: string, launchedWithout: string): void {
  const missing = signatures.find((signature) => probe.has(signature) === false);
  if (missing === undefined) return;
  throw notSupported(contract, `has no ${missing}: ${launchedWithout}`, { option, function: missing });
}

export async function preflightBurn(chain: EvmChain, sender: string, params: BurnParams): Promise<void> {
  const contract = params.contractAddress;
  const [probe] = await Promise.all([probeCode(chain, contract), requireTokenStandard(chain, contract, params.type)]);
  const signature = params.type === "ERC1155" ? BURN_ERC1155 : BURN_AMOUNT_OR_ID;
  requireFunctions(probe, contract, [signature], "burnable", "the token cannot be burned (it was launched without token.options.burnable)");
  if (params.type === "ERC20") return requireErc20Balance(chain, sender, contract, params.amount, "burn");
  if (params.type === "ERC1155") return requireErc1155Balance(chain, sender, contract, params.tokenId, params.amount, "burn");
  // ERC721Burnable lets the owner burn, and whoever may move the token for it: its approved address, or its operator.
  const owner = await erc721Owner(chain, contract, params.tokenId);
  if (owner.toLowerCase() === sender.toLowerCase()) return;
  const [approved, operator] = await Promise.all([
    view<string>(chain, contract, erc721Standard, "getApproved", [params.tokenId]),
    view<boolean>(chain, contract, erc721Standard, "isApprovedForAll", [owner, sender]),
  ]);
  if (approved?.toLowerCase() === sender.toLowerCase() || operator === true) return;
  throw notOwner(
    `${sender} neither owns token id ${params.tokenId} of ${contract} (${owner} does) nor is approved to move it: the token would revert with ERC721InsufficientApproval`,
    "ERC721InsufficientApproval",
    { owner },
  );
}

/**
 * The token must be pausable (pause(), unpause() and paused()), and not in the state asked for already: OpenZeppelin's
 * Pausable reverts a pause of a paused token (EnforcedPause) and an unpause of a running one (ExpectedPause).
 */
export async function preflightPause(chain: EvmChain, params: PauseParams): Promise<void> {
  const contract = params.contractAddress;
  const [probe, paused] = await Promise.all([probeCode(chain, contract), view<boolean>(chain, contract, tokenExtensions, "paused")]);
  const launchedWithout = "the token cannot be paused (it was launched without token.options.pausable)";
  requireFunctions(probe, contract, ["pause()", "unpause()"], "pausable", launchedWithout);
  if (paused === undefined)
    throw notSupported(contract, `has no paused(): ${launchedWithout}`, { option: "pausable", function: "paused()" });
  if (paused !== params.paused) return;
  const error = paused ? "EnforcedPause" : "ExpectedPause";
  throw new TokenServiceError(
    ErrorCode.WOULD_REVERT,
    `${contract} is ${paused ? "already paused" : "not paused"}: ${paused ? "pause" : "unpause"}() would revert with ${error}(); nothing was signed or sent`,
    { field: "paused", details: { error, args: {} } },
  );
}

/** Which launch option gives a token each of the service's roles (DEFAULT_ADMIN_ROLE comes with access "roles"). */
const ROLE_OPTIONS = new Map([
  ["MINTER_ROLE", "mintable"],
  ["PAUSER_ROLE", "pausable"],
]);

/**
 * The token must have AccessControl (by ERC-165), and a role given by name must be one it defines as a view of that name
 * (OpenZeppelin's convention, `bytes32 public constant PAUSER_ROLE`) whose id is the name's hash: a misspelt or absent
 * role is refused, not granted as an id nobody checks. Whether the sender holds the role's admin role is the node's
 * estimate's to find (AccessControlUnauthorizedAccount).
 */
export async function preflightRole(chain: EvmChain, params: RoleParams, call: string): Promise<void> {
  const contract = params.contractAddress;
  const [, declared, owner, roleId, authority] = await Promise.all([
    probeCode(chain, contract),
    supportedInterfaces(chain, contract, { accessControl: INTERFACE_IDS.accessControl }),
    view<string>(chain, contract, tokenExtensions, "owner"),
    params.named ? roleDefinedBy(chain, contract, params.role) : Promise.resolve(params.roleId),
    managedAuthority(chain, contract),
  ]);
  if (!declared.accessControl && owner === undefined && authority !== undefined)
    throw managedByAuthority(contract, authority, "roles", call);
  if (!declared.accessControl) {
    throw notSupported(
      contract,
      owner !== undefined
        ? `has no roles: it was launched with token.options.access "ownable" (one owner, ${owner}); transfer its ownership instead`
        : "has no roles: it does not declare AccessControl (ERC-165 0x7965db0b)",
      {
        option: "access",
        needed: "roles",
        found: owner !== undefined ? "ownable" : "neither",
        function: call,
      },
    );
  }
  if (roleId === undefined) {
    const option = ROLE_OPTIONS.get(params.role);
    throw notSupported(
      contract,
      `defines no ${params.role}()${option ? `: it was launched without token.options.${option}` : ""}; give a role it defines, or the role's id as 32 bytes of hex`,
      { ...(option ? { option } : {}), function: `${params.role}()` },
      "role",
    );
  }
  if (roleId.toLowerCase() !== params.roleId) {
    throw invalidArgument("role", `${contract}'s ${params.role}() is ${roleId}, not the hash of its name: give that id as role`, {
      roleId,
    });
  }
}

/** The id the token's view of that name answers (`MINTER_ROLE()`: one 32-byte word), or undefined when it has none. */
async function roleDefinedBy(chain: EvmChain, contract: string, name: string): Promise<string | undefined> {
  const answer = await viewCall(chain, contract, id(`${name}()`).slice(0, 10));
  return answer.length === 66 ? answer : undefined;
}

/**
 * A token with access "managed" (AccessManaged) has no roles and no owner of its own: who may call what is its
 * AccessManager's to say (grantRole and setTargetFunctionRole on the manager, by the manager's admins), not the token's.
 */
function managedByAuthority(contract: string, authority: string, needed: string, call: string): TokenServiceError {
  return notSupported(
    contract,
    `has no ${needed === "roles" ? "roles" : "owner"}: it was launched with token.options.access "managed", and its AccessManager ${authority} decides who may call each of its functions; ${needed === "roles" ? "grant or revoke the manager's roles" : "change the manager's admins, or setAuthority through the manager"} on ${authority} instead`,
    { option: "access", needed, found: "managed", function: call, authority },
  );
}

/**
 * The token must have an owner (Ownable): a token with roles hands over by granting DEFAULT_ADMIN_ROLE instead, and a
 * managed one (AccessManaged) through its AccessManager.
 */
export async function preflightOwnership(chain: EvmChain, params: { contractAddress: string }): Promise<void> {
  const contract = params.contractAddress;
  const [probe, owner, declared, authority] = await Promise.all([
    probeCode(chain, contract),
    view<string>(chain, contract, tokenExtensions, "owner"),
    supportedInterfaces(chain, contract, { accessControl: INTERFACE_IDS.accessControl }),
    managedAuthority(chain, contract),
  ]);
  if (owner !== undefined && probe.has("transferOwnership(address)") !== false) return;
  if (owner === undefined && !declared.accessControl && authority !== undefined)
    throw managedByAuthority(contract, authority, "ownable", "transferOwnership(address)");
  throw notSupported(
    contract,
    declared.accessControl
      ? 'has no owner: it was launched with token.options.access "roles"; grant DEFAULT_ADMIN_ROLE instead'
      : "has no owner() and transferOwnership(address) (OpenZeppelin's Ownable)",
    { option: "access", needed: "ownable", found: declared.accessControl ? "roles" : "neither", function: "transferOwnership(address)" },
  );
}

/**
 * A token call of domain/kinds/: the token's code must have every function its kind requires (no code at all is
 * NOT_A_TOKEN_CONTRACT); what it would revert otherwise is the node's estimate's to find, as for every write.
 */
export async function preflightRequiredFunctions(
  chain: EvmChain,
  contract: string,
  requires: { functions: readonly string[]; option: string; launchedWithout: string },
): Promise<void> {
  const probe = await probeCode(chain, contract);
  requireFunctions(probe, contract, [...requires.functions], requires.option, requires.launchedWithout);
}
