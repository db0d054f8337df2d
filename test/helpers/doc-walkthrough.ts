import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * A documentation page's walk-through as steps a test can run: the shell commands of a page (or of one `## ` section of
 * it), what each one is shown to print, and the markers (HTML comments, invisible on the rendered page) that tell the
 * test how a step is run:
 *
 * - `<!-- doc-test: service -->` before a block: the block runs in the first terminal (the service); its last command
 *   blocks there, and a later service block stops it first, as Ctrl-C would.
 * - `<!-- doc-test: skip (why) -->`: the block is not run (it would reach a host on the internet).
 * - `<!-- doc-test: repeat -->`: a reader repeats it until the answer looks as shown (a transaction being mined).
 * - `<!-- doc-test: racy -->`: the answer is the one shown, or, if the chain was faster than the reader, the one shown
 *   for the same command further down.
 *
 * A `sh` block is read one of two ways:
 *
 * - prompt style, when its first command starts with `$ `: every `$ ` line is a step, and the lines under it (up to a
 *   blank line or the next `$ `) are what it prints;
 * - block style otherwise: the whole block is one step, and a `json` block right under it is what it prints.
 */

export type Marker = "service" | "skip" | "repeat" | "racy";

export interface ShownOutput {
  text: string;
  format: "json" | "text";
  /** Lines of the page holding it, [start, end) (0-based), so that a recording run can replace them. */
  lines: [number, number];
}

export interface Step {
  /** `prompt`: one `$ ` command with its output under it; `block`: every command of a block. */
  style: "prompt" | "block";
  /** The heading the step is under. */
  heading: string;
  commands: string[];
  shown?: ShownOutput;
  marker?: Marker;
  markerNote?: string;
  /** Line of the page where the step starts (1-based), for failure messages. */
  line: number;
}

export interface Walkthrough {
  /** The page, relative to the repository's root (`docs/tasks.md`). */
  file: string;
  /** The `## ` section the steps come from, or undefined for the whole page. */
  section?: string;
  steps: Step[];
}

interface Fence {
  language: string;
  /** Lines inside the fence, [start, end). */
  start: number;
  end: number;
  marker?: Marker;
  markerNote?: string;
  heading: string;
}

export const ROOT = path.resolve(import.meta.dirname, "../..");

const MARKER = /^<!--\s*doc-test:\s*(service|skip|repeat|racy)\b\s*(.*?)\s*-->$/;

/** Lines [from, to) of the `## heading` section (without its heading line), or of the whole page. */
function sectionLines(lines: string[], file: string, heading: string | undefined): [number, number] {
  if (heading === undefined) return [0, lines.length];
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start < 0) throw new Error(`${file} has no "## ${heading}" section`);
  const next = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return [start + 1, next < 0 ? lines.length : next];
}

