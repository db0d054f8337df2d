import path from "node:path";

// The source units a Solidity file imports, directly and through what they import: the sources a standard JSON input
// must hold for it to compile. Import paths resolve as solc resolves them without remappings: "./" and "../" against
// the importing unit's own path, any other path as it is written.

/** Every `import "…"` and `import … from "…"` of a Solidity source, as written. */
export function importsOf(source: string): string[] {
  return [...source.matchAll(/^\s*import\s+(?:[^"';]*\sfrom\s+)?["']([^"']+)["']\s*;/gm)].map((match) => match[1]!);
}

/** Where `imported`, written in `unit`, points. */
export function resolveImport(unit: string, imported: string): string {
  if (!imported.startsWith("./") && !imported.startsWith("../")) return imported;
  return path.posix.normalize(path.posix.join(path.posix.dirname(unit), imported));
}

/** `entry` and every unit it reaches through imports, in the order found; throws for a unit `read` does not have. */
export function importClosure(entry: string, read: (unit: string) => string | undefined): string[] {
  const found = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const unit = pending.pop()!;
    if (found.has(unit)) continue;
    const source = read(unit);
    if (source === undefined) throw new Error(`no source for ${unit}`);
    found.add(unit);
    for (const imported of importsOf(source)) pending.push(resolveImport(unit, imported));
  }
  return [...found];
}
