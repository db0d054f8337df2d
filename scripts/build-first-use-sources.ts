// Writes src/artifacts/first-use-sources.json.br (scripts/first-use-sources.ts): the OpenZeppelin sources the variants
// compiled on first use need beyond those src/artifacts/verification.json.br ships. Run by build:contracts after
// build-verification.ts, whose bundle it completes.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";

import { readOpenZeppelin } from "./build-verification.js";
import { firstUseSources } from "./first-use-sources.js";

const root = path.resolve(import.meta.dirname, "..");
const verification = JSON.parse(
  brotliDecompressSync(await readFile(path.join(root, "src/artifacts/verification.json.br"))).toString("utf8"),
) as {
  variants: { sources: Record<string, string> };
};
const bundle = firstUseSources(verification.variants.sources, readOpenZeppelin);
const packed = brotliCompressSync(JSON.stringify(bundle), {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
});
await writeFile(path.join(root, "src/artifacts/first-use-sources.json.br"), packed);
console.log(`first-use sources: ${Object.keys(bundle.sources).join(", ")}; ${packed.length} bytes shipped`);
