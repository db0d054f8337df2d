import { createHash } from "node:crypto";

import { LruMap } from "../../../domain/lru-map.js";
import type * as UpgradesCoreModule from "@openzeppelin/upgrades-core";

import type { StandardJsonInput } from "../verification/verification-input.js";

// OpenZeppelin's upgrade-safety checks (@openzeppelin/upgrades-core) of an implementation replacing another behind a
// proxy, run as the Hardhat and Foundry plugins run them (docs/decisions/0066-upgrade-write.md): each contract compiled
// with its storage layout and AST, then again from upgrades-core's "namespaced" input (makeNamespacedInput), so that the
// ERC-7201 namespaces of OpenZeppelin 5's upgradeable contracts are in the layout too; `validate` over both outputs;
// the new implementation's own errors (a constructor, selfdestruct, delegatecall, a missing upgradeToAndCall for UUPS…)
// and the old layout against the new one. upgrades-core is loaded here only, on the first upgrade (serve does not load
// it at start: test/system/http/idle-modules.test.ts).

/** A contract to check: the standard JSON input it compiles from, its source unit and its name. */
export interface UpgradeContract {
  input: StandardJsonInput;
  unit: string;
  contractName: string;
}

/** Runs solc on a standard JSON input and answers its parsed output and the compiler's version. */
export type ValidationCompile = (input: StandardJsonInput) => Promise<{ output: unknown; version: string }>;

/** What upgrades-core needs of a compile: the bytecodes and method ids, the storage layout, every source's AST. */
export const VALIDATION_OUTPUT_SELECTION = {
  "*": {
    "*": [
      "abi",
      "evm.bytecode.object",
      "evm.bytecode.linkReferences",
      "evm.deployedBytecode.object",
      "evm.deployedBytecode.linkReferences",
      "evm.methodIdentifiers",
      "storageLayout",
    ],
    "": ["ast"],
  },
};

// Types only: erased from the built code, so nothing of upgrades-core loads with this module.
type UpgradesCore = typeof UpgradesCoreModule;
type Analysis = { errors: string[]; layout: UpgradesCoreModule.StorageLayout };

let core: Promise<UpgradesCore> | undefined;

/** upgrades-core, loaded once on first use (a CommonJS package: its exports are the default's under some loaders). */
function upgradesCore(): Promise<UpgradesCore> {
  core ??= import("@openzeppelin/upgrades-core").then(
    (module) => ((module as unknown as { default?: UpgradesCore }).default ?? module) as UpgradesCore,
  );
  return core;
}

interface CompileOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
}

async function compiled(compile: ValidationCompile, input: StandardJsonInput, what: string) {
  const { output, version } = await compile(input);
  const errors = ((output as CompileOutput).errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) throw new Error(`${what} did not compile for the upgrade checks: ${errors[0]!.formattedMessage}`);
  // upgrades-core compares versions as semver ("0.8.27"), without the commit.
  return { output, version: /^\d+\.\d+\.\d+/.exec(version)?.[0] ?? version };
}

/**
 * Analyses kept by input and proxy kind: two solc runs each (seconds), the same for every token of a variant. A few
 * only: a layout holds its types' AST-derived descriptions.
 */
const analyses = new LruMap<string, Promise<Analysis>>(16);

function analysed(contract: UpgradeContract, compile: ValidationCompile, kind: "uups" | "transparent"): Promise<Analysis> {
  const key = createHash("sha256")
    .update(JSON.stringify([kind, contract.unit, contract.contractName, contract.input]))
    .digest("hex");
  let analysis = analyses.get(key);
  if (analysis === undefined) {
    analysis = analyse(contract, compile, kind);
    analyses.set(key, analysis);
    // A failed analysis (the compiler missing) is tried again by the next upgrade.
    analysis.catch(() => analyses.delete(key));
  }
  return analysis;
}

/** The contract's own upgrade-safety errors (as upgrades-core explains them) and its storage layout, namespaces included. */
async function analyse(contract: UpgradeContract, compile: ValidationCompile, kind: "uups" | "transparent"): Promise<Analysis> {
  const oz = await upgradesCore();
  const input = { ...contract.input, settings: { ...contract.input.settings, outputSelection: VALIDATION_OUTPUT_SELECTION } };
  const { output, version } = await compiled(compile, input, contract.contractName);
  type SolcInput = Parameters<UpgradesCore["makeNamespacedInput"]>[0];
  type SolcOutput = Parameters<UpgradesCore["makeNamespacedInput"]>[1];
  const namespacedInput = oz.makeNamespacedInput(input as unknown as SolcInput, output as SolcOutput, version);
  const namespaced = await compiled(compile, namespacedInput as unknown as StandardJsonInput, `${contract.contractName} (namespaced)`);
  const decodeSrc = oz.solcInputOutputDecoder(input as unknown as SolcInput, output as SolcOutput);
  const runData = oz.validate(output as SolcOutput, decodeSrc, version, input as unknown as SolcInput, namespaced.output as SolcOutput);
  const version_ = oz.getContractVersion(runData, `${contract.unit}:${contract.contractName}`);
  const options = oz.withValidationDefaults({ kind });
  const errors = oz.getErrors(runData, version_, options).map((error) => new oz.UpgradeableContractErrorReport([error]).explain(false));
  return { errors, layout: oz.getStorageLayout(runData, version_) };
}

/**
 * Why `next` may not replace `current` behind a proxy of `kind`, in upgrades-core's words: the new implementation's
 * unsafe code, then each storage incompatibility. Empty: the upgrade is safe.
 */
export async function upgradeSafetyReasons(
  current: UpgradeContract,
  next: UpgradeContract,
  kind: "uups" | "transparent",
  compile: ValidationCompile,
): Promise<string[]> {
  const before = await analysed(current, compile, kind);
  const after = await analysed(next, compile, kind);
  const oz = await upgradesCore();
  const report = oz.getStorageUpgradeReport(before.layout, after.layout, oz.withValidationDefaults({ kind }));
  const storage = report.ok ? [] : report.explain(false).split("\n\n");
  return [...after.errors, ...storage];
}
