import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

// Commit subjects of at most 72 characters, the detail in the body (issue 32; docs/design.md#commits). Checked on every
// commit since the rule was taken up: the last one before it, whose subject ran on, is the boundary. Without a `.git`
// (a `git archive` export) there is no history to read: the test says so as skipped, never as passed.

const ROOT = path.resolve(import.meta.dirname, "../..");
const LAST_COMMIT_BEFORE_THE_RULE = "f5cdc60bf3d853e45b47a305c74f73fe8c2f59c1";
const MAX_SUBJECT = 72;

describe("commit subjects", function () {
  it(`are at most ${MAX_SUBJECT} characters on every commit since the rule`, function () {
    if (!existsSync(path.join(ROOT, ".git"))) this.skip();
    const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
    // A shallow clone that lacks the boundary cannot tell which commits came after it.
    try {
      git("cat-file", "-e", `${LAST_COMMIT_BEFORE_THE_RULE}^{commit}`);
    } catch {
      this.skip();
    }
    const subjects = git("log", "--format=%h %s", `${LAST_COMMIT_BEFORE_THE_RULE}..HEAD`)
      .split("\n")
      .filter((line) => line !== "");
    expect(subjects.length, "commits since the rule").to.be.greaterThan(0);
    const long = subjects.filter((line) => line.slice(line.indexOf(" ") + 1).length > MAX_SUBJECT);
    expect(long, "subjects over the limit (hash, subject)").to.deep.equal([]);
  });
});
