// Memory given back after bursts (issue 34, item 3): `npm run bench -- --only=bursts` (also in the full run). One
// `hardhat serve` on a fresh data directory (SQLite, rate limit off), ethereum/sepolia simulated in it or live on an
// anvil node, its RSS settled after that chain was used once: the idle figure. Then three bursts, one after another, each followed by 60 s with
// no request: 300 slow readers of Swagger UI's bundle (connections from 300 loopback addresses, not read for 10 s, then
// closed), a docs burst (200 downloads of the reference's four files, 50 at a time), and 1,000 ERC20 launches over HTTP
// from 10 senders (`wait=mined`). Printed for each: the RSS before it, its peak (sampled every 250 ms), and the RSS
// after 60 s idle beside the idle figure (target: within 20 MiB). BURST_NODE_OPTIONS=… gives the serve process Node
// flags of its own (an operator's choice, e.g. a smaller young generation). Linux only; nothing leaves 127.0.0.1.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { HDNodeWallet } from "ethers";

import { startAnvil } from "../test/helpers/anvil.js";
import { freePort, serverProcess, status, stop } from "./serve-footprint.js";

/** Anvil's well-known development mnemonic: its first ten accounts hold 10,000 ETH each. */
const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const IDLE_MS = 60_000;
const TARGET_MIB = 20;

export interface BurstMemory {
  burst: string;
  beforeMiB: number;
  peakMiB: number;
  afterIdleMiB: number;
  /** The figure the target is held to: the RSS after 60 s idle minus the idle figure. */
  aboveIdleMiB: number;
  detail: string;
}

export interface BurstMemoryRun {
  target: BurstTarget;
  idleMiB: number;
  bursts: BurstMemory[];
}

async function post(base: string, route: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** RSS every 250 ms while `work` runs; its peak. */
async function peakWhile(pid: number, work: () => Promise<string>): Promise<{ peakMiB: number; detail: string }> {
  let peakMiB = (await status(pid)).rss;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peakMiB = Math.max(peakMiB, (await status(pid)).rss);
      await sleep(250);
    }
  })();
  let detail: string;
  try {
    detail = await work();
  } finally {
    running = false;
    await sampler;
  }
  return { peakMiB: Math.max(peakMiB, (await status(pid)).rss), detail };
}

function slowReaders(port: number): () => Promise<string> {
  return async () => {
    const sockets: net.Socket[] = [];
    // Each from an address of its own (Linux answers all of 127/8), as 300 clients: the per-client bound stays default.
    for (let index = 0; index < 300; index++) {
      const socket = net.connect({ host: "127.0.0.1", port, localAddress: `127.0.${1 + (index % 200)}.${2 + Math.floor(index / 200)}` });
      socket.on("error", () => {});
      socket.write("GET /docs/swagger-ui-bundle.js HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n");
      socket.pause();
      sockets.push(socket);
    }
    await sleep(10_000);
    for (const socket of sockets) socket.destroy();
    return "300 connections, none read for 10 s";
  };
}

function docsBurst(base: string): () => Promise<string> {
  return async () => {
    const files = ["/docs", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/openapi.json"];
    let next = 0;
    let bytes = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < 200) {
          const response = await fetch(`${base}${files[next++ % files.length]}`);
          // Read before adding: `bytes += await …` would add to the value read before the await.
          const size = (await response.arrayBuffer()).byteLength;
          bytes += size;
        }
      }),
    );
    return `200 downloads, ${(bytes / 1048576).toFixed(0)} MiB decoded`;
  };
}

