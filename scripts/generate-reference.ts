// Writes the reference pages under docs/reference/ (see reference-docs.ts); test/reference-docs.test.ts checks they are current.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

import { REFERENCE_PAGES } from "./reference-docs.js";

const root = path.resolve(import.meta.dirname, "..");
for (const [page, generate] of Object.entries(REFERENCE_PAGES)) {
  const file = path.join(root, page);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, generate());
  console.log(`wrote ${page}`);
}
