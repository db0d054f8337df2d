// Whole-service footprint of `hardhat serve` on a fresh data directory:
//   node --import tsx/esm bench/serve-footprint.ts [--reps 3] [--launcher node] [--package] [--postgres]
// For each run: spawn `npx hardhat serve --port <free> --no-auth --data-dir <fresh tmp dir> --block-time 0`
// from the repository (its TypeScript sources, compiled at run time by the tsx loader Hardhat registers) or,
// with --package, from a new project that installed the packed package (its dist/ JavaScript, as users get it),
// time spawn → first `GET /health` 200, then use one simulated chain
// (create a wallet, faucet it on ethereum/sepolia) and poll the server's VmRSS until it settles.
// The node that runs the server is found under npx's process tree (npm exec → sh → node …/hardhat),
// and its RSS is read from /proc/<pid>/status. Linux only; nothing leaves 127.0.0.1.
// Export: measureServeFootprint() for one run, measureServeFootprints() for medians (bench/run.ts can call it).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
const repoRoot = path.resolve(path.dirname(here), "..");

export interface ServeFootprint {
  /** Spawn of npx to the first GET /health answered 200, ms. */
  healthMs: number;
  rssAtHealthMiB: number;
  /**
   * CPU seconds (user + system) spent up to the first /health 200: by the server process (all its threads),
   * and by the launcher processes around it (npm's npx, sh). Unlike wall time, these hardly change when
   * other work shares the machine's cores.
   */
  serverCpuS: number;
  launcherCpuS: number;
  /** VmRSS once it settled after a wallet + faucet on ethereum/sepolia (one simulated chain started). */
  idleRssMiB: number;
  /** VmHWM: the server's peak RSS up to then. */
  peakRssMiB: number;
  settledAfterS: number;
  serverPid: number;
  serverNode: string;
  store: string;
  launcher: "npx" | "node";
  /** "repository" (TypeScript sources) or "package" (dist/ of the packed package, installed in a new project). */
  code: "repository" | "package";
  /**
   * Bytes of the project's compiled build infos (artifacts/build-info). Hardhat loads them all into the
   * contract decoder of the first EDR chain, so they add to the idle RSS (about 30 MiB for this repository's
   * test contracts, once `npm test` compiled them).
   */
  buildInfoBytes: number;
}

/**
 * The targets for `npx hardhat serve` on this machine: start-up (issue 7 §3), idle memory (issue 28 §6 lowered issue 7's
 * 200 MiB to 150 MiB).
 */
export const SERVE_TARGETS = { healthMs: 1500, idleRssMiB: 150 };

export interface ServeFootprintOptions {
  /** Directory whose `node` is put first on PATH (default: the project's Node 24 package, if present). */
  nodeBinDir?: string;
  /** RSS counts as settled when it moved less than this over `settleWindowMs` (default 2 MiB over 10 s). */
  settleMiB?: number;
  settleWindowMs?: number;
  /** Gives up waiting for a settled RSS after this long and reports the last sample (default 90 s). */
  settleTimeoutMs?: number;
  /** Extra environment for the server (DATABASE_URL is removed unless given here). */
  env?: Record<string, string>;
  /** "npx" (default): `npx hardhat serve …`; "node": `node node_modules/.bin/hardhat serve …`, without npm's start-up. */
  launcher?: "npx" | "node";
  /** The Hardhat project `serve` runs in (default: this repository); see packedPackageProject(). */
  projectDir?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

async function children(pid: number): Promise<number[]> {
  const direct = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => ""))
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  const nested = await Promise.all(direct.map(children));
  return [...direct, ...nested.flat()];
}

/** The node process running `…/hardhat serve` under the npx process `root`. */
export async function serverProcess(root: number): Promise<number | undefined> {
  for (const pid of [root, ...(await children(root))]) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (path.basename(argv[0] ?? "") === "node" && /[/\\]hardhat(\.js)?$/.test(argv[1] ?? "") && argv.includes("serve")) return pid;
  }
  return undefined;
}

