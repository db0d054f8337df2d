// The first-use compiler's thread (first-use-compiler.ts): compiles the one standard JSON input it is started with,
// with the solc npm package, and answers solc's output and version. soljson is synchronous and takes seconds of CPU
// and hundreds of MB; here it blocks only this thread, and its memory goes when the thread exits.
import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";

const require = createRequire(import.meta.url);
try {
  const solc = require("solc") as { compile(input: string): string; version(): string };
  parentPort!.postMessage({ output: solc.compile(workerData as string), version: solc.version() });
} catch (error) {
  parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
