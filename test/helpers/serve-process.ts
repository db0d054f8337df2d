import { spawn } from "node:child_process";
import path from "node:path";

import { cleanEnvironment } from "./cli.js";
import { checkResponseAgainstOpenApi, parseBody } from "./openapi-responses.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const HARDHAT = path.join(ROOT, "node_modules/.bin/hardhat");

export interface ServeProcess {
  baseUrl: string;
  pid: number;
  output(): string;
  /** kill -9: no shutdown, no cleanup, as a crash or an OOM killer would. */
  crash(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** fetch with the API key; the answer is checked against /openapi.json. */
  call(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

/** `npx hardhat serve` in a real child process of this repository's project, ready once its banner is printed. */
export async function startServe(options: {
  /** Default: the project's own `tokenService.dataDir`. */
  dataDir?: string;
  apiKey: string;
  env?: Record<string, string>;
  args?: string[];
  /** The Hardhat project to run in; default this repository. */
  cwd?: string;
  /** That project's Hardhat CLI; default this repository's. */
  hardhatBin?: string;
}): Promise<ServeProcess> {
  const dataDirArgs = options.dataDir === undefined ? [] : ["--data-dir", options.dataDir];
  const child = spawn(
    process.execPath,
    [options.hardhatBin ?? HARDHAT, "serve", "--port", "0", ...dataDirArgs, "--block-time", "0", ...(options.args ?? [])],
    {
      cwd: options.cwd ?? ROOT,
      env: cleanEnvironment({ TOKEN_SERVICE_API_KEYS: options.apiKey, ...options.env }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no banner within 90 s:\n${output}`)), 90_000);
    const look = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && /\n\s+auth\s/.test(output)) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on("data", look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before its banner:\n${output}`));
    });
  });
  return {
    baseUrl,
    pid: child.pid!,
    output: () => output,
    async crash() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
    async call(method, urlPath, body, headers = {}) {
      const response = await fetch(`${baseUrl}${urlPath}`, {
        method,
        headers: { "x-api-key": options.apiKey, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const parsed = parseBody(await response.text());
      checkResponseAgainstOpenApi(method, urlPath, {
        status: response.status,
        contentType: response.headers.get("content-type"),
        body: parsed,
      });
      return { status: response.status, body: parsed };
    },
  };
}
