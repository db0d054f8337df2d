// Removes the indentation at the start of each line of dist/'s JavaScript and declarations
// (docs/decisions/0059-package-contents.md). tsc indents with four spaces a level; gzip, whose window is 32 kB, pays for
// those runs again and again (the typed client's OpenAPI types alone weigh 45 kB gzipped with them, 33 kB without).
// Unlike minifying, every line and every name stays where it was: a stack trace from the installed package points at
// the same line of the same file, and reads as the source does. Only the whitespace before a line's first token goes;
// a line that starts inside a string or a template literal (whose text would change) keeps it, found by TypeScript's
// own parser.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The spans of literals that may hold a line break: text there is data, not layout. */
function literalSpans(file: ts.SourceFile): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      spans.push([node.getStart(file), node.end]);
    }
    // Template heads, middles and tails are tokens the AST keeps as children: forEachChild reaches them.
    ts.forEachChild(node, visit);
  };
  visit(file);
  return spans;
}

/** The text without leading indentation on every line that does not start inside a literal. */
export function dedent(text: string, fileName: string): string {
  const kind = fileName.endsWith(".d.ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const spans = literalSpans(file).sort((a, b) => a[0] - b[0]);
  const insideLiteral = (offset: number) => spans.some(([start, end]) => offset > start && offset < end);
  const lines = text.split("\n");
  let offset = 0;
  return lines
    .map((line) => {
      const start = offset;
      offset += line.length + 1;
      return insideLiteral(start) ? line : line.replace(/^[ \t]+/, "");
    })
    .join("\n");
}

function* outputFiles(directory: string): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) yield* outputFiles(full);
    else if (entry.name.endsWith(".js") || entry.name.endsWith(".d.ts")) yield full;
  }
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("dedent-output.ts")) {
  const dist = path.resolve(import.meta.dirname, "..", "dist");
  let before = 0;
  let after = 0;
  for (const file of outputFiles(dist)) {
    const text = readFileSync(file, "utf8");
    const slim = dedent(text, file);
    before += text.length;
    after += slim.length;
    if (slim !== text) writeFileSync(file, slim);
  }
  console.log(`indentation: ${before - after} characters removed from dist/ (${before} → ${after})`);
}
