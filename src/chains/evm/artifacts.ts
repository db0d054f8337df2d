import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { brotliDecompressSync } from "node:zlib";
import type { InterfaceAbi } from "ethers";

import type { TokenKind } from "../../domain/token-options.js";
import { fromPush2Relative, PUSH2_RELATIVE } from "./push2-relative.js";

export interface ShippedArtifact {
  contractName: string;
  abi: InterfaceAbi;
  bytecode: string;
}

const require = createRequire(import.meta.url);

export const serviceErc20Artifact: ShippedArtifact = require("../../artifacts/ServiceERC20.json");
export const serviceErc721Artifact: ShippedArtifact = require("../../artifacts/ServiceERC721.json");
export const balanceReaderArtifact: ShippedArtifact = require("../../artifacts/BalanceReader.json");

/** A kind's variants (scripts/build-token-variants.ts), read on the first launch of one: a process that never launches one never reads them. */
const variantBundles = new Map<TokenKind, Record<string, Omit<ShippedArtifact, "contractName">>>();

/** A variant bundle as scripts/build-token-variants.ts writes it: its bytecode in the form push2-relative.ts says. */
interface StoredBundle {
  bytecodeEncoding: string;
  contracts: Record<string, Omit<ShippedArtifact, "contractName">>;
}

/** Every shipped variant of a kind, by contract name. */
export function shippedVariants(kind: TokenKind): Readonly<Record<string, Omit<ShippedArtifact, "contractName">>> {
  let bundle = variantBundles.get(kind);
  if (bundle === undefined) {
    const packed = readFileSync(new URL(`../../artifacts/variants/${kind.toLowerCase()}.json.br`, import.meta.url));
    const stored = JSON.parse(brotliDecompressSync(packed).toString("utf8")) as StoredBundle;
    if (stored.bytecodeEncoding !== PUSH2_RELATIVE) throw new Error(`the ${kind} variants' bundle is stale: run npm run build:contracts`);
    bundle = Object.fromEntries(
      Object.entries(stored.contracts).map(([name, { abi, bytecode }]) => [name, { abi, bytecode: fromPush2Relative(bytecode) }]),
    );
    variantBundles.set(kind, bundle);
  }
  return bundle;
}

/** The compiled contract of a token variant (see src/domain/token-options.ts for its name). */
export function variantArtifact(kind: TokenKind, contractName: string): ShippedArtifact {
  const artifact = shippedVariants(kind)[contractName];
  if (artifact === undefined) throw new Error(`no variant ${contractName} is shipped: run npm run build:contracts`);
  return { contractName, ...artifact };
}
