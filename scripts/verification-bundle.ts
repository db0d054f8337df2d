// What src/artifacts/verification.json.br holds (scripts/build-verification.ts writes it; a test recomputes it): the
// historic templates' standard JSON input as Hardhat compiled them, and the variants' sources with every OpenZeppelin
// source they import and the settings they were compiled with (scripts/token-variants.ts), and the sources only the
// variants compiled on first use import (scripts/first-use-sources.ts).
import { importClosure } from "../src/chains/evm/verification/solidity-imports.js";
import type { VerificationBundle } from "../src/chains/evm/verification/verification-input.js";
import { firstUseSources } from "./first-use-sources.js";
import { COMPILER, type VariantFile } from "./token-variants.js";

/** The historic templates and the source names Hardhat gives them (its build info's `userSourceNameMap` values). */
export const HISTORIC_CONTRACTS = {
  ServiceERC20: "project/contracts/ServiceERC20.sol",
  ServiceERC721: "project/contracts/ServiceERC721.sol",
} as const;

export function verificationBundle(
  historic: { solcLongVersion: string; input: object },
  variants: readonly VariantFile[],
  readOpenZeppelin: (unit: string) => string | undefined,
): VerificationBundle {
  const own = new Map(variants.map((file) => [file.path, file.source]));
  const sources: Record<string, string> = {};
  for (const file of variants) {
    for (const unit of importClosure(file.path, (name) => own.get(name) ?? readOpenZeppelin(name))) {
      sources[unit] ??= own.get(unit) ?? readOpenZeppelin(unit)!;
    }
  }
  const sorted = Object.fromEntries(Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    compilerVersion: historic.solcLongVersion,
    historic: { input: historic.input, sourceNames: HISTORIC_CONTRACTS },
    variants: { settings: COMPILER.settings, sources: sorted },
    firstUse: firstUseSources(sorted, readOpenZeppelin),
  };
}
