import { expect } from "chai";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

import { TOKEN_CALL_KINDS } from "../../src/domain/kinds/index.js";
import { OPERATION_KINDS } from "../../src/domain/lifecycle.js";

// A write kind of src/domain/kinds/ is one module there and its line in the registry (docs/design.md, "Adding a write
// kind"); every door makes its part from the description. This keeps it so: a kind whose name, operationId, path or
// task name is written, as a string literal, in more than MAX_FILES hand-written files under src/ has spread again.

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Issue 32: a new write kind in at most 8 files. */
const MAX_FILES = 8;
/** Written by tools, not by hand (as in architecture.test.ts). */
const GENERATED = ["src/client/openapi.d.ts", "src/artifacts/"];

const sources = readdirSync(path.join(ROOT, "src"), { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
  .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
  .filter((file) => !GENERATED.some((generated) => (generated.endsWith("/") ? file.startsWith(generated) : file === generated)))
  .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), "utf8") }));

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The files under src/ that write one of `literals` as a whole string literal (a path also as a longer path's end). */
function filesMentioning(literals: { exact: string[]; pathEnd: string }): string[] {
  const exact = new RegExp(`(["'\`])(?:${literals.exact.map(escape).join("|")})\\1`);
  const pathEnd = new RegExp(`(["'\`])[^"'\`\\s]*${escape(literals.pathEnd)}\\1`);
  return sources.filter(({ text }) => exact.test(text) || pathEnd.test(text)).map(({ file }) => file);
}

const mentionsOf = (kind: (typeof TOKEN_CALL_KINDS)[number]) =>
  filesMentioning({ exact: [kind.name, kind.http.operationId, kind.task.name], pathEnd: kind.http.path });

describe("write kinds: each is one module of src/domain/kinds/", function () {
  it("reads the registry and the sources (the check below is not vacuous)", function () {
    expect(TOKEN_CALL_KINDS.length).to.be.greaterThan(0);
    expect(sources.length).to.be.greaterThan(300);
    // The counter finds what it looks for: a kind made before the registry, in the files of every floor it is written in.
    expect(filesMentioning({ exact: ["pause", "token:pause"], pathEnd: "/tokens/pause" })).to.include.members([
      "src/domain/lifecycle.ts",
      "src/chains/evm/write/admin.ts",
      "src/core/operations/admin-intents.ts",
      "src/store/migrations.ts",
      "src/http/routes/admin.ts",
      "src/client/index.ts",
    ]);
  });

  for (const kind of TOKEN_CALL_KINDS) {
    it(`${kind.name}: named in at most ${MAX_FILES} hand-written files under src/, its module among them`, function () {
      const files = mentionsOf(kind);
      expect(files, "its module").to.include(
        `src/domain/kinds/${path.basename(files.find((file) => file.startsWith("src/domain/kinds/")) ?? "?")}`,
      );
      expect(files.length, `${kind.name} is named in ${files.join(", ")}`).to.be.at.most(MAX_FILES);
    });
  }

  it("gives every kind its own name, operationId, path and task, none of them a built-in kind's", function () {
    for (const key of ["name", "operationId", "path", "task"] as const) {
      const values = TOKEN_CALL_KINDS.map((kind) =>
        key === "name" ? kind.name : key === "task" ? kind.task.name : key === "path" ? kind.http.path : kind.http.operationId,
      );
      expect(new Set(values).size, key).to.equal(values.length);
    }
    const names = TOKEN_CALL_KINDS.map((kind) => kind.name as string);
    expect(OPERATION_KINDS.filter((kind) => names.includes(kind))).to.deep.equal(names);
    expect(OPERATION_KINDS.length - names.length, "the built-in kinds are listed once").to.equal(
      new Set(OPERATION_KINDS).size - names.length,
    );
  });
});
