import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ANVIL = path.resolve(import.meta.dirname, "..", "..", "node_modules", ".bin", "anvil");

export interface AnvilNode {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real node no one here wrote (Foundry's anvil) on a port of its choosing, serving `chainId`; ready once it says where
 * it listens. `args` go to anvil as given (e.g. `--network optimism`).
 */
export async function startAnvil(chainId: number, args: string[] = []): Promise<AnvilNode> {
  const child: ChildProcess = spawn(ANVIL, ["--port", "0", "--host", "127.0.0.1", "--chain-id", String(chainId), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not listen within 30 s:\n${output}`)), 30_000);
    const look = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /Listening on (\S+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code} before listening:\n${output}`));
    });
  });
  // Nothing more is read: the pipes must not fill and stall the node.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