function fencesOf(lines: string[], file: string, [from, to]: [number, number], firstHeading: string): Fence[] {
  const fences: Fence[] = [];
  let heading = firstHeading;
  for (let index = from; index < to; index++) {
    const line = lines[index]!;
    if (/^#{1,4} /.test(line)) heading = line.replace(/^#+ /, "").trim();
    const open = /^```(\w*)\s*$/.exec(line);
    if (!open) continue;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trim() === "```");
    if (end < 0) throw new Error(`${file} line ${index + 1}: a code block is never closed`);
    let previous = index - 1;
    while (previous >= from && lines[previous]!.trim() === "") previous--;
    const marker = MARKER.exec(lines[previous]?.trim() ?? "");
    fences.push({
      language: open[1]!,
      start: index + 1,
      end,
      heading,
      ...(marker ? { marker: marker[1] as Marker, markerNote: marker[2]! } : {}),
    });
    index = end;
  }
  return fences;
}

/** The steps of `markdown` (the text of `file`), from its `## section` or from the whole page. */
export function stepsOf(markdown: string, file: string, section?: string): Step[] {
  const lines = markdown.split("\n");
  const fences = fencesOf(lines, file, sectionLines(lines, file, section), section ?? file);
  const steps: Step[] = [];
  fences.forEach((fence, fenceIndex) => {
    if (fence.language !== "sh") return;
    const markerFields = fence.marker ? { marker: fence.marker, markerNote: fence.markerNote! } : {};
    const firstCommand = lines.slice(fence.start, fence.end).find((line) => line.trim() !== "");
    if (firstCommand?.startsWith("$ ")) {
      for (let index = fence.start; index < fence.end; index++) {
        const line = lines[index]!;
        if (!line.startsWith("$ ")) continue;
        let end = index + 1;
        while (end < fence.end && lines[end]!.trim() !== "" && !lines[end]!.startsWith("$ ")) end++;
        const output = lines.slice(index + 1, end);
        steps.push({
          style: "prompt",
          heading: fence.heading,
          commands: [line.slice(2)],
          line: index + 1,
          ...markerFields,
          ...(output.length > 0
            ? { shown: { text: output.join("\n"), format: "text" as const, lines: [index + 1, end] as [number, number] } }
            : {}),
        });
        index = end - 1;
      }
      return;
    }
    const next = fences[fenceIndex + 1];
    const between = next ? lines.slice(fence.end + 1, next.start - 1) : [];
    const shownNext = next?.language === "json" && between.every((line) => line.trim() === "");
    steps.push({
      style: "block",
      heading: fence.heading,
      commands: lines.slice(fence.start, fence.end).filter((line) => line.trim() !== "" && !line.trim().startsWith("#")),
      line: fence.start,
      ...markerFields,
      ...(shownNext
        ? {
            shown: {
              text: lines.slice(next.start, next.end).join("\n"),
              format: "json" as const,
              lines: [next.start, next.end] as [number, number],
            },
          }
        : {}),
    });
  });
  return steps;
}

/** The walk-through of a page of this repository (`walkthrough("docs/tasks.md")`), or of one `## ` section of it. */
export function walkthrough(file: string, section?: string): Walkthrough {
  const markdown = readFileSync(path.join(ROOT, file), "utf8");
  return { file, ...(section !== undefined ? { section } : {}), steps: stepsOf(markdown, file, section) };
}

export interface CodeExample {
  /** The file the example names in its first line (`// scripts/launch.ts`). */
  path: string;
  code: string;
  /** The `text` block right under the example, if any: what running it prints. */
  shown?: ShownOutput;
  /** The page it is on, and its line (1-based). */
  file: string;
  line: number;
}

/**
 * The TypeScript examples of a page: every `ts` block whose first line names its file (`// scripts/<name>.ts`), with the
 * `text` block right under it, if any.
 */
export function codeExamples(file: string): CodeExample[] {
  const lines = readFileSync(path.join(ROOT, file), "utf8").split("\n");
  const fences = fencesOf(lines, file, [0, lines.length], file);
  const examples: CodeExample[] = [];
  fences.forEach((fence, index) => {
    if (fence.language !== "ts") return;
    const named = /^\/\/ (\S+\.ts)$/.exec(lines[fence.start]?.trim() ?? "");
    if (!named) return;
    const next = fences[index + 1];
    const shownNext = next?.language === "text" && lines.slice(fence.end + 1, next.start - 1).every((line) => line.trim() === "");
    examples.push({
      path: named[1]!,
      code: lines.slice(fence.start, fence.end).join("\n") + "\n",
      file,
      line: fence.start,
      ...(shownNext
        ? {
            shown: {
              text: lines.slice(next.start, next.end).join("\n"),
              format: "text" as const,
              lines: [next.start, next.end] as [number, number],
            },
          }
        : {}),
    });
  });
  return examples;
}

/** Keys whose values are facts of the walk-through, not of one run: they must be equal, not only of the same type. */
const LITERAL_KEYS = new Set(["chain", "network", "status", "symbol", "type", "simulated", "code", "field", "kind", "addressType"]);

const kindOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** Where `actual` differs in shape from `shown`: the same keys, recursively, values of the same type, literal keys equal. */
export function jsonShapeDifferences(shown: unknown, actual: unknown, path = "$"): string[] {
  if (kindOf(shown) !== kindOf(actual))
    return [`${path}: shown ${kindOf(shown)} ${JSON.stringify(shown)}, got ${kindOf(actual)} ${JSON.stringify(actual)}`];
  if (Array.isArray(shown)) {
    const got = actual as unknown[];
    if (shown.length !== got.length) return [`${path}: shown ${shown.length} items, got ${got.length}`];
    return shown.flatMap((item, index) => jsonShapeDifferences(item, got[index], `${path}[${index}]`));
  }
  if (kindOf(shown) !== "object") return [];
  const shownObject = shown as Record<string, unknown>;
  const actualObject = actual as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of Object.keys(shownObject)) if (!(key in actualObject)) differences.push(`${path}.${key}: shown, but missing`);
  for (const key of Object.keys(actualObject)) if (!(key in shownObject)) differences.push(`${path}.${key}: present, but not shown`);
  for (const key of Object.keys(shownObject)) {
    if (!(key in actualObject)) continue;
    const [expected, got] = [shownObject[key], actualObject[key]];
    if (LITERAL_KEYS.has(key) && kindOf(expected) !== "object" && kindOf(expected) !== "array" && expected !== got)
      differences.push(`${path}.${key}: shown ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
    else differences.push(...jsonShapeDifferences(expected, got, `${path}.${key}`));
  }
  return differences;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/**
 * A program's human output as a pattern: the same lines and words, where hex values (addresses, hashes, keys), ids
 * (an operation's UUID) and numbers (amounts, block numbers, token ids) may differ, and runs of spaces that align
 * columns may differ in length.
 */
export function textShape(shown: string): RegExp {
  const pattern = shown
    .trim()
    .split(new RegExp(`(${UUID}|0x[0-9a-fA-F]+|\\d+(?:\\.\\d+)?| +)`))
    .map((part, index) => {
      if (index % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (new RegExp(`^${UUID}$`).test(part)) return UUID;
      if (part.startsWith("0x")) return "0x[0-9a-fA-F]+";
      if (/^ +$/.test(part)) return " +";
      return "\\d+(?:\\.\\d+)?";
    })
    .join("");
  return new RegExp(`^${pattern}$`);
}

/** The page's text with the shown outputs replaced by those of a real run. */
export function withRecordedOutputs(markdown: string, recorded: Array<{ shown: ShownOutput; text: string }>): string {
  const lines = markdown.split("\n");
  for (const { shown, text } of [...recorded].sort((a, b) => b.shown.lines[0] - a.shown.lines[0])) {
    lines.splice(shown.lines[0], shown.lines[1] - shown.lines[0], ...text.trimEnd().split("\n"));
  }
  return lines.join("\n");
}
