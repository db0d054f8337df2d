// The precompiled token variants as files, and their build-time compile: the source of each comes from the template
// (src/chains/evm/variants/variant-source.ts, which the service also generates the first-use variants from).
// `npm run build:contracts` writes token-variants/ from it and compiles them (scripts/build-token-variants.ts); a test
// checks that the committed files are its output and that the shipped bytecode is theirs.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import { variantPath, variantSource } from "../src/chains/evm/variants/variant-source.js";
import { allVariants, variantName, type TokenKind } from "../src/domain/token-options.js";

export { variantSource } from "../src/chains/evm/variants/variant-source.js";

export interface VariantFile {
  kind: TokenKind;
  /** Relative to the repository's root, and the source's name for the compiler: token-variants/<kind>/<Name>.sol. */
  path: string;
  name: string;
  source: string;
}

/** Every variant's file. */
export function variantFiles(): VariantFile[] {
  return allVariants().map((variant) => {
    const name = variantName(variant);
    return { kind: variant.kind, path: variantPath(variant), name, source: variantSource(variant) };
  });
}

const require = createRequire(import.meta.url);
const openZeppelinRoot = path.dirname(require.resolve("@openzeppelin/contracts/package.json"));

/** The compiler and settings of hardhat.config.ts (a test checks they agree): the same solc, the same EVM target. */
export const COMPILER = {
  solc: (require("solc/package.json") as { version: string }).version,
  openZeppelin: (require("@openzeppelin/contracts/package.json") as { version: string }).version,
  settings: { evmVersion: "shanghai", optimizer: { enabled: true, runs: 200 } },
};

/** The compiler's standard JSON input for these files (OpenZeppelin's sources are read through the import callback). */
export function compilerInput(files: readonly VariantFile[]): object {
  return {
    language: "Solidity",
    sources: Object.fromEntries(files.map((file) => [file.path, { content: file.source }])),
    settings: { ...COMPILER.settings, outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
}

/** Names what the shipped bytecode was compiled from: the sources, OpenZeppelin's and solc's versions, the settings. */
export function inputHash(files: readonly VariantFile[]): string {
  const input = JSON.stringify({ compiler: COMPILER, input: compilerInput(files) });
  return createHash("sha256").update(input).digest("hex");
}

export interface CompiledVariant {
  abi: unknown[];
  bytecode: string;
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/** Compiles the files with the solc npm package (offline), by contract name; throws on any compiler error. */
export function compileVariants(files: readonly VariantFile[]): Record<string, CompiledVariant> {
  const solc = require("solc") as { compile(input: string, callbacks: object): string };
  const findImports = (importPath: string) => {
    const prefix = "@openzeppelin/contracts/";
    if (!importPath.startsWith(prefix)) return { error: `not found: ${importPath}` };
    return { contents: readFileSync(path.join(openZeppelinRoot, importPath.slice(prefix.length)), "utf8") };
  };
  const output = JSON.parse(solc.compile(JSON.stringify(compilerInput(files)), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join("\n"));
  const compiled: Record<string, CompiledVariant> = {};
  for (const file of files) {
    const contract = output.contracts[file.path]?.[file.name];
    if (contract === undefined) throw new Error(`solc returned no ${file.name}`);
    compiled[file.name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
  return compiled;
}