/** The node process running `…/hardhat run …` under `root` (the floor's process, see measureHardhatFloor). */
async function hardhatRunProcess(root: number): Promise<number | undefined> {
  for (const pid of [root, ...(await children(root))]) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (path.basename(argv[0] ?? "") === "node" && /[/\\]hardhat(\.js)?$/.test(argv[1] ?? "") && argv.includes("run")) return pid;
  }
  return undefined;
}

/** utime + stime of one process (all its threads), in seconds; Linux counts in ticks of 1/100 s. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
}

async function buildInfoBytes(projectDir: string): Promise<number> {
  const directory = path.join(projectDir, "artifacts/build-info");
  const names = await readdir(directory).catch(() => [] as string[]);
  const sizes = await Promise.all(names.map(async (name) => (await stat(path.join(directory, name))).size));
  return sizes.reduce((sum, size) => sum + size, 0);
}

export async function status(pid: number): Promise<{ rss: number; hwm: number }> {
  const text = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
  return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
}

async function post(base: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`POST ${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // npx runs in a process group of its own (detached), so the signal reaches npm, sh and the server.
  process.kill(-child.pid, "SIGTERM");
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, 15_000);
  await exited;
  clearTimeout(timer);
}

/** One run: fresh data directory, spawn → /health 200, one simulated chain used, settled RSS. */
export async function measureServeFootprint(options: ServeFootprintOptions = {}): Promise<ServeFootprint> {
  const nodeBinDir = options.nodeBinDir ?? path.join(repoRoot, "node_modules/node/bin");
  const settleMiB = options.settleMiB ?? 2;
  const settleWindowMs = options.settleWindowMs ?? 10_000;
  const settleTimeoutMs = options.settleTimeoutMs ?? 90_000;
  const projectDir = options.projectDir ?? repoRoot;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "serve-footprint-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (!options.env?.DATABASE_URL) delete env.DATABASE_URL;
  if (existsSync(path.join(nodeBinDir, "node"))) env.PATH = `${nodeBinDir}${path.delimiter}${env.PATH ?? ""}`;
  let output = "";
  const start = performance.now();
  const serveArgs = ["serve", "--port", String(port), "--no-auth", "--data-dir", dataDir, "--block-time", "0"];
  const [command, args] =
    options.launcher === "node"
      ? ["node", [path.join(projectDir, "node_modules/.bin/hardhat"), ...serveArgs]]
      : ["npx", ["hardhat", ...serveArgs]];
  const child = spawn(command, args, {
    cwd: projectDir,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr!.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  try {
    let healthMs: number | undefined;
    while (healthMs === undefined) {
      if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode} before /health answered:\n${output}`);
      if (performance.now() - start > 120_000) throw new Error(`no /health 200 within 120 s:\n${output}`);
      try {
        const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (response.status === 200) healthMs = performance.now() - start;
      } catch {
        // not listening yet
      }
      if (healthMs === undefined) await sleep(25);
    }
    const serverPid = await serverProcess(child.pid!);
    if (serverPid === undefined) throw new Error("could not find the node process running `hardhat serve`");
    const serverNode = await readlink(`/proc/${serverPid}/exe`);
    const atHealth = await status(serverPid);
    const serverCpuS = await cpuSeconds(serverPid);
    const launchers = [child.pid!, ...(await children(child.pid!))].filter((pid) => pid !== serverPid);
    const launcherCpuS = (await Promise.all(launchers.map(cpuSeconds))).reduce((sum, value) => sum + value, 0);
    const store = /database\s+(\S+)/.exec(output)?.[1] ?? "unknown";

    const wallet = await post(base, "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
    await post(base, "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });

    const settled = await settledRss(serverPid, performance.now(), { settleMiB, settleWindowMs, settleTimeoutMs });
    return {
      healthMs,
      rssAtHealthMiB: atHealth.rss,
      serverCpuS,
      launcherCpuS,
      idleRssMiB: settled.rss,
      peakRssMiB: settled.hwm,
      settledAfterS: settled.settledAfterS,
      serverPid,
      serverNode,
      store,
      launcher: options.launcher ?? "npx",
      code: projectDir === repoRoot ? "repository" : "package",
      buildInfoBytes: await buildInfoBytes(projectDir),
    };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Samples the RSS of `pid` every second until it moved less than `settleMiB` over `settleWindowMs` (or `settleTimeoutMs`
 * passed since `from`); answers the last sample and when it settled (NaN if it did not).
 */
async function settledRss(
  pid: number,
  from: number,
  { settleMiB, settleWindowMs, settleTimeoutMs }: { settleMiB: number; settleWindowMs: number; settleTimeoutMs: number },
): Promise<{ rss: number; hwm: number; settledAfterS: number }> {
  const samples: { at: number; rss: number }[] = [];
  let settledAfterS = NaN;
  for (;;) {
    await sleep(1_000);
    const now = performance.now();
    samples.push({ at: now, rss: (await status(pid)).rss });
    const window = samples.filter((sample) => sample.at >= now - settleWindowMs);
    const spread = Math.max(...window.map((s) => s.rss)) - Math.min(...window.map((s) => s.rss));
    if (now - from >= settleWindowMs && spread < settleMiB) {
      settledAfterS = (now - from) / 1000;
      break;
    }
    if (now - from > settleTimeoutMs) break;
  }
  return { ...(await status(pid)), settledAfterS };
}

/** What a Hardhat process holds with one simulated network and none of the service: the floor under `serve`'s idle RSS. */
export interface HardhatFloor {
  idleRssMiB: number;
  settledAfterS: number;
  runs: number[];
}

/**
 * The anchor of the idle-memory row: `npx hardhat run --no-compile` of a script that opens one simulated network (the
 * same edr-simulated network `serve` makes its chains from), sets a balance and reads it (what a faucet grant asks of
 * the chain), then waits. Nothing of the service is loaded. Measured in the same project as `serve` (build infos, Node,
 * npx), its RSS settled the same way; the median of `reps` runs.
 */
export async function measureHardhatFloor(reps = 3, projectDir = repoRoot): Promise<HardhatFloor> {
  const script = path.join(projectDir, `idle-floor-${process.pid}.ts`);
  await writeFile(
    script,
    [
      'import hre from "hardhat";',
      "const connection = await hre.network.create();",
      'await connection.provider.request({ method: "hardhat_setBalance", params: ["0x0000000000000000000000000000000000000001", "0x1"] });',
      'await connection.provider.request({ method: "eth_getBalance", params: ["0x0000000000000000000000000000000000000001", "latest"] });',
      'console.log("floor ready");',
      "setInterval(() => undefined, 1_000);",
      "",
    ].join("\n"),
  );
  const nodeBinDir = path.join(repoRoot, "node_modules/node/bin");
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (existsSync(path.join(nodeBinDir, "node"))) env.PATH = `${nodeBinDir}${path.delimiter}${env.PATH ?? ""}`;
  const results: Array<{ rss: number; settledAfterS: number }> = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const child = spawn("npx", ["hardhat", "run", "--no-compile", script], {
        cwd: projectDir,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", (chunk) => {
          output += chunk;
          if (output.includes("floor ready")) resolve();
        });
        child.stderr!.on("data", (chunk) => (output += chunk));
        child.once("exit", (code) => reject(new Error(`hardhat run exited ${code} before it was ready:\n${output}`)));
      });
      try {
        await ready;
        const pid = await hardhatRunProcess(child.pid!);
        if (pid === undefined) throw new Error("could not find the node process running `hardhat run`");
        results.push(await settledRss(pid, performance.now(), { settleMiB: 2, settleWindowMs: 10_000, settleTimeoutMs: 90_000 }));
      } finally {
        await stop(child);
      }
    }
  } finally {
    await rm(script, { force: true });
  }
  return {
    idleRssMiB: median(results.map((result) => result.rss)),
    settledAfterS: median(results.map((result) => result.settledAfterS)),
    runs: results.map((result) => result.rss),
  };
}

/** The idle-memory row beside its anchor: `serve` against the floor of the same project's Hardhat process. */
export function formatIdleAgainstFloor(serve: ServeFootprints, floor: HardhatFloor): string {
  const ratio = serve.median.idleRssMiB / floor.idleRssMiB;
  return [
    "| measure | service | anchor (same run, same project) | ratio | target |",
    "|---|---|---|---|---|",
    `| idle RSS after one simulated chain was used (settled) | ${serve.median.idleRssMiB.toFixed(0)} MiB (${serve.runs.map((r) => r.idleRssMiB.toFixed(0)).join(", ")}) | \`npx hardhat run --no-compile\` of a script that opens one simulated network and sets a balance, nothing else: ${floor.idleRssMiB.toFixed(0)} MiB (${floor.runs.map((r) => r.toFixed(0)).join(", ")}) | ${ratio.toFixed(2)} | ≤ ${SERVE_TARGETS.idleRssMiB} MiB — ${serve.median.idleRssMiB <= SERVE_TARGETS.idleRssMiB ? "met" : `**missed**; the anchor alone is ${floor.idleRssMiB.toFixed(0)} MiB`} |`,
  ].join("\n");
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

export interface ServeFootprints {
  median: Omit<ServeFootprint, "serverPid">;
  runs: ServeFootprint[];
}

/** `reps` runs one after another; medians plus every run. */
export async function measureServeFootprints(reps = 3, options: ServeFootprintOptions = {}): Promise<ServeFootprints> {
  const runs: ServeFootprint[] = [];
  for (let rep = 0; rep < reps; rep++) runs.push(await measureServeFootprint(options));
  return summarize(runs);
}

/** Medians of every measure, and the runs. */
function summarize(runs: ServeFootprint[]): ServeFootprints {
  const m = (pick: (run: ServeFootprint) => number) => median(runs.map(pick));
  return {
    median: {
      healthMs: m((r) => r.healthMs),
      rssAtHealthMiB: m((r) => r.rssAtHealthMiB),
      serverCpuS: m((r) => r.serverCpuS),
      launcherCpuS: m((r) => r.launcherCpuS),
      idleRssMiB: m((r) => r.idleRssMiB),
      peakRssMiB: m((r) => r.peakRssMiB),
      settledAfterS: m((r) => r.settledAfterS),
      serverNode: runs[0]!.serverNode,
      store: runs[0]!.store,
      launcher: runs[0]!.launcher,
      code: runs[0]!.code,
      buildInfoBytes: runs[0]!.buildInfoBytes,
    },
    runs,
  };
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // npm installs with the project's Node 24 first on PATH, so it picks EDR's build for that Node.
    const nodeBinDir = path.join(repoRoot, "node_modules/node/bin");
    const env = { ...process.env, PATH: `${nodeBinDir}${path.delimiter}${process.env.PATH ?? ""}` };
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")}: exit ${code}\n${stderr}`))));
  });
}

/**
 * A new Hardhat project with the packed package installed (npm pack, then npm install from npm's cache where
 * it can, as test/package.test.ts does) and a minimal plugin config: `serve` there runs dist/ JavaScript.
 * The caller removes the returned directory.
 */
export async function packedPackageProject(): Promise<string> {
  const project = await mkdtemp(path.join(os.tmpdir(), "serve-footprint-project-"));
  const packs = path.join(project, "packs");
  await mkdir(packs);
  await run("npm", ["pack", "--pack-destination", packs], repoRoot);
  const [tarball] = (await readdir(packs)).filter((name) => name.endsWith(".tgz"));
  const hardhatVersion = JSON.parse(await readFile(path.join(repoRoot, "node_modules/hardhat/package.json"), "utf8")).version as string;
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "footprint", version: "1.0.0", type: "module", private: true }),
  );
  await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-dev", `hardhat@${hardhatVersion}`, path.join(packs, tarball!)],
    project,
  );
  await writeFile(
    path.join(project, "hardhat.config.ts"),
    'import { defineConfig } from "hardhat/config";\nimport tokenService from "hardhat-token-service";\n\nexport default defineConfig({ plugins: [tokenService] });\n',
  );
  return project;
}