/** Ten funded senders: the faucet's on a simulated chain, anvil's own dev accounts on a live one. */
async function fundedSenders(base: string, live: boolean): Promise<{ address: string; privateKey: string }[]> {
  if (live)
    return Array.from({ length: 10 }, (_, index) => {
      const wallet = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
      return { address: wallet.address, privateKey: wallet.privateKey };
    });
  const senders: { address: string; privateKey: string }[] = [];
  for (let index = 0; index < 10; index++) {
    const wallet = (await post(base, "/api/v1/wallets", { chain: "ethereum", network: "sepolia" })).body;
    await post(base, "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
    senders.push({ address: String(wallet.address), privateKey: String(wallet.privateKey) });
  }
  return senders;
}

function launchBurst(base: string, live: boolean): () => Promise<string> {
  return async () => {
    const senders = await fundedSenders(base, live);
    let mined = 0;
    const started = performance.now();
    await Promise.all(
      senders.map(async (wallet) => {
        for (let index = 0; index < 100; index++) {
          const answer = await post(base, "/api/v1/tokens?wait=mined", {
            chain: "ethereum",
            network: "sepolia",
            type: "ERC20",
            token: { name: "Burst", symbol: "BST", initialSupply: "1000000000000000000" },
            sender: wallet.address,
            privateKey: wallet.privateKey,
          });
          if (answer.body.status === "mined") mined++;
        }
      }),
    );
    return `${mined} of 1,000 mined in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  };
}

/** RSS once it moved less than 2 MiB over 10 s (at most 90 s). */
async function settled(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let second = 0; second < 90; second++) {
    await sleep(1_000);
    samples.push((await status(pid)).rss);
    const window = samples.slice(-10);
    if (window.length === 10 && Math.max(...window) - Math.min(...window) < 2) break;
  }
  return samples.at(-1)!;
}

/** Where the launches go: ethereum/sepolia simulated in the serve process (EDR), or live on an anvil node. */
export type BurstTarget = "simulated" | "anvil";

export async function measureBurstMemory(target: BurstTarget, log: (line: string) => void = () => {}): Promise<BurstMemoryRun> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "burst-memory-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const node = target === "anvil" ? await startAnvil() : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env, TOKEN_SERVICE_RATE_LIMIT: "0" };
  delete env.DATABASE_URL;
  // BURST_NODE_OPTIONS: flags for the serve process only (docs/operations.md's recipe for a smaller young generation).
  if (process.env.BURST_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BURST_NODE_OPTIONS;
  else delete env.NODE_OPTIONS;
  if (node) env.TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA = node.url;
  env.PATH = `${path.join(repoRoot, "node_modules/node/bin")}${path.delimiter}${env.PATH ?? ""}`;
  const args = [
    path.join(repoRoot, "node_modules/.bin/hardhat"),
    "serve",
    "--port",
    String(port),
    "--no-auth",
    "--data-dir",
    dataDir,
    "--block-time",
    "0",
  ];
  const child = spawn("node", args, { cwd: repoRoot, env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk) => (output = (output + chunk).slice(-10_000)));
  try {
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null || tries > 1200) throw new Error(`serve did not answer /health:\n${output}`);
      const healthy = await fetch(`${base}/health/live`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) break;
      await sleep(100);
    }
    const pid = await serverProcess(child.pid!);
    if (pid === undefined) throw new Error("could not find the node process running `hardhat serve`");
    // One chain used: a wallet funded on the simulated chain; a balance read on the live one (it has no faucet).
    const wallet = (await post(base, "/api/v1/wallets", { chain: "ethereum", network: "sepolia" })).body;
    if (node) await fetch(`${base}/api/v1/wallets?chain=ethereum&network=sepolia&address=${String(wallet.address)}`);
    else await post(base, "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
    const idleMiB = await settled(pid);
    log(`bursts: idle ${idleMiB.toFixed(0)} MiB`);
    const bursts: BurstMemory[] = [];
    for (const [burst, work] of [
      ["300 slow readers of Swagger UI's bundle", slowReaders(port)],
      ["docs burst: 200 downloads of the reference's files", docsBurst(base)],
      ["1,000 ERC20 launches over HTTP, 10 senders, wait=mined", launchBurst(base, node !== undefined)],
    ] as const) {
      const beforeMiB = (await status(pid)).rss;
      const { peakMiB, detail } = await peakWhile(pid, work);
      await sleep(IDLE_MS);
      const afterIdleMiB = (await status(pid)).rss;
      bursts.push({ burst, beforeMiB, peakMiB, afterIdleMiB, aboveIdleMiB: afterIdleMiB - idleMiB, detail });
      log(`bursts: ${burst}: after 60 s idle ${afterIdleMiB.toFixed(0)} MiB`);
    }
    return { target, idleMiB, bursts };
  } finally {
    await stop(child);
    await node?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function formatBurstMemory({ target, idleMiB, bursts }: BurstMemoryRun): string {
  const mib = (value: number) => `${value.toFixed(0)} MiB`;
  const lines = [
    `Memory after bursts (\`hardhat serve\`, one process, SQLite, ethereum/sepolia ${target === "anvil" ? "live on an anvil node" : "simulated in the process"}${process.env.BURST_NODE_OPTIONS ? `, NODE_OPTIONS=${process.env.BURST_NODE_OPTIONS}` : ""}; idle figure ${mib(idleMiB)}, settled after one chain was used):`,
    "",
    "| burst (in this order) | RSS before | peak | after 60 s idle | above the idle figure | target |",
    "|---|---|---|---|---|---|",
    ...bursts.map(
      (row) =>
        `| ${row.burst} (${row.detail}) | ${mib(row.beforeMiB)} | ${mib(row.peakMiB)} | ${mib(row.afterIdleMiB)} | ${row.aboveIdleMiB >= 0 ? "+" : ""}${row.aboveIdleMiB.toFixed(0)} MiB | ≤ ${TARGET_MIB} MiB — ${row.aboveIdleMiB <= TARGET_MIB ? "met" : "**missed**"} |`,
    ),
  ];
  return lines.join("\n");
}
