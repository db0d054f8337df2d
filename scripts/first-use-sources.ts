// The verification bundle's `firstUse` (scripts/verification-bundle.ts; a test recomputes it): the OpenZeppelin sources
// the variants compiled on first use import that the precompiled variants do not already bring
// (docs/decisions/0062-variants-compiled-on-first-use.md). With those, the bundle holds every source any combination
// of options needs, so the service compiles without @openzeppelin/contracts installed.
import { launcherPath, launcherSource } from "../src/chains/evm/variants/launcher-source.js";
import { variantPath, variantSource } from "../src/chains/evm/variants/variant-source.js";
import { importClosure } from "../src/chains/evm/verification/solidity-imports.js";
import { ALL_ACCESS_VALUES, featureOrder, UPGRADEABLE_VALUES, type TokenKind, type Upgradeable } from "../src/domain/token-options.js";
import { COMPILER } from "./token-variants.js";

export interface FirstUseSources {
  /** The OpenZeppelin Contracts release they are from: the one the precompiled variants were compiled against. */
  openZeppelin: string;
  sources: Record<string, string>;
}

/**
 * The sources every variant with all of a kind's options on imports, with each access (each option adds its bases and
 * takes none away, so these cover every combination; "managed" adds AccessManaged and its interfaces), less those
 * `shipped` already has; each of them upgradeable both ways (the @openzeppelin/contracts-upgradeable counterparts), and
 * the launchers of upgradeable tokens (the proxies' sources).
 */
export function firstUseSources(
  shipped: Readonly<Record<string, string>>,
  readOpenZeppelin: (unit: string) => string | undefined,
): FirstUseSources {
  const sources: Record<string, string> = {};
  const add = (unit: string, own: string) => {
    for (const name of importClosure(unit, (name) => (name === unit ? own : (shipped[name] ?? readOpenZeppelin(name))))) {
      if (name !== unit && shipped[name] === undefined) sources[name] = readOpenZeppelin(name)!;
    }
  };
  for (const kind of ["ERC20", "ERC721", "ERC1155"] as TokenKind[]) {
    for (const access of ALL_ACCESS_VALUES) {
      for (const upgradeable of [undefined, ...UPGRADEABLE_VALUES] as Array<Upgradeable | undefined>) {
        const variant = { kind, access, features: featureOrder(kind), ...(upgradeable !== undefined ? { upgradeable } : {}) };
        add(variantPath(variant), variantSource(variant));
      }
    }
  }
  for (const upgradeable of UPGRADEABLE_VALUES) add(launcherPath(upgradeable), launcherSource(upgradeable));
  return {
    openZeppelin: COMPILER.openZeppelin,
    sources: Object.fromEntries(Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}