/** "met" or "missed by …" against a ceiling. */
function verdict(value: number, target: number, unit: string, digits: number): string {
  return value <= target ? "met" : `**missed** by ${(value - target).toFixed(digits)} ${unit}`;
}

export function formatServeFootprint(result: ServeFootprints): string {
  const { median, runs } = result;
  const targeted = median.launcher === "npx";
  const target = (value: string) => (targeted ? value : "(npx only)");
  const lines = [
    `\`${median.launcher === "npx" ? "npx hardhat" : "node node_modules/.bin/hardhat"} serve\` running ${median.code === "repository" ? "this repository's TypeScript sources (tsx)" : "the packed package's dist/ JavaScript in a new project"}, fresh data directory, store ${median.store}, project build infos ${(median.buildInfoBytes / 1024 / 1024).toFixed(1)} MiB, server node ${median.serverNode}, ${runs.length} runs, medians; load average ${os
      .loadavg()
      .map((v) => v.toFixed(1))
      .join(" ")}`,
    "",
    "| measure | target | median | verdict | runs |",
    "|---|---|---|---|---|",
    `| spawn → first GET /health 200 | ${target(`≤ ${(SERVE_TARGETS.healthMs / 1000).toFixed(1)} s`)} | ${(median.healthMs / 1000).toFixed(2)} s | ${targeted ? verdict(median.healthMs / 1000, SERVE_TARGETS.healthMs / 1000, "s", 2) : ""} | ${runs.map((r) => (r.healthMs / 1000).toFixed(2)).join(", ")} |`,
    `| CPU up to then: server process (all threads) | | ${median.serverCpuS.toFixed(2)} s | | ${runs.map((r) => r.serverCpuS.toFixed(2)).join(", ")} |`,
    `| CPU up to then: launcher (${median.launcher === "npx" ? "npm's npx" : "none"}) | | ${median.launcherCpuS.toFixed(2)} s | | ${runs.map((r) => r.launcherCpuS.toFixed(2)).join(", ")} |`,
    `| RSS at first /health 200 | | ${median.rssAtHealthMiB.toFixed(0)} MiB | | ${runs.map((r) => r.rssAtHealthMiB.toFixed(0)).join(", ")} |`,
    `| idle RSS after one simulated chain was used (settled) | ${target(`≤ ${SERVE_TARGETS.idleRssMiB} MiB`)} | ${median.idleRssMiB.toFixed(0)} MiB | ${targeted ? verdict(median.idleRssMiB, SERVE_TARGETS.idleRssMiB, "MiB", 0) : ""} | ${runs.map((r) => r.idleRssMiB.toFixed(0)).join(", ")} |`,
    `| peak RSS (VmHWM) up to then | | ${median.peakRssMiB.toFixed(0)} MiB | | ${runs.map((r) => r.peakRssMiB.toFixed(0)).join(", ")} |`,
    `| settled after (s after the faucet) | | ${median.settledAfterS.toFixed(0)} | | ${runs.map((r) => r.settledAfterS.toFixed(0)).join(", ")} |`,
  ];
  return lines.join("\n");
}

