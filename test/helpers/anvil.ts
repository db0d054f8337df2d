import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import { rpc } from "./json-rpc-servers.js";

const require = createRequire(import.meta.url);

/** The first of anvil's default accounts (test mnemonic), funded with 10,000 ETH on every fresh node. */
export const ANVIL_ACCOUNT = {
  address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
};

export interface AnvilNode {
  url: string;
  port: number;
  /** The node's process id (the anvil binary itself: see anvilBinary). */
  pid: number;
  /** One JSON-RPC call straight to the node. */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  /** Ends the node at once (SIGKILL), as a crashed or unplugged node; resolves once the process is gone. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The anvil binary itself, not the npm wrapper (node_modules/.bin/anvil, which spawns it): a signal to the wrapper would
 * leave the node running.
 */
function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  try {
    const manifest = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const binary = path.join(path.dirname(manifest), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
    if (existsSync(binary)) return binary;
  } catch {
    // No platform package: the wrapper below.
  }
  return path.resolve(import.meta.dirname, "../../node_modules/.bin/anvil");
}

/**
 * A real anvil node on a free loopback port (`--port 0`; `port` to start one again where an earlier one listened),
 * mining on send unless `args` say otherwise.
 */
export async function startAnvil(options: { chainId?: number; args?: string[]; port?: number } = {}): Promise<AnvilNode> {
  const child: ChildProcess = spawn(
    anvilBinary(),
    [
      "--host",
      "127.0.0.1",
      "--port",
      String(options.port ?? 0),
      "--chain-id",
      String(options.chainId ?? 11155111),
      ...(options.args ?? []),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not start within 30 s:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code} before listening:\n${output}`));
    });
  });
  // Keep draining its output (a full pipe would stall the node), no longer kept: it grows with every transaction.
  output = "";
  child.stdout!.removeAllListeners("data");
  child.stderr!.removeAllListeners("data");
  child.stdout!.resume();
  child.stderr!.resume();
  const url = `http://127.0.0.1:${port}`;
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url,
    port,
    pid: child.pid!,
    rpc: (method, params = []) => rpc(url, method, params),
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };
}

/**
 * A live chain's blocks for a node mining on send: anvil mines what its pool holds ready into one 30 M-gas block when a
 * transaction comes and leaves the rest until the next one comes (foundry-rs/foundry#10122), so a burst's last
 * deployments can wait there for a block nothing sends. This asks anvil for a block (straight to it, never through a
 * relay a test counts) whenever its pool held transactions at two looks 500 ms apart; stopped, it asks for no more.
 */
export function produceBlocksWhilePoolHolds(node: AnvilNode): { stop(): Promise<void> } {
  let stopped = false;
  const pause = () => new Promise((resolve) => setTimeout(resolve, 500));
  const run = (async () => {
    let heldBefore = false;
    while (!stopped) {
      await pause();
      const status = (await node.rpc("txpool_status").catch(() => undefined)) as { pending?: string } | undefined;
      const held = status !== undefined && Number(status.pending ?? 0) > 0;
      if (held && heldBefore && !stopped) await node.rpc("evm_mine").catch(() => undefined);
      heldBefore = held;
    }
  })();
  return {
    async stop() {
      stopped = true;
      await run;
    },
  };
}
