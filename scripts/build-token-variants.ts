// Writes token-variants/ from scripts/token-variants.ts (one contract per token variant, see
// docs/decisions/0031-token-variants.md), compiles them with the solc npm package and ships the result as one
// Brotli-compressed bundle per kind in src/artifacts/variants/, jump targets stored relative
// (src/chains/evm/push2-relative.ts). Launches read a bundle when a variant of its kind is
// first deployed. The variants are compiled here, not by `hardhat build`: `npm test` need not compile 224 contracts.
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

import { fromPush2Relative, PUSH2_RELATIVE, toPush2Relative } from "../src/chains/evm/push2-relative.js";
import { COMPILER, compileVariants, inputHash, variantFiles } from "./token-variants.js";

const root = path.resolve(import.meta.dirname, "..");
const files = variantFiles();
await rm(path.join(root, "token-variants"), { recursive: true, force: true });
for (const file of files) {
  await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
  await writeFile(path.join(root, file.path), file.source);
}
await mkdir(path.join(root, "src/artifacts/variants"), { recursive: true });
for (const kind of [...new Set(files.map((file) => file.kind))]) {
  const started = performance.now();
  const ofKind = files.filter((file) => file.kind === kind);
  const contracts = Object.entries(compileVariants(ofKind)).map(([name, { abi, bytecode }]) => {
    const stored = toPush2Relative(bytecode);
    if (fromPush2Relative(stored) !== bytecode) throw new Error(`${name}: the bundle's bytecode form does not round-trip`);
    return [name, { abi, bytecode: stored }] as const;
  });
  const bundle = {
    inputHash: inputHash(ofKind),
    compiler: COMPILER,
    bytecodeEncoding: PUSH2_RELATIVE,
    contracts: Object.fromEntries(contracts),
  };
  const packed = brotliCompressSync(JSON.stringify(bundle), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  await writeFile(path.join(root, "src/artifacts/variants", `${kind.toLowerCase()}.json.br`), packed);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${kind}: ${ofKind.length} variants compiled in ${seconds} s, ${packed.length} bytes shipped`);
}
