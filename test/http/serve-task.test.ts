import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(import.meta.dirname, "../..");
const HARDHAT = path.join(ROOT, "node_modules/.bin/hardhat");

function hardhat(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(HARDHAT, args, { cwd: ROOT, env: { ...process.env, ...env } });
}

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = hardhat(args, env);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npx hardhat serve and apikey:create (real CLI, real socket)", function () {
  let dataDir: string;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-serve-"));
  });

  after(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("creates a key with apikey:create, serves with it, prints the banner, and stops cleanly on SIGTERM", async function () {
    const created = await run(["apikey:create", "--label", "ci", "--data-dir", dataDir, "--json"]);
    expect(created.code, created.stderr).to.equal(0);
    const { key } = JSON.parse(created.stdout.slice(created.stdout.indexOf("{")));
    expect(key).to.match(/^hts_/);

    const server = hardhat(["serve", "--port", "0", "--data-dir", dataDir, "--block-time", "0"]);
    let output = "";
    server.stdout.on("data", (chunk) => (output += chunk));
    server.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => server.on("close", resolve));
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), 60_000);
      server.stdout.on("data", () => {
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match && output.includes("auth")) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    try {
      expect(output).to.match(/ethereum\/sepolia\s+chain id 11155111\s+SIMULATED/);
      expect(output).to.match(/binance_smart_chain\/mainnet\s+chain id 56\s+SIMULATED/);
      expect(output).to.include(`${baseUrl}/docs`);
      expect(output).to.include(dataDir);

      const unauthorized = await fetch(`${baseUrl}/api/v1/networks`);
      expect(unauthorized.status).to.equal(401);
      const wallet = await fetch(`${baseUrl}/api/v1/wallets?apiKey=${key}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chain: "ethereum", network: "rinkeby" }),
      });
      expect(wallet.status).to.equal(200);
      const { privateKey } = await wallet.json();

      server.kill("SIGTERM");
      expect(await exited).to.equal(0);
      expect(output).to.include("SIGTERM");
      // One structured line per request; neither the API key nor the wallet's key is logged.
      expect(output).to.match(/"path":"\/api\/v1\/wallets".*"status":200/);
      expect(output).not.to.include(key);
      expect(output).not.to.include(privateKey.slice(2));
    } finally {
      server.kill("SIGKILL");
    }
  });

  it("refuses --no-auth on a non-loopback address", async function () {
    const refused = await run(["serve", "--no-auth", "--host", "0.0.0.0", "--port", "0", "--data-dir", dataDir]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include("--no-auth is refused on 0.0.0.0");
  });
});
