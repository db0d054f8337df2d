// Deletes from dist/ the declaration files no entry point's types can reach (docs/decisions/0059-package-contents.md).
// package.json's "exports" lets a project import only its listed entry points, so TypeScript in a user's project
// reads only the .d.ts those entries import, transitively: the others (about 200 internal modules) are dead weight
// in the tarball. Imports are read with TypeScript's own pre-processor, so `import("./x.js")` types count too.
import { readFileSync, readdirSync, rmSync } from "node:fs";
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
