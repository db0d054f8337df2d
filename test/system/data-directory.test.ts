import { spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { DataDirectory } from "../../src/store/data-directory.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { expectServiceError } from "../helpers/errors.js";

const MODULE = path.resolve(import.meta.dirname, "../../src/store/data-directory.ts");

/** A real child process that claims `dir`, says so, and then idles until killed. */
function holder(dir: string): Promise<{ pid: number; kill: () => Promise<void> }> {
  const script = `import { DataDirectory } from ${JSON.stringify(MODULE)};
    // Held in a global: an unreferenced lock would be closed by the garbage collector.
    globalThis.directory = new DataDirectory(${JSON.stringify(dir)}, "hardhat serve");
    globalThis.directory.claim();
    console.log("claimed");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx/esm", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("claimed")) {
        resolve({
          pid: child.pid!,
          kill: async () => {
            child.kill("SIGKILL");
            await exited;
          },
        });
      }
    });
  });
}

describe("data directory: one writing process, held by the operating system", function () {
  let dir: string;
  /** However a test ends, its holder goes too: a live child would keep the test run from exiting. */
  let stopHolder: (() => Promise<void>) | undefined;

  beforeEach(async function () {
    dir = await mkdtemp(path.join(tmpdir(), "hts-owner-"));
  });

  afterEach(async function () {
    await stopHolder?.();
    stopHolder = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a second holder while the first lives, naming it, and is free the moment it is killed -9", async function () {
    const first = await holder(dir);
    stopHolder = first.kill;
    const second = new DataDirectory(dir, "a hardhat task", "stop it first");
    const refusal = await expectServiceError(() => second.claim(), ErrorCode.DATA_DIR_IN_USE, undefined);
    expect(refusal.message).to.include(`already open in hardhat serve (pid ${first.pid})`).and.to.include("stop it first");
    await first.kill();
    // No pid check, no wait: the kernel dropped the dead process's lock.
    second.claim();
    expect(second.claimed).to.equal(true);
    second.release();
  });

  it("refuses a second claim in the same process and frees the directory on release", async function () {
    const first = new DataDirectory(dir, "hardhat serve");
    first.claim();
    first.announce("http://127.0.0.1:8080");
    const second = new DataDirectory(dir, "a hardhat task");
    const refusal = await expectServiceError(() => second.claim(), ErrorCode.DATA_DIR_IN_USE, undefined);
    expect(refusal.message).to.include("already open in this process");
    first.release();
    second.claim();
    second.release();
  });

  it("creates the directory private to its owner", async function () {
    const nested = path.join(dir, "state");
    const directory = new DataDirectory(nested, "hardhat serve");
    directory.claim();
    directory.release();
    expect((await stat(nested)).mode & 0o777).to.equal(0o700);
  });
});
