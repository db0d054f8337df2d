// Deletes from dist/ the declaration files no entry point's types can reach (docs/decisions/0059-package-contents.md).
// package.json's "exports" lets a project import only its listed entry points, so TypeScript in a user's project
// reads only the .d.ts those entries import, transitively: the others (about 200 internal modules) are dead weight
// in the tarball. Imports are read with TypeScript's own pre-processor, so `import("./x.js")` types count too.
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  types: string;
  exports: Record<string, string | { types?: string }>;
};
const entries = [
  manifest.types,
  ...Object.values(manifest.exports).flatMap((entry) => (typeof entry === "string" ? [] : [entry.types ?? []]).flat()),
];

/** The declaration file a relative specifier of `from` names (`./x.js` → `./x.d.ts`), or undefined for a package. */
function declarationOf(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = path.resolve(path.dirname(from), specifier);
  if (target.endsWith(".d.ts")) return target;
  if (target.endsWith(".js")) return `${target.slice(0, -".js".length)}.d.ts`;
  return `${target}.d.ts`;
}

const reached = new Set<string>();
const pending = entries.map((entry) => path.resolve(root, entry));
while (pending.length > 0) {
  const file = pending.pop()!;
  if (reached.has(file)) continue;
  reached.add(file);
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  for (const { fileName } of [...info.importedFiles, ...info.referencedFiles]) {
    const declaration = declarationOf(file, fileName);
    if (declaration !== undefined) pending.push(declaration);
  }
}

const declarations = readdirSync(path.join(root, "dist"), { recursive: true })
  .map((name) => path.join(root, "dist", String(name)))
  .filter((file) => file.endsWith(".d.ts"));
const pruned = declarations.filter((file) => !reached.has(file));
for (const file of pruned) rmSync(file);
console.log(
  `declarations: ${declarations.length - pruned.length} reachable from ${entries.length} entry points kept, ${pruned.length} deleted`,
);

// What is kept is slimmed where its text repeats what a reader finds once elsewhere (decision 0059):
// - the typed client's paths list, for every operation's error answers, each possible code with its title, and describe
//   the error body's `code` and `field` again: the codes stay as union types; their meanings are the error reference's
//   (docs/reference/errors.md), and the operations' and fields' own descriptions stay;
// - the error catalog's declaration spells out every title and description as a literal type: they are `string` to a
//   type checker (the values are in the JavaScript).
const slims: Array<{ file: string; slim(text: string): string }> = [
  {
    file: "dist/src/client/openapi.d.ts",
    slim: (text) =>
      text
        .replace(/\/\*\* @description `[A-Z_]+`: [^\n]*\*\/\s*\n(\s*)/g, "$1")
        .replace(
          /\/\*\*\s*\n\s*\* @description Stable machine-readable code \(see docs\/reference\/errors\.md\)\s*\n\s*\* @enum \{string\}\s*\n\s*\*\/\s*\n(\s*)/g,
          "$1",
        )
        .replace(/\/\*\* @description The request field the error concerns \*\/\s*\n(\s*)/g, "$1"),
  },
  {
    file: "dist/src/domain/error-catalog.d.ts",
    slim: (text) => text.replace(/readonly (title|description): "(?:[^"\\]|\\.)*";/g, "readonly $1: string;"),
  },
];
for (const { file, slim } of slims) {
  const at = path.join(root, file);
  const before = readFileSync(at, "utf8");
  const after = slim(before);
  // A pattern that no longer matches (the generator's words changed) is a build failure, not a silently larger package.
  if (after.length >= before.length) throw new Error(`${file}: nothing to slim; update scripts/prune-declarations.ts`);
  writeFileSync(at, after);
  console.log(`${file}: ${before.length} → ${after.length} bytes`);
}
