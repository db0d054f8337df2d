// Writes token-variants/ from scripts/token-variants.ts (one contract per token variant, see
// docs/decisions/0031-token-variants.md), compiles them with the solc npm package and ships the result as one
// Brotli-compressed bundle per kind in src/artifacts/variants/. Launches read a bundle when a variant of its kind is
// first deployed. The variants are compiled here, not by `hardhat build`: `npm test` need not compile 224 contracts.
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

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
  const bundle = { inputHash: inputHash(ofKind), compiler: COMPILER, contracts: compileVariants(ofKind) };
  const packed = brotliCompressSync(JSON.stringify(bundle), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  await writeFile(path.join(root, "src/artifacts/variants", `${kind.toLowerCase()}.json.br`), packed);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${kind}: ${ofKind.length} variants compiled in ${seconds} s, ${packed.length} bytes shipped`);
}
