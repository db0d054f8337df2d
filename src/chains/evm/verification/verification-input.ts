import { readFileSync } from "node:fs";
import { brotliDecompressSync } from "node:zlib";

import type { TokenKind } from "../../../domain/token-options.js";
import { serviceErc20Artifact, serviceErc721Artifact, shippedVariants, type ShippedArtifact } from "../artifacts.js";
import { importClosure } from "./solidity-imports.js";

// What an explorer needs to verify a token the service deployed (docs/tokens.md#verifying-a-token): the contract is
// told by the deployment's creation code (the shipped bytecode it starts with), its constructor arguments are the rest
// of that code, and its standard JSON input is rebuilt from src/artifacts/verification.json.br
// (scripts/build-verification.ts): the historic templates' input as Hardhat compiled them, a variant's source with the
// OpenZeppelin sources it imports and the settings it was compiled with.

/** src/artifacts/verification.json.br, as scripts/verification-bundle.ts writes it. */
export interface VerificationBundle {
  /** solc's long version, without its "v": `0.8.28+commit.7893614a`. */
  compilerVersion: string;
  historic: { input: object; sourceNames: Readonly<Record<string, string>> };
  variants: {
    settings: { evmVersion: string; optimizer: { enabled: boolean; runs: number } };
    /** Every variant's source (token-variants/…) and every OpenZeppelin source one imports, by source unit name. */
    sources: Record<string, string>;
  };
  /**
   * The OpenZeppelin sources that only variants compiled on first use import (scripts/first-use-sources.ts), from the
   * release the precompiled variants were compiled against. In this file rather than one of their own: Brotli finds the
   * upgradeable bases' text in their non-upgradeable counterparts above (decision 0059).
   */
  firstUse: { openZeppelin: string; sources: Record<string, string> };
}

export interface TokenVerification {
  /** The contract's name (`ServiceERC20`, or a variant's: `ServiceERC20BurnableOwnable`). */
  contractName: string;
  /** `<source unit>:<name>`, as Etherscan's `contractname` and Sourcify take it. */
  fullyQualifiedName: string;
  /** As explorers write it: `v0.8.28+commit.7893614a`. */
  compilerVersion: string;
  evmVersion: string;
  optimizer: { enabled: boolean; runs: number };
  /** The ABI-encoded constructor arguments the deployment carried after the bytecode (0x-prefixed hex). */
  constructorArguments: string;
  /** solc's standard JSON input: every source the contract needs, and the settings it was compiled with. */
  standardJsonInput: { language: "Solidity"; sources: Record<string, { content: string }>; settings: Record<string, unknown> };
}

/** solc's standard JSON input, as explorers take it. */
export type StandardJsonInput = TokenVerification["standardJsonInput"];

/** A variant compiled on first use: its contract, and the input it was compiled from (variants/first-use-compiler.ts). */
export interface FirstUseContract {
  artifact: ShippedArtifact;
  unit: string;
  input: StandardJsonInput;
}

let bundle: VerificationBundle | undefined;

/** The shipped verification sources, read once (the first-use compiler takes its OpenZeppelin sources from them too). */
export function verificationBundle(): VerificationBundle {
  if (bundle === undefined) {
    const packed = readFileSync(new URL("../../../artifacts/verification.json.br", import.meta.url));
    bundle = JSON.parse(brotliDecompressSync(packed).toString("utf8")) as VerificationBundle;
  }
  return bundle;
}

/** The output an explorer's compile needs: what these inputs were compiled for, and the metadata. */
export const OUTPUT_SELECTION = { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "metadata"] } };

/**
 * The verification of a token deployed with `initCode` (its creation code: a shipped contract's bytecode, then its
 * constructor arguments); undefined when no contract this version ships starts it, nor `firstUse`, the variant compiled
 * on first use its launch's options name (its input is the one it was compiled from).
 */
export function tokenVerification(kind: TokenKind, initCode: string, firstUse?: FirstUseContract): TokenVerification | undefined {
  const code = initCode.toLowerCase();
  const shipped = verificationBundle();
  const compilerVersion = `v${shipped.compilerVersion}`;
  if (firstUse !== undefined && code.startsWith(firstUse.artifact.bytecode.toLowerCase())) {
    const { contractName, bytecode } = firstUse.artifact;
    const settings = firstUse.input.settings as VerificationBundle["variants"]["settings"];
    return {
      contractName,
      fullyQualifiedName: `${firstUse.unit}:${contractName}`,
      compilerVersion,
      evmVersion: settings.evmVersion,
      optimizer: settings.optimizer,
      constructorArguments: `0x${code.slice(bytecode.length)}`,
      standardJsonInput: firstUse.input,
    };
  }
  const historic = kind === "ERC20" ? serviceErc20Artifact : kind === "ERC721" ? serviceErc721Artifact : undefined;
  const candidates: Array<[string, string, boolean]> = Object.entries(shippedVariants(kind)).map(([name, artifact]) => [
    name,
    artifact.bytecode,
    false,
  ]);
  if (historic !== undefined) candidates.push([historic.contractName, historic.bytecode, true]);
  const match = candidates.filter(([, bytecode]) => code.startsWith(bytecode.toLowerCase())).sort((a, b) => b[1].length - a[1].length)[0];
  if (match === undefined) return undefined;
  const [contractName, bytecode, isHistoric] = match;
  const constructorArguments = `0x${code.slice(bytecode.length)}`;
  if (isHistoric) {
    const input = shipped.historic.input as TokenVerification["standardJsonInput"];
    const settings = input.settings as { evmVersion: string; optimizer: { enabled: boolean; runs: number } };
    const unit = shipped.historic.sourceNames[contractName]!;
    return {
      contractName,
      fullyQualifiedName: `${unit}:${contractName}`,
      compilerVersion,
      evmVersion: settings.evmVersion,
      optimizer: settings.optimizer,
      constructorArguments,
      standardJsonInput: input,
    };
  }
  const unit = `token-variants/${kind.toLowerCase()}/${contractName}.sol`;
  const { settings, sources } = shipped.variants;
  const units = importClosure(unit, (name) => sources[name]).sort();
  return {
    contractName,
    fullyQualifiedName: `${unit}:${contractName}`,
    compilerVersion,
    evmVersion: settings.evmVersion,
    optimizer: settings.optimizer,
    constructorArguments,
    standardJsonInput: {
      language: "Solidity",
      sources: Object.fromEntries(units.map((name) => [name, { content: sources[name]! }])),
      settings: { ...settings, outputSelection: OUTPUT_SELECTION },
    },
  };
}
