import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";

import { ROOT } from "../../helpers/doc-walkthrough.js";
import { projectFiles } from "../../helpers/terminal.js";

/** The README is the front door: what it is, install, test, a short tour, links. The rest lives in docs/. */
const README_MAX_LINES = 300;

/**
 * Pages another tool generates from the code (the configuration and error references). They may not exist on a branch
 * that has not run the generator yet, so links to them are allowed without the file.
 */
const GENERATED_PAGES = new Set(["docs/reference/configuration.md", "docs/reference/errors.md"]);

async function markdownPages(): Promise<string[]> {
  const docs = (await readdir(path.join(ROOT, "docs"), { recursive: true }))
    .map((name) => path.join("docs", String(name)))
    .filter((name) => name.endsWith(".md"));
  return ["README.md", ...docs].sort();
}

/** The page's text outside fenced code blocks, line by line (code may hold brackets that are no links). */
function proseLines(markdown: string): Array<{ text: string; line: number }> {
  const lines: Array<{ text: string; line: number }> = [];
  let fenced = false;
  markdown.split("\n").forEach((text, index) => {
    if (/^```/.test(text.trim())) fenced = !fenced;
    else if (!fenced) lines.push({ text: text.replace(/`[^`]*`/g, "``"), line: index + 1 });
  });
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^```/.test(line.trim())) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe("documentation: the README stays short, and every relative link leads somewhere", function () {
  it(`README.md has at most ${README_MAX_LINES} lines`, function () {
    const lines = readFileSync(path.join(ROOT, "README.md"), "utf8").trimEnd().split("\n").length;
    expect(lines, "README.md lines: move detail to docs/").to.be.at.most(README_MAX_LINES);
  });

  it("every relative link in README.md and docs/**/*.md points to an existing file (and heading)", async function () {
    const broken: string[] = [];
    for (const page of await markdownPages()) {
      const markdown = readFileSync(path.join(ROOT, page), "utf8");
      for (const { text, line } of proseLines(markdown)) {
        for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1]!;
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
          const [file, anchor] = target.split("#", 2) as [string, string | undefined];
          const resolved = file === "" ? page : path.normalize(path.join(path.dirname(page), file));
          const where = `${page}:${line}: ${target}`;
          if (GENERATED_PAGES.has(resolved)) continue;
          if (!existsSync(path.join(ROOT, resolved))) {
            broken.push(`${where} (no ${resolved})`);
            continue;
          }
          if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(readFileSync(path.join(ROOT, resolved), "utf8")).has(anchor))
            broken.push(`${where} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    expect(broken, broken.join("\n")).to.deep.equal([]);
  });

  it("the walk-throughs' copy of the project holds every file git tracks (checked where git is at hand)", async function () {
    if (!existsSync(path.join(ROOT, ".git"))) this.skip(); // a source archive: nothing to compare with
    const tracked = await promisify(execFile)("git", ["ls-files", "-z"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout }) => stdout.split("\0").filter(Boolean),
      () => undefined,
    );
    if (tracked === undefined) this.skip(); // no git on this machine
    const copied = new Set(await projectFiles());
    // A file deleted in the working tree is in no copy.
    expect(tracked.filter((file) => existsSync(path.join(ROOT, file)) && !copied.has(file))).to.deep.equal([]);
  });
});
