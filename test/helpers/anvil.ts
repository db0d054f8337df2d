import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface AnvilNode {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Foundry's anvil (a real node no one here wrote) on a free loopback port, mining each transaction as it arrives, its
 * accounts those of the usual test mnemonic (Hardhat's too), each holding 10 000 ETH.
 */
export async function startAnvil(options: { chainId?: number; args?: string[] } = {}): Promise<AnvilNode> {
  const child = spawn(
    path.join(ROOT, "node_modules/.bin/anvil"),
    ["--host", "127.0.0.1", "--port", "0", "--chain-id", String(options.chainId ?? 31337), ...(options.args ?? [])],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not start within 30 s:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const listening = /Listening on (\S+:\d+)/.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve(`http://${listening[1]}`);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}:\n${output}`));
    });
  });
  // Drain what it prints from now on, so that a full pipe never stops it.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
