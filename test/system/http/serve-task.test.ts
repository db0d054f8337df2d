import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { eventually } from "../../helpers/http-server.js";
import { within } from "../../helpers/raw-http.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const HARDHAT = path.join(ROOT, "node_modules/.bin/hardhat");

function hardhat(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(HARDHAT, args, { cwd: ROOT, env: { ...process.env, ...env } });
}

/** Runs the CLI to its end; one that does not end within `timeoutMs` is killed and reported as code null. */
function run(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 90_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = hardhat(args, env);
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

interface Serving {
  baseUrl: string;
  output(): string;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  child: ChildProcessWithoutNullStreams;
}

/** Starts `hardhat serve` and resolves once its banner is printed. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Serving> {
  const child = hardhat(["serve", ...args], env);
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), 60_000);
    exited.then(() => reject(new Error(`exited before its banner:\n${output}`)));
    child.stdout.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && output.includes("auth")) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return { baseUrl, output: () => output, exited, child };
}

/** Every file and directory under `root` whose mode lets the group or others in. */
async function openToOthers(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (entry: string) => {
    const info = await stat(entry);
    if ((info.mode & 0o077) !== 0) found.push(`${path.relative(root, entry) || "."} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const name of await readdir(entry)) await visit(path.join(entry, name));
  };
  await visit(root);
  return found;
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
      // Which signer holds held wallets' keys, and whether it can sign (no passphrase here: none made, none possible).
      expect(output).to.match(/signer\s+local keystore none yet \(set TOKEN_SERVICE_KEYSTORE_PASSPHRASE to make one\)/);

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

  it("stops on a malformed setting with one line that names the variable, before opening anything", async function () {
    const cases: Array<{ env: Record<string, string>; message: string }> = [
      {
        env: { TOKEN_SERVICE_RATE_LIMIT: "6OO" },
        message: 'Error: TOKEN_SERVICE_RATE_LIMIT must be a whole number, 0 or more (got "6OO")',
      },
      {
        env: { TOKEN_SERVICE_RATE_WINDOW_SECONDS: "1m" },
        message: 'Error: TOKEN_SERVICE_RATE_WINDOW_SECONDS must be a number of seconds, like 30 or 0.5 (got "1m")',
      },
    ];
    for (const { env, message } of cases) {
      const refused = await run(["serve", "--port", "0", "--data-dir", dataDir], env);
      expect(refused.code, refused.stderr).to.equal(1);
      expect(refused.stderr.trim()).to.equal(message);
      expect(refused.stdout).not.to.include("listening on");
    }
  });

  it("stops before its banner when the port is taken, and leaves the data directory free for the next start", async function () {
    const taken = createTcpServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    let second: Serving | undefined;
    try {
      const refused = await run(["serve", "--port", String(port), "--data-dir", dataDir, "--block-time", "0"], {}, 60_000);
      expect(refused.code, `${refused.stdout}\n${refused.stderr}`).to.equal(1);
      expect(refused.stderr.trim()).to.equal(
        `Error: 127.0.0.1:${port} is already in use; stop the process that listens there or choose another --port`,
      );
      expect(refused.stdout).not.to.include("listening on");

      second = await serve(["--port", "0", "--data-dir", dataDir, "--block-time", "0"]);
      expect((await fetch(`${second.baseUrl}/health`)).status).to.equal(200);
      second.child.kill("SIGTERM");
      expect(await second.exited).to.equal(0);
    } finally {
      second?.child.kill("SIGKILL");
      taken.close();
    }
  });

  it("creates its data directory 0700 and every file in it 0600 under a 022 umask, which it leaves as it was", async function () {
    const privateDir = path.join(await mkdtemp(path.join(tmpdir(), "hts-private-")), "data");
    // The child inherits the umask at spawn: a permissive one, as most hosts have.
    const previous = process.umask(0o022);
    let starting: Promise<Serving>;
    try {
      starting = serve(["--port", "0", "--data-dir", privateDir, "--block-time", "0", "--no-auth"]);
    } finally {
      process.umask(previous);
    }
    const server = await starting;
    try {
      const wallet = await (
        await fetch(`${server.baseUrl}/api/v1/wallets`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"chain":"ethereum","network":"sepolia"}',
        })
      ).json();
      const funded = await fetch(`${server.baseUrl}/api/v1/faucet`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chain: "ethereum", network: "sepolia", address: wallet.address }),
      });
      expect(funded.status).to.equal(200);
      // While it serves, with its store and a chain's journal written: the serving process's umask, as Linux reports it.
      const status = await readFile(`/proc/${server.child.pid}/status`, "utf8");
      expect((await readFile(`/proc/${server.child.pid}/cmdline`, "utf8")).split("\0")).to.include("serve");
      expect(/^Umask:\s+(\d+)$/m.exec(status)?.[1]).to.equal("0022");
      expect(await openToOthers(privateDir)).to.deep.equal([]);
      server.child.kill("SIGTERM");
      expect(await server.exited).to.equal(0);
      expect(await openToOthers(privateDir)).to.deep.equal([]);
    } finally {
      server.child.kill("SIGKILL");
      await rm(path.dirname(privateDir), { recursive: true, force: true });
    }
  });

  it("exits promptly on SIGTERM while a request waits on a node that stopped answering", async function () {
    const requests: IncomingMessage[] = [];
    const node = createHttpServer((request) => void requests.push(request));
    await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
    const nodeUrl = `http://127.0.0.1:${(node.address() as { port: number }).port}`;
    const server = await serve(["--port", "0", "--data-dir", dataDir, "--block-time", "0", "--no-auth"], {
      TOKEN_SERVICE_RPC_ETHEREUM_HOODI: nodeUrl,
      TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS: "1",
    });
    try {
      const call = fetch(
        `${server.baseUrl}/api/v1/wallets?chain=ethereum&network=hoodi&address=0x0000000000000000000000000000000000000001`,
      ).catch((error: Error) => error);
      await eventually(
        async () => requests.length,
        (count) => count > 0,
        20_000,
        50,
      );
      const signalled = Date.now();
      server.child.kill("SIGTERM");
      expect(await within(server.exited, 12_000, `exit after SIGTERM\n${server.output()}`)).to.equal(0);
      // Well before the node's 15 s request timeout, let alone the minutes a socket to it could stay open.
      expect(Date.now() - signalled).to.be.below(10_000);
      expect(await call).to.be.instanceOf(Error);
    } finally {
      server.child.kill("SIGKILL");
      node.closeAllConnections();
      node.close();
    }
  });

  it("refuses --no-auth on a non-loopback address", async function () {
    const refused = await run(["serve", "--no-auth", "--host", "0.0.0.0", "--port", "0", "--data-dir", dataDir]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include("--no-auth is refused on 0.0.0.0");
  });
});
