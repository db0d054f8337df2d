import { spawn } from "node:child_process";
import path from "node:path";

export const HARDHAT_BIN = path.resolve(import.meta.dirname, "..", "..", "node_modules", ".bin", "hardhat");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * This process's environment without what would change the child's project or chains: the test runner
 * exports its global options as HARDHAT_* variables (HARDHAT_CONFIG would make the child use this
 * repository's config), and TOKEN_SERVICE_RPC_* would point simulated pairs at live endpoints.
 */
/** The variables by which Hardhat (`isCi` in hardhat-utils) decides it runs in continuous integration. */
const CI_VARIABLES = [
  "CI",
  "CONTINUOUS_INTEGRATION",
  "GITHUB_ACTIONS",
  "NOW",
  "DEPLOYMENT_ID",
  "CODEBUILD_BUILD_NUMBER",
  "BUILD_NUMBER",
  "RUN_ID",
];

export function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  for (const name of Object.keys(env)) {
    if (name.startsWith("TOKEN_SERVICE_") || name.startsWith("HARDHAT_") || name === "HH_TEST") delete env[name];
  }
  // A user's terminal, not a CI job: Hardhat prints every error's stack trace where it finds one of these.
  for (const name of CI_VARIABLES) delete env[name];
  return { ...env, ...extra };
}

/** Runs `hardhat <args>` in a child process, as a user would in `cwd`, on this process's Node. */
export function runHardhat(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HARDHAT_BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
