// Runs the timing-sensitive test files (test/under-load.txt) once more while every core is kept busy, as a shared CI
// runner or a developer's laptop keeps them (issue 34): `npm run test:under-load`. One busy-looping worker thread per
// core (what `stress-ng --cpu N` does) runs beside `hardhat test mocha <files>`, and stops when it ends.
// The exit code is the test run's.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";

const root = path.resolve(import.meta.dirname, "..");
const files = readFileSync(path.join(root, "test/under-load.txt"), "utf8")
  .split("\n")
  .map((line) => line.replace(/#.*$/, "").trim())
  .filter((line) => line !== "");

// Each worker spins until terminated; a tight loop with no allocation keeps a core at 100 % without growing memory.
const SPIN = "for (;;) { let x = 0; for (let i = 0; i < 1e7; i++) x += i; if (x < 0) break; }";
const busy = Array.from({ length: os.availableParallelism() }, () => new Worker(SPIN, { eval: true }));
console.log(`under load: ${busy.length} busy thread(s) beside ${files.length} test file(s)`);

const hardhat = path.join(root, "node_modules/.bin/hardhat");
const run = spawn(hardhat, ["test", "mocha", ...files], { cwd: root, stdio: "inherit" });
const stopBusy = () => Promise.all(busy.map((worker) => worker.terminate()));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => run.kill(signal));
run.on("exit", async (code, signal) => {
  await stopBusy();
  process.exit(code ?? (signal ? 1 : 0));
});
