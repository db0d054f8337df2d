// POST /api/v1/wallets over a real socket: the HTTP service (createServer + listen, API key, rate limit off) beside
// Express 5 anchors on the same machine: static JSON (the framework's ceiling) and a handler that calls ethers'
// Wallet.createRandom(), run as an application runs it (a process of its own, plain ethers) and, reported beside it,
// in this process, whose ethers hardhat-ethers has given EDR's native secp256k1 and keccak. autocannon drives each
// from a child process of its own, so the load generator does not share the server's event loop; the servers run
// one at a time, with identical load.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Wallet } from "ethers";
import express from "express";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { hardhatSimulatedChains } from "../src/hardhat/simulated-chains.js";
import { createServer } from "../src/http/app.js";
import { listen, shutdown } from "../src/http/listen.js";
import { createWallet } from "../src/core/wallets.js";
import { REPETITIONS, median, type RatioRow } from "./support.js";

const CONNECTIONS = 20;
const WARM_UP_SECONDS = 1;
const DURATION_SECONDS = 3;
const API_KEY = "bench-key-0123456789abcdef";
const ROUTE = "/api/v1/wallets";
const BODY = JSON.stringify({ chain: "ethereum", network: "mainnet" });

const require = createRequire(import.meta.url);

interface LoadResult {
  perSecond: number;
  p50Ms: number;
  ok: number;
  notOk: number;
  errors: number;
}

/** autocannon in its own process against `url`; the figures of the sampled period (after the warm-up). */
function load(url: string): Promise<LoadResult> {
  const args = [
    require.resolve("autocannon/autocannon.js"),
    ...["-c", String(CONNECTIONS), "-d", String(DURATION_SECONDS)],
    ...["--warmup", "[", "-c", String(CONNECTIONS), "-d", String(WARM_UP_SECONDS), "]"],
    ...["-m", "POST", "-H", "content-type=application/json", "-H", `x-api-key=${API_KEY}`, "-b", BODY],
    "--json",
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${stderr}`));
      const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
        "2xx": number;
        non2xx: number;
        errors: number;
        timeouts: number;
        duration: number;
        latency: { p50: number };
      };
      resolve({
        perSecond: result["2xx"] / result.duration,
        p50Ms: result.latency.p50,
        ok: result["2xx"],
        notOk: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
  });
}

async function listening(app: express.Express): Promise<{ url: string; server: Server }> {
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${ROUTE}`, server };
}

async function measureExpress(handler: express.RequestHandler): Promise<LoadResult> {
  const app = express();
  app.use(express.json());
  app.post(ROUTE, handler);
  const { url, server } = await listening(app);
  try {
    return await load(url);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The naive handler in a Node process of its own (bench/naive-wallet-server.ts), started, loaded, then stopped. */
async function measureNaiveProcess(): Promise<LoadResult> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "naive-wallet-server.ts");
  const child = spawn(process.execPath, ["--import", "tsx/esm", script, ROUTE], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("\n")) resolve(stdout.trim());
      });
      child.once("exit", (code) => reject(new Error(`the naive wallet server exited ${code} before listening`)));
    });
    return await load(url);
  } finally {
    // Gone before the next server is loaded, so no measurement shares the machine with it.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
    }
  }
}

async function measureService(hre: HardhatRuntimeEnvironment): Promise<LoadResult> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-http-"));
  const server = await createServer({
    simulatedChainFactory: hardhatSimulatedChains(hre),
    dataDir,
    blockTimeSeconds: 0,
    apiKeys: [API_KEY],
    rateLimit: { limit: 0, windowMs: 60_000 },
    // Request lines are still formatted at the default level; only the write to a terminal is left out.
    logDestination: { write: () => undefined },
    env: {},
  });
  try {
    const http = await listen(server, "127.0.0.1", 0);
    try {
      return await load(`http://127.0.0.1:${(http.address() as AddressInfo).port}${ROUTE}`);
    } finally {
      await shutdown(http, server);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The median rate and latency of several runs, with every run's refusals and errors added up. */
function combined(results: LoadResult[]): LoadResult {
  return {
    perSecond: median(results.map((result) => result.perSecond)),
    p50Ms: median(results.map((result) => result.p50Ms)),
    ok: results.reduce((sum, result) => sum + result.ok, 0),
    notOk: results.reduce((sum, result) => sum + result.notOk, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
  };
}

const rate = (result: LoadResult) =>
  `${Math.round(result.perSecond).toLocaleString("en-US")} req/s, p50 ${result.p50Ms} ms${result.notOk + result.errors > 0 ? `, ${result.notOk} non-2xx, ${result.errors} errors` : ""}`;

export async function walletHttpRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  // The same shape and size of answer as the service's, fixed.
  const fixedWallet = createWallet({ chain: "ethereum", network: "mainnet" });
  const runs = {
    ceiling: [] as LoadResult[],
    naive: [] as LoadResult[],
    naiveInProcess: [] as LoadResult[],
    service: [] as LoadResult[],
  };
  for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
    log(
      `POST /api/v1/wallets ${repetition}/${REPETITIONS}: Express 5 static JSON, Express 5 + Wallet.createRandom() (own process; this process), the service…`,
    );
    runs.ceiling.push(await measureExpress((_request, response) => void response.json(fixedWallet)));
    runs.naive.push(await measureNaiveProcess());
    runs.naiveInProcess.push(
      await measureExpress((_request, response) => {
        const wallet = Wallet.createRandom();
        response.json({ chain: "ethereum", network: "mainnet", address: wallet.address, privateKey: wallet.privateKey });
      }),
    );
    runs.service.push(await measureService(hre));
  }
  const [ceiling, naive, naiveInProcess, service] = [runs.ceiling, runs.naive, runs.naiveInProcess, runs.service].map(combined) as [
    LoadResult,
    LoadResult,
    LoadResult,
    LoadResult,
  ];
  const over = (anchor: LoadResult[]) => runs.service.map((result, index) => result.perSecond / anchor[index]!.perSecond);
  const [overCeiling, overNaive, overNaiveInProcess] = [over(runs.ceiling), over(runs.naive), over(runs.naiveInProcess)];
  const clean = service.notOk + service.errors === 0;
  const label = `POST /api/v1/wallets req/s, ${CONNECTIONS} connections, ${DURATION_SECONDS} s after ${WARM_UP_SECONDS} s warm-up`;
  return [
    {
      measure: `${label}, vs the static ceiling`,
      service: rate(service),
      anchor: `Express 5 static JSON: ${rate(ceiling)}`,
      ratio: median(overCeiling),
      ratios: overCeiling,
      target: "≥ 0.3",
      met: clean && median(overCeiling) >= 0.3,
    },
    {
      measure: `${label}, vs the naive handler`,
      service: rate(service),
      anchor: `Express 5 + ethers Wallet.createRandom(), a process of its own (plain ethers): ${rate(naive)}`,
      ratio: median(overNaive),
      ratios: overNaive,
      target: "≥ 20",
      met: clean && median(overNaive) >= 20,
    },
    {
      measure: `${label}, vs the naive handler in the bench process (ethers with hardhat-ethers' native secp256k1 and keccak)`,
      service: rate(service),
      anchor: `Express 5 + ethers Wallet.createRandom(), in this process: ${rate(naiveInProcess)}`,
      ratio: median(overNaiveInProcess),
      ratios: overNaiveInProcess,
      target: "reported",
    },
  ];
}
