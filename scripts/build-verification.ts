// Writes src/artifacts/verification.json.br (scripts/verification-bundle.ts): what a standard JSON input needs to verify
// any token the service launches on an explorer (docs/tokens.md#verifying-a-token). A project that uses the plugin has
// no OpenZeppelin sources of its own to offer, so they ship. Run by build:contracts after `hardhat build`.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

import { variantFiles } from "./token-variants.js";
import { HISTORIC_CONTRACTS, verificationBundle } from "./verification-bundle.js";

const root = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);

/** The build info of `hardhat build` that holds the historic templates. */
export async function historicBuildInfo(directory = path.join(root, "artifacts/build-info")) {
  for (const file of (await readdir(directory)).filter((name) => name.endsWith(".json") && !name.endsWith(".output.json"))) {
    const info = JSON.parse(await readFile(path.join(directory, file), "utf8")) as {
      solcLongVersion: string;
      userSourceNameMap: Record<string, string>;
      input: object;
    };
    const names = Object.values(info.userSourceNameMap);
    if (Object.values(HISTORIC_CONTRACTS).every((sourceName) => names.includes(sourceName))) return info;
  }
  throw new Error("no build info holds the historic contracts: run hardhat build first");
}

/** An OpenZeppelin source as installed (the version the variants were compiled against). */
export function readOpenZeppelin(unit: string): string | undefined {
  return unit.startsWith("@openzeppelin/contracts/") || unit.startsWith("@openzeppelin/contracts-upgradeable/")
    ? readFileSync(require.resolve(unit), "utf8")
    : undefined;
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("build-verification.ts")) {
  const historic = await historicBuildInfo();
  const solcVersion = (require("solc") as { version(): string }).version();
  if (!solcVersion.startsWith(historic.solcLongVersion)) throw new Error(`solc ${solcVersion} did not build ${historic.solcLongVersion}`);
  const bundle = verificationBundle(historic, variantFiles(), readOpenZeppelin);
  const packed = brotliCompressSync(JSON.stringify(bundle), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  await writeFile(path.join(root, "src/artifacts/verification.json.br"), packed);
  console.log(`verification sources: ${Object.keys(bundle.variants.sources).length} files, ${packed.length} bytes shipped`);
}
