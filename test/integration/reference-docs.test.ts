import { readFile } from "node:fs/promises";
import path from "node:path";

import { expect } from "chai";

import { REFERENCE_PAGES } from "../../scripts/reference-docs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("docs/reference/ pages are generated from the sources of truth", function () {
  for (const [page, generate] of Object.entries(REFERENCE_PAGES)) {
    it(`${page} equals a fresh generation (npm run generate:docs)`, async function () {
      const committed = await readFile(path.join(ROOT, page), "utf8").catch(() => "");
      expect(committed === generate(), `${page} is stale: run npm run generate:docs`).to.equal(true);
    });
  }
});
