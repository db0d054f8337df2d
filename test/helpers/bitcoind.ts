import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { closedPort } from "./service.js";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PROVISION_SCRIPT = join(PROJECT_ROOT, "scripts", "provision-bitcoind.sh");
/** A first provisioning downloads ~60 MB. */
const PROVISION_TIMEOUT_MS = 15 * 60_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const lastLine = (text: string) => text.trim().split("\n").at(-1)?.trim() ?? "";

/** The provisioned (cached) bitcoind, else one on PATH; or why there is none. */
export async function findBitcoind(): Promise<{ path: string } | { reason: string }> {
  const provisioned = await run("bash", [PROVISION_SCRIPT], PROVISION_TIMEOUT_MS);
  if (provisioned.code === 0 && lastLine(provisioned.stdout)) return { path: lastLine(provisioned.stdout) };
  const onPath = await run("bitcoind", ["-version"], 30_000);
  if (onPath.code === 0) return { path: "bitcoind" };
  return {
    reason: `scripts/provision-bitcoind.sh failed (${lastLine(provisioned.stderr) || `exit ${provisioned.code}`}) and no bitcoind is on PATH`,
  };
}

/** A JSON-RPC client of the test's own, independent of the code under test. */
export type NodeRpc = <T = unknown>(method: string, params?: unknown[] | Record<string, unknown>, wallet?: string) => Promise<T>;

export interface RegtestNode {
  /** http://user:password@127.0.0.1:port, as TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST takes it. */
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  rpc: NodeRpc;
  stop(): Promise<void>;
}

function nodeRpc(port: number, user: string, password: string): NodeRpc {
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  return async <T>(method: string, params: unknown[] | Record<string, unknown> = [], wallet?: string) => {
    const path = wallet === undefined ? "/" : `/wallet/${encodeURIComponent(wallet)}`;
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "1.0", id: method, method, params }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    let reply: { result: T; error: { code: number; message: string } | null };
    try {
      reply = JSON.parse(text);
    } catch {
      throw new Error(`${method}: HTTP ${response.status} ${text.slice(0, 200)}`);
    }
    if (reply.error)
      throw Object.assign(new Error(`${method}: ${reply.error.message} (${reply.error.code})`), { rpcCode: reply.error.code });
    return reply.result;
  };
}

async function waitForRpc(rpc: NodeRpc, child: ChildProcess, datadir: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const log = await readFile(join(datadir, "regtest", "debug.log"), "utf8").catch(() => "");
      throw new Error(`bitcoind exited with ${child.exitCode}: ${stderr()}\n${log.split("\n").slice(-20).join("\n")}`);
    }
    try {
      await rpc("getblockchaininfo");
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`bitcoind's RPC did not come up within 60 s: ${String(lastError)}`);
}

/** Starts a private regtest node in a temporary data directory on a free port. */
export async function startRegtestNode(binary: string): Promise<RegtestNode> {
  const datadir = await mkdtemp(join(tmpdir(), "token-service-regtest-"));
  const port = await closedPort();
  const user = "tokenservice";
  const password = randomBytes(18).toString("hex");
  const child = spawn(
    binary,
    [
      `-datadir=${datadir}`,
      "-regtest",
      "-server",
      "-listen=0",
      `-rpcport=${port}`,
      "-rpcbind=127.0.0.1",
      "-rpcallowip=127.0.0.1",
      `-rpcuser=${user}`,
      `-rpcpassword=${password}`,
      "-fallbackfee=0.0002",
      "-addresstype=bech32",
      "-changetype=bech32",
      "-printtoconsole=0",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const rpc = nodeRpc(port, user, password);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) {
      await rpc("stop").catch(() => undefined);
      const stopped = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000)),
      ]);
      if (!stopped) {
        child.kill("SIGKILL");
        await exited;
      }
    }
    await rm(datadir, { recursive: true, force: true });
  };
  try {
    await waitForRpc(rpc, child, datadir, () => stderr);
  } catch (error) {
    if (child.exitCode === null) child.kill("SIGKILL");
    await rm(datadir, { recursive: true, force: true });
    throw error;
  }
  return { url: `http://${user}:${password}@127.0.0.1:${port}`, host: `127.0.0.1:${port}`, port, user, password, rpc, stop };
}

/** A node wallet of the suite's own, with spendable coins: it funds addresses "from outside" the service. */
export interface Funder {
  wallet: string;
  address: string;
}

/** A wallet name no other suite or test uses, so that nothing depends on which ran before on a node. */
export const ownWalletName = (purpose: string) => `${purpose}-${randomBytes(4).toString("hex")}`;

/**
 * Registers before/after hooks giving the suite a fresh regtest node and a funder wallet of its own (101 blocks mined
 * to it: one coinbase spendable). Without a bitcoind (none provisioned, none on PATH) the suite is skipped with the
 * reason, except under CI=true, where that is a failure.
 */
export function useRegtestBitcoind(): { readonly node: RegtestNode; readonly funder: Funder; readonly available: boolean } {
  let node: RegtestNode | undefined;
  let funder: Funder | undefined;
  before(async function () {
    this.timeout(PROVISION_TIMEOUT_MS + 120_000);
    const found = await findBitcoind();
    if ("reason" in found) {
      if (process.env.CI === "true") throw new Error(`the bitcoind suite must run under CI=true, but ${found.reason}`);
      console.log(`      skipped: no bitcoind for the regtest suite: ${found.reason}`);
      this.skip();
    }
    node = await startRegtestNode(found.path);
    const wallet = ownWalletName("test-funder");
    await node.rpc("createwallet", { wallet_name: wallet });
    const address = await node.rpc<string>("getnewaddress", [], wallet);
    await node.rpc("generatetoaddress", [101, address]);
    funder = { wallet, address };
  });
  after(async function () {
    this.timeout(60_000);
    await node?.stop();
  });
  return {
    get node() {
      if (node === undefined) throw new Error("the regtest node is not running");
      return node;
    },
    get funder() {
      if (funder === undefined) throw new Error("the regtest node is not running");
      return funder;
    },
    get available() {
      return node !== undefined;
    },
  };
}
