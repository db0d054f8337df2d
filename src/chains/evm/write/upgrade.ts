import { Interface, ZeroHash, dataSlice, getAddress, getCreateAddress } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { Upgradeable } from "../../../domain/token-options.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { nodeOf, view } from "../read/view-call.js";
import { decodeRevert, describeRevert, revertDataOf } from "../revert-reasons.js";
import { create2Address, create2Calldata } from "./create2.js";

// The calls of an upgrade (docs/decisions/0066-upgrade-write.md): the new implementation deployed through the CREATE2
// factory at a fixed salt, so that one implementation of a variant is one address on a chain, shared by every token
// upgraded to it; then `upgradeToAndCall` on a UUPS proxy, or its ProxyAdmin's `upgradeAndCall` for a transparent one.

/** The implementation's salt: always zero, so that its address depends on its code alone. */
export const IMPLEMENTATION_SALT = ZeroHash;

/** ERC-1967's implementation slot (keccak-256("eip1967.proxy.implementation") - 1). */
export const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";

const upgradeAbi = new Interface([
  "function upgradeToAndCall(address newImplementation, bytes data) payable",
  "function upgradeAndCall(address proxy, address implementation, bytes data) payable",
  "function owner() view returns (address)",
]);

/** Where the factory puts an implementation (its creation code: the constructor takes nothing) and the call that does it. */
export function implementationDeployment(bytecode: string): { address: string; data: string } {
  return { address: create2Address(IMPLEMENTATION_SALT, bytecode), data: create2Calldata(IMPLEMENTATION_SALT, bytecode) };
}

/** A transparent proxy's ProxyAdmin: the proxy's first CREATE, made in its constructor (0065). */
export const proxyAdminOf = (proxy: string) => getCreateAddress({ from: proxy, nonce: 1 });

/** The call that points `proxy` at `implementation`, with no initializer call (data 0x), and where it is sent. */
export function upgradeCall(upgradeable: Upgradeable, proxy: string, implementation: string): { to: string; data: string } {
  if (upgradeable === "uups") return { to: proxy, data: upgradeAbi.encodeFunctionData("upgradeToAndCall", [implementation, "0x"]) };
  return { to: proxyAdminOf(proxy), data: upgradeAbi.encodeFunctionData("upgradeAndCall", [proxy, implementation, "0x"]) };
}

/** The implementation the proxy points to now, read from its ERC-1967 slot. */
export async function currentImplementation(chain: EvmChain, proxy: string): Promise<string> {
  try {
    return getAddress(dataSlice(await chain.provider.getStorage(proxy, IMPLEMENTATION_SLOT), 12));
  } catch (error) {
    throw translateProviderError(error, nodeOf(chain));
  }
}

/** The errors that say the sender is not allowed to upgrade; any other revert is the node's estimate's to judge. */
const UNAUTHORIZED = ["OwnableUnauthorizedAccount", "AccessControlUnauthorizedAccount", "AccessManagedUnauthorized"];

/**
 * Refuses, before signing, a sender the proxy (or its ProxyAdmin) would refuse: the upgrade call is simulated from the
 * sender, to `implementation` (the current one before the new one is deployed: the authorization is checked first, and
 * pointing a proxy at its own implementation succeeds), and an unauthorized revert is NOT_UPGRADER with it decoded.
 */
export async function preflightUpgrader(
  chain: EvmChain,
  upgradeable: Upgradeable,
  proxy: string,
  implementation: string,
  sender: string,
): Promise<void> {
  const call = upgradeCall(upgradeable, proxy, implementation);
  let data: string | undefined;
  try {
    await chain.provider.call({ ...call, from: sender });
    return;
  } catch (error) {
    data = revertDataOf(error);
    if (data === undefined) throw translateProviderError(error, nodeOf(chain));
  }
  const revert = decodeRevert(data);
  if (revert.error === null || !UNAUTHORIZED.includes(revert.error)) return;
  const owner = upgradeable === "transparent" ? await view<string>(chain, call.to, upgradeAbi, "owner") : undefined;
  const who =
    upgradeable === "transparent"
      ? `the proxy's ProxyAdmin ${call.to} is owned by ${owner ?? "another account"}, and only its owner upgrades it`
      : `the token's _authorizeUpgrade refuses it`;
  throw new TokenServiceError(
    ErrorCode.NOT_UPGRADER,
    `${sender} may not upgrade ${proxy}: ${who} (${describeRevert(revert)}); nothing was signed or sent`,
    { field: "sender", details: { error: revert.error, args: revert.args, ...(owner !== undefined ? { owner } : {}) } },
  );
}
