// The Wizard's `upgradeable` (0.10's packages/core/solidity/src/set-upgradeable.ts), applied to a variant's parts
// (variant-source.ts): every base becomes its @openzeppelin/contracts-upgradeable counterpart, `Initializable` comes
// first, the constructor becomes `initialize(...)` (the same parameters, `initializer`) calling each base's
// `__X_init` in the order of the bases, and the constructor only runs `_disableInitializers()` so that the
// implementation itself can never be initialized. `uups` adds `UUPSUpgradeable` last and `_authorizeUpgrade` restricted
// as the Wizard restricts it per access (onlyOwner, onlyRole(UPGRADER_ROLE), restricted); `transparent` adds nothing
// (the proxy's ProxyAdmin upgrades it). docs/decisions/0065-upgradeable-launches.md.
//
// Departures from the Wizard 0.10.16 output, on purpose:
// - Initializable and UUPSUpgradeable are imported from @openzeppelin/contracts-upgradeable/proxy/utils/: the
//   OpenZeppelin release these variants compile against is 5.3, where they live (the Wizard 0.10.16 output is marked
//   compatible with Contracts ^5.7.0, which has them in @openzeppelin/contracts).
// - `initialize` takes what the non-upgradeable variant's constructor takes (name, symbol, decimals, holders, admin…),
//   where the Wizard writes name, symbol and premint into the source; the mint functions and airdrops are the service's.
// - The ERC20's decimals and the ERC721's base URI are storage written by `initialize` (an immutable would be the
//   implementation's, not the proxy's), as the Wizard keeps the state of its own functions in plain storage.
import type { Variant } from "../../../domain/token-options.js";

const OZ = "@openzeppelin/contracts/";
const OZ_UPGRADEABLE = "@openzeppelin/contracts-upgradeable/";

/** Contracts imported as they are (a library, not a stateful base). */
const NOT_UPGRADEABLE = new Set(["ERC1155Utils"]);

/** The name of a base in the upgradeable contract: `ERC20` → `ERC20Upgradeable`. */
export function upgradeableName(base: string): string {
  return NOT_UPGRADEABLE.has(base) ? base : `${base}Upgradeable`;
}

/** Where the upgradeable counterpart of a base comes from, given where the base does. */
export function upgradeableImport(base: string, path: string): string {
  if (NOT_UPGRADEABLE.has(base)) return path;
  return path.replace(OZ, OZ_UPGRADEABLE).replace(/([A-Za-z0-9]+)\.sol$/, "$1Upgradeable.sol");
}

/** The two bases the Wizard adds of its own, from where OpenZeppelin Contracts Upgradeable 5.3 has them. */
export const UPGRADEABLE_IMPORTS: Record<string, string> = {
  Initializable: `${OZ_UPGRADEABLE}proxy/utils/Initializable.sol`,
  UUPSUpgradeable: `${OZ_UPGRADEABLE}proxy/utils/UUPSUpgradeable.sol`,
};

/**
 * The initializer calls of the bases, in the order of the bases (as the Wizard writes them): `ERC20(name_, symbol_)` as
 * a base constructor becomes `__ERC20_init(name_, symbol_);`, and every base without arguments is initialized too.
 */
export function initializerCalls(bases: readonly string[], baseConstructors: readonly string[]): string[] {
  const argumentsOf = new Map(
    baseConstructors.map((call) => {
      const open = call.indexOf("(");
      return [call.slice(0, open), call.slice(open + 1, -1)];
    }),
  );
  return bases.filter((base) => !NOT_UPGRADEABLE.has(base)).map((base) => `__${base}_init(${argumentsOf.get(base) ?? ""});`);
}

/** The UUPS upgrade's guard: restricted as the variant's other functions are (the Wizard's UPGRADER_ROLE with roles). */
export function authorizeUpgrade(guard: string): string {
  return `function _authorizeUpgrade(address newImplementation) internal override ${guard} {}`;
}

/** A variant's note on how it upgrades, for its description line. */
export function upgradeableNote(variant: Variant): string {
  return variant.upgradeable === undefined ? "" : `; upgradeable: ${variant.upgradeable}`;
}
