import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

export interface AnvilNode {
  url: string;
  stop(): Promise<void>;
}

/** The launcher of the @foundry-rs/anvil devDependency (a Node script that runs the platform's binary, forwarding signals). */
function anvilLauncher(): string {
  const manifest = require.resolve("@foundry-rs/anvil/package.json");
  const { bin } = require(manifest) as { bin: { anvil: string } };
  return path.join(path.dirname(manifest), bin.anvil);
}

/** A fresh anvil node (Foundry's, a node this project did not write) on a free local port, mining on send. */
export async function startAnvil(options: { chainId: number; args?: string[] }): Promise<AnvilNode> {
  const child: ChildProcess = spawn(
    process.execPath,
    [anvilLauncher(), "--host", "127.0.0.1", "--port", "0", "--chain-id", String(options.chainId), ...(options.args ?? [])],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const deadline = setTimeout(() => reject(new Error(`anvil did not start within 30 s:\n${output}`)), 30_000);
    child.once("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    child.once("exit", (code) => {
      clearTimeout(deadline);
      reject(new Error(`anvil exited with ${code}:\n${output}`));
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const listening = /Listening on (\S+:\d+)/.exec(output);
      if (listening) {
        clearTimeout(deadline);
        child.removeAllListeners("exit");
        resolve(`http://${listening[1]}`);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  });
  // The output is no longer read: drained so that anvil never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
