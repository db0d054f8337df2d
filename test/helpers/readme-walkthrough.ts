/**
 * The README's walk-throughs as steps a test can run: the shell commands of a section, what each one is shown to print,
 * and the markers (HTML comments, invisible on the rendered page) that tell the test how a step is run:
 *
 * - `<!-- readme-test: service -->` before a block: the block runs in the first terminal (the service); its last command
 *   blocks there, and a later service block stops it first, as Ctrl-C would.
 * - `<!-- readme-test: skip (why) -->`: the block is not run (it would reach a host on the internet).
 * - `<!-- readme-test: repeat -->`: a reader repeats it until the answer looks as shown (a transaction being mined).
 * - `<!-- readme-test: racy -->`: the answer is the one shown, or, if the chain was faster than the reader, the one shown
 *   for the same command further down.
 */

export type Marker = "service" | "skip" | "repeat" | "racy";

export interface ShownOutput {
  text: string;
  format: "json" | "text";
  /** Lines of the README holding it, [start, end) (0-based), so that a recording run can replace them. */
  lines: [number, number];
}

export interface Step {
  /** The `### ` heading the step is under (or the section's own). */
  heading: string;
  commands: string[];
  shown?: ShownOutput;
  marker?: Marker;
  markerNote?: string;
  /** Line of the README where the step starts (1-based), for failure messages. */
  line: number;
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

const MARKER = /^<!--\s*readme-test:\s*(service|skip|repeat|racy)\b\s*(.*?)\s*-->$/;

function sectionLines(lines: string[], heading: string): [number, number] {
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start < 0) throw new Error(`the README has no "## ${heading}" section`);
  const next = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return [start + 1, next < 0 ? lines.length : next];
}

function fencesOf(lines: string[], [from, to]: [number, number], sectionHeading: string): Fence[] {
  const fences: Fence[] = [];
  let heading = sectionHeading;
  for (let index = from; index < to; index++) {
    const line = lines[index]!;
    if (/^### /.test(line)) heading = line.replace(/^### /, "").trim();
    const open = /^```(\w*)\s*$/.exec(line);
    if (!open) continue;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trim() === "```");
    if (end < 0) throw new Error(`README line ${index + 1}: a code block is never closed`);
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

/** The tasks walk-through: every `$ command` line of the section's `sh` blocks, with the lines it is shown to print. */
export function taskSteps(readme: string, heading = "Hardhat tasks"): Step[] {
  const lines = readme.split("\n");
  const steps: Step[] = [];
  for (const fence of fencesOf(lines, sectionLines(lines, heading), heading)) {
    if (fence.language !== "sh") continue;
    for (let index = fence.start; index < fence.end; index++) {
      const line = lines[index]!;
      if (!line.startsWith("$ ")) continue;
      let end = index + 1;
      while (end < fence.end && lines[end]!.trim() !== "" && !lines[end]!.startsWith("$ ")) end++;
      const output = lines.slice(index + 1, end);
      steps.push({
        heading: fence.heading,
        commands: [line.slice(2)],
        line: index + 1,
        ...(fence.marker ? { marker: fence.marker, markerNote: fence.markerNote! } : {}),
        ...(output.length > 0
          ? { shown: { text: output.join("\n"), format: "text" as const, lines: [index + 1, end] as [number, number] } }
          : {}),
      });
      index = end - 1;
    }
  }
  return steps;
}

/** The HTTP walk-through: every `sh` block of the section, with the `json` block right after it, if any. */
export function httpSteps(readme: string, heading = "The HTTP service, step by step"): Step[] {
  const lines = readme.split("\n");
  const fences = fencesOf(lines, sectionLines(lines, heading), heading);
  const steps: Step[] = [];
  fences.forEach((fence, index) => {
    if (fence.language !== "sh") return;
    const next = fences[index + 1];
    const between = next ? lines.slice(fence.end + 1, next.start - 1) : [];
    const shownNext = next?.language === "json" && between.every((line) => line.trim() === "");
    steps.push({
      heading: fence.heading,
      commands: lines.slice(fence.start, fence.end).filter((line) => line.trim() !== "" && !line.trim().startsWith("#")),
      line: fence.start,
      ...(fence.marker ? { marker: fence.marker, markerNote: fence.markerNote! } : {}),
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

/**
 * A task's human output as a pattern: the same lines and words, where hex values (addresses, hashes, keys) and numbers
 * (amounts, block numbers, token ids) may differ, and runs of spaces that align columns may differ in length.
 */
export function textShape(shown: string): RegExp {
  const pattern = shown
    .trim()
    .split(/(0x[0-9a-fA-F]+|\d+(?:\.\d+)?| +)/)
    .map((part, index) => {
      if (index % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (part.startsWith("0x")) return "0x[0-9a-fA-F]+";
      if (/^ +$/.test(part)) return " +";
      return "\\d+(?:\\.\\d+)?";
    })
    .join("");
  return new RegExp(`^${pattern}$`);
}

/** The README with the shown outputs replaced by those of a real run. */
export function withRecordedOutputs(readme: string, recorded: Array<{ shown: ShownOutput; text: string }>): string {
  const lines = readme.split("\n");
  for (const { shown, text } of [...recorded].sort((a, b) => b.shown.lines[0] - a.shown.lines[0])) {
    lines.splice(shown.lines[0], shown.lines[1] - shown.lines[0], ...text.trimEnd().split("\n"));
  }
  return lines.join("\n");
}