/**
 * The same with DATABASE_URL set to a fresh database on a PostgreSQL server, so no embedded engine
 * runs inside the server: a floor for what the service costs with any small embedded store.
 */
export async function measureServeFootprintOnPostgres(
  adminUrl = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  options: ServeFootprintOptions = {},
): Promise<ServeFootprint> {
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const database = `serve_footprint_${process.pid}`;
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    return await measureServeFootprint({ ...options, env: { ...options.env, DATABASE_URL: url.toString() } });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv[1] === here) {
  const index = process.argv.indexOf("--reps");
  const reps = index >= 0 ? Number(process.argv[index + 1]) : 3;
  const launcher = process.argv.includes("--launcher") ? (process.argv[process.argv.indexOf("--launcher") + 1] as "npx" | "node") : "npx";
  const projectDir = process.argv.includes("--package") ? await packedPackageProject() : undefined;
  try {
    console.log(formatServeFootprint(await measureServeFootprints(reps, { launcher, ...(projectDir ? { projectDir } : {}) })));
  } finally {
    if (projectDir) await rm(projectDir, { recursive: true, force: true });
  }
  // --postgres: the same with the store on the PostgreSQL server (no embedded engine in the process),
  // through npx and, to separate npm's own start-up, through node directly.
  if (process.argv.includes("--postgres")) {
    for (const launcher of ["npx", "node"] as const) {
      const runs: ServeFootprint[] = [];
      for (let rep = 0; rep < reps; rep++) runs.push(await measureServeFootprintOnPostgres(undefined, { launcher }));
      console.log(`\n${formatServeFootprint(summarize(runs))}`);
    }
  }
}
