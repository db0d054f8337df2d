// `npm run bench -- --only=growth`: what history costs. Launches through the service (embedded SQLite store, as `serve`
// runs) into the simulated chain (its journal on, as `serve` keeps it) and into an anvil node, with the process's RSS
// and heap used at 200, 2,000 and 12,000 launches, MiB per 1,000 launches, and the launch rate at each count beside the
// rate at 200; beside them, the same deployments pre-signed into EDR alone and into anvil alone: what of the growth is
// the chain's own. `--growth-launches=200,2000,12000` sets the counts (every target), `--growth-anvil-launches=` the
// anvil targets' alone (default 200,2000: see docs/benchmarks.md), `--growth-targets=simulated,edr,anvil-alone,anvil`
// which targets run.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { Transaction, toQuantity } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService, type TokenService } from "../src/api.js";
import { checkpointPathOf } from "../src/chains/evm/checkpoint.js";
import { SimulatedChain } from "../src/chains/evm/simulated-chain.js";
import { hardhatSimulatedChains } from "../src/hardhat/simulated-chains.js";
import { openStore } from "../src/store/open-store.js";
import { startAnvil, type AnvilNode } from "../test/helpers/anvil.js";
import { startCountingProxy } from "../test/helpers/json-rpc-servers.js";
import {
  PAIR,
  PAIR_INFO,
  erc20DeploymentData,
  erc20Token,
  freshChain,
  presignedDeployments,
  randomSigner,
  setBalance,
} from "./deployments.js";
import { collectGarbage } from "./support.js";

const SENDERS = 10;
/** Launches fired at once, then each followed to `mined` before the next wave: a steady load, never an unbounded queue. */
const WAVE = 100;
/** The rate at a count is taken over the launches just before it (the first 200 for the count 200). */
const RATE_WINDOW = 200;
const SETTLE_TIMEOUT_MS = 300_000;
const FUNDS = 10n ** 26n;

export const DEFAULT_GROWTH_COUNTS = [200, 2_000, 12_000];
export const DEFAULT_ANVIL_GROWTH_COUNTS = [200, 2_000];

interface Reading {
  launches: number;
  rssMiB: number;
  heapUsedMiB: number;
  /** V8's heap as committed (heapTotal): what of the RSS the heap holds, its young generation grown under load included. */
  heapCommittedMiB: number;
  /** Launches per second over the RATE_WINDOW launches before this count. */
  rate: number;
  /** anvil: the node's own RSS (another process). */
  nodeRssMiB?: number;
  /** anvil: JSON-RPC calls the node got per launch over the RATE_WINDOW launches before this count, sends among them. */
  node?: { callsPerLaunch: number; sendsPerLaunch: number; byMethod: Record<string, number> };
  /** simulated: a start of the chain from a copy of its data (checkpoint + journal after it), as a restart makes it. */
  restart?: {
    ms: number;
    /** Of `ms`: reading the checkpoint and making the chain from it; replaying the journal after it. */
    checkpointMs: number;
    replayMs: number;
    replayed: number;
    checkpointHeight: number | undefined;
    emptyStartMs: number;
  };
}

export interface GrowthRun {
  target: string;
  readings: Reading[];
  failures: number;
  firstFailure?: string;
}

const MiB = 1024 * 1024;

function memory(): { rssMiB: number; heapUsedMiB: number; heapCommittedMiB: number } {
  collectGarbage();
  const { rss, heapUsed, heapTotal } = process.memoryUsage();
  return { rssMiB: rss / MiB, heapUsedMiB: heapUsed / MiB, heapCommittedMiB: heapTotal / MiB };
}

function processRssMiB(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
    return line === null ? undefined : Number(line[1]) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * Runs `wave(from, count)` until each of `counts` is reached, reading memory and the recent rate at each. A wave
 * answers how many of its launches failed (not mined) and the first failure's words.
 */
async function grow(
  counts: number[],
  wave: (from: number, count: number) => Promise<{ failed: number; first?: string }>,
  log: (line: string) => void,
  label: string,
  extra: (window: { from: number; to: number }) => Partial<Reading> = () => ({}),
  afterCount?: () => Promise<Partial<Reading>>,
): Promise<Omit<GrowthRun, "target">> {
  const readings: Reading[] = [];
  const finished: number[] = [];
  let done = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  for (const count of counts) {
    while (done < count) {
      const size = Math.min(WAVE, count - done);
      const { failed, first } = await wave(done, size);
      failures += failed;
      firstFailure ??= first;
      done += size;
      finished[done] = performance.now();
    }
    const windowStart = Math.max(0, count - RATE_WINDOW);
    const from = windowStart === 0 ? started : finished[windowStart]!;
    const rate = ((count - windowStart) / (finished[count]! - from)) * 1000;
    const reading: Reading = { launches: count, ...memory(), rate, ...extra({ from: windowStart, to: count }) };
    // After the memory reading: a restart's chain is made (and closed) in this process.
    if (afterCount !== undefined) Object.assign(reading, await afterCount());
    readings.push(reading);
    log(
      `growth ${label}: ${count} launches, RSS ${reading.rssMiB.toFixed(0)} MiB, heap ${reading.heapUsedMiB.toFixed(0)} of ${reading.heapCommittedMiB.toFixed(0)} MiB, ${rate.toFixed(0)}/s`,
    );
  }
  return { readings, failures, ...(firstFailure !== undefined ? { firstFailure } : {}) };
}

/** The service's launches, `WAVE` at a time from `SENDERS` senders, each followed to its final state. */
function serviceWave(service: TokenService, senders: Array<{ address: string; privateKey: string }>) {
  return async (from: number, count: number) => {
    const results = await Promise.allSettled(
      Array.from({ length: count }, async (_, index) => {
        const sender = senders[(from + index) % SENDERS]!;
        const outcome = await service.operations.launch({
          ...PAIR,
          type: "ERC20",
          token: erc20Token(from + index),
          sender: sender.address,
          privateKey: sender.privateKey,
        });
        return service.operations.settle(outcome, SETTLE_TIMEOUT_MS);
      }),
    );
    const failed = results.filter((result) => result.status === "rejected" || result.value.status !== "mined");
    const first = failed[0];
    return {
      failed: failed.length,
      ...(first === undefined
        ? {}
        : {
            first:
              first.status === "rejected"
                ? String(first.reason)
                : `ended ${(first as PromiseFulfilledResult<{ status: string }>).value.status}`,
          }),
    };
  };
}

async function withService<T>(
  hre: HardhatRuntimeEnvironment,
  options: { node?: AnvilNode; url?: string },
  work: (service: TokenService) => Promise<T>,
): Promise<T> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-growth-"));
  const store = await openStore({ dataDir });
  const node = options.node;
  const service = await createTokenService({
    hre,
    // Checkpoints on (they are off by default), as an operator of a long-running simulated chain sets them.
    env: { TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES: "1000" },
    operationStore: store,
    // Simulated: its journal in the data directory, as `serve` keeps it. Live: the anvil node.
    ...(node === undefined
      ? { dataDir: path.join(dataDir, "chains") }
      : { rpcUrls: { [`${PAIR.chain}/${PAIR.network}`]: [options.url ?? node.url] } }),
  });
  try {
    return await work(service);
  } finally {
    await service.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function fundedSenders(service: TokenService, node?: AnvilNode) {
  const senders = Array.from({ length: SENDERS }, () => service.createWallet(PAIR));
  for (const sender of senders) {
    if (node !== undefined) await node.rpc("anvil_setBalance", [sender.address, toQuantity(FUNDS)]);
    else await service.faucet({ ...PAIR, address: sender.address, amount: FUNDS.toString() });
  }
  return senders;
}

/**
 * What a restart of the simulated chain costs now: its data (checkpoint and journal, copied once no checkpoint is being
 * written) started as `serve` starts it, beside the anchor, a start of an empty chain.
 */
async function restartFigures(
  hre: HardhatRuntimeEnvironment,
  service: TokenService,
  log: (line: string) => void,
): Promise<Partial<Reading>> {
  const chain = await service.evm.get(PAIR_INFO);
  if (!(chain instanceof SimulatedChain) || chain.journalPath === undefined) return {};
  await chain.checkpointIdle();
  const copyDir = await mkdtemp(path.join(os.tmpdir(), "bench-restart-"));
  try {
    const journalPath = path.join(copyDir, path.basename(chain.journalPath));
    await copyFile(chain.journalPath, journalPath);
    await copyFile(checkpointPathOf(chain.journalPath), checkpointPathOf(journalPath)).catch(() => undefined);
    const factory = hardhatSimulatedChains(hre);
    let started = performance.now();
    const restarted = await SimulatedChain.start(factory, PAIR_INFO, { blockTimeSeconds: 0, journalPath, checkpointEntries: 0 });
    const ms = performance.now() - started;
    const replay = restarted.replay;
    await restarted.close();
    started = performance.now();
    const empty = await SimulatedChain.start(factory, PAIR_INFO, { blockTimeSeconds: 0 });
    const emptyStartMs = performance.now() - started;
    await empty.close();
    const restart = {
      ms,
      checkpointMs: replay?.checkpoint?.milliseconds ?? 0,
      replayMs: replay?.milliseconds ?? 0,
      replayed: replay?.entries ?? 0,
      checkpointHeight: replay?.checkpoint?.height,
      emptyStartMs,
    };
    log(
      `growth simulated: restart ${(ms / 1000).toFixed(2)} s (checkpoint at block ${restart.checkpointHeight ?? "none"}: ${(restart.checkpointMs / 1000).toFixed(2)} s; ${restart.replayed} entries replayed: ${(restart.replayMs / 1000).toFixed(2)} s); empty chain start ${emptyStartMs.toFixed(0)} ms`,
    );
    return { restart };
  } finally {
    await rm(copyDir, { recursive: true, force: true });
  }
}

async function simulatedGrowth(hre: HardhatRuntimeEnvironment, counts: number[], log: (line: string) => void): Promise<GrowthRun> {
  return withService(hre, {}, async (service) => {
    const senders = await fundedSenders(service);
    return {
      target: "service → simulated chain (EDR, journal on)",
      ...(await grow(counts, serviceWave(service, senders), log, "simulated", undefined, () => restartFigures(hre, service, log))),
    };
  });
}

async function anvilGrowth(hre: HardhatRuntimeEnvironment, counts: number[], log: (line: string) => void): Promise<GrowthRun> {
  const node = await startAnvil({ chainId: PAIR_INFO.chainId });
  // The service reaches the node through a relay that counts its calls by method (and keeps nothing else).
  const relay = await startCountingProxy(node.url, { countOnly: true });
  try {
    return await withService(hre, { node, url: relay.url }, async (service) => {
      const senders = await fundedSenders(service, node);
      // The relay's counts after each wave, by the launches done then.
      const countsAt = new Map<number, Map<string, number>>([[0, new Map(relay.counts)]]);
      const launches = serviceWave(service, senders);
      const wave = async (from: number, count: number) => {
        const outcome = await launches(from, count);
        countsAt.set(from + count, new Map(relay.counts));
        return outcome;
      };
      const figures = ({ from, to }: { from: number; to: number }): Partial<Reading> => {
        const rss = processRssMiB(node.pid);
        const byMethod: Record<string, number> = {};
        for (const [method, calls] of countsAt.get(to)!) {
          const since = calls - (countsAt.get(from)!.get(method) ?? 0);
          if (since > 0) byMethod[method] = since / (to - from);
        }
        const callsPerLaunch = Object.values(byMethod).reduce((sum, calls) => sum + calls, 0);
        const nodeCalls = { callsPerLaunch, sendsPerLaunch: byMethod.eth_sendRawTransaction ?? 0, byMethod };
        log(`growth anvil: ${to} launches, ${callsPerLaunch.toFixed(2)} node calls per launch over the last ${to - from}`);
        return { ...(rss === undefined ? {} : { nodeRssMiB: rss }), node: nodeCalls };
      };
      return { target: "service → anvil (live node)", ...(await grow(counts, wave, log, "anvil", figures)) };
    });
  } finally {
    await relay.close();
    await node.stop();
  }
}

/** The anchor: the same deployments, signed beforehand, sent into a fresh EDR chain in this process, no service. */
async function edrAloneGrowth(hre: HardhatRuntimeEnvironment, counts: number[], log: (line: string) => void): Promise<GrowthRun> {
  const chain = await freshChain(hre);
  try {
    const senders = Array.from({ length: SENDERS }, () => randomSigner());
    for (const sender of senders) await setBalance(chain, sender.address, FUNDS);
    const perSender = Math.ceil(counts.at(-1)! / SENDERS);
    log(`growth EDR alone: signing ${perSender * SENDERS} deployments beforehand…`);
    let signed: string[] | undefined = await presignedDeployments(chain, senders, perSender);
    const run = await grow(
      counts,
      async (from, count) => {
        const hashes = await Promise.all(signed!.slice(from, from + count).map((raw) => chain.request("eth_sendRawTransaction", [raw])));
        const receipts = await Promise.all(
          hashes.map((hash) => chain.request("eth_getTransactionReceipt", [hash]) as Promise<{ status: string } | null>),
        );
        return { failed: receipts.filter((receipt) => receipt?.status !== "0x1").length };
      },
      log,
      "EDR alone",
      () => ({}),
    );
    signed = undefined;
    return { target: "anchor: pre-signed into EDR alone (no service)", ...run };
  } finally {
    await chain.close();
  }
}

/** Gas for a pre-signed ERC20 deployment into anvil: above its use (about 1.6 M), below a block's. */
const ANVIL_DEPLOYMENT_GAS = 3_000_000n;

/**
 * The anchor on a live node: the same deployments, signed beforehand, sent into a fresh anvil node (mining on send) in
 * waves of `WAVE`, each sender's in nonce order, each followed to its receipt. What of the rate's fall is anvil's own.
 */
async function anvilAloneGrowth(_hre: HardhatRuntimeEnvironment, counts: number[], log: (line: string) => void): Promise<GrowthRun> {
  const node = await startAnvil({ chainId: PAIR_INFO.chainId });
  try {
    const senders = Array.from({ length: SENDERS }, () => randomSigner());
    for (const sender of senders) await node.rpc("anvil_setBalance", [sender.address, toQuantity(FUNDS)]);
    const total = counts.at(-1)!;
    log(`growth anvil alone: signing ${total} deployments beforehand…`);
    const signed: string[] = [];
    for (let index = 0; index < total; index++) {
      const sender = senders[index % SENDERS]!;
      const transaction = Transaction.from({
        type: 2,
        chainId: PAIR_INFO.chainId,
        nonce: Math.floor(index / SENDERS),
        maxFeePerGas: 100n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
        gasLimit: ANVIL_DEPLOYMENT_GAS,
        data: erc20DeploymentData(sender.address, index),
      });
      transaction.signature = sender.signingKey.sign(transaction.unsignedHash);
      signed.push(transaction.serialized);
    }
    const nodeRss = () => {
      const rss = processRssMiB(node.pid);
      return rss === undefined ? {} : { nodeRssMiB: rss };
    };
    const run = await grow(
      counts,
      async (from, count) => {
        const wave = signed.slice(from, from + count);
        // Each sender's transactions in nonce order (as the service sends them), the senders side by side.
        const hashes = await Promise.all(
          senders.map(async (_, first) => {
            const sent: string[] = [];
            for (let index = first; index < wave.length; index += SENDERS)
              sent.push((await node.rpc("eth_sendRawTransaction", [wave[index]])) as string);
            return sent;
          }),
        );
        let failed = 0;
        for (const hash of hashes.flat()) {
          let receipt: { status: string } | null = null;
          for (let tries = 0; receipt === null && tries < 10_000; tries++)
            receipt = (await node.rpc("eth_getTransactionReceipt", [hash])) as { status: string } | null;
          if (receipt?.status !== "0x1") failed++;
        }
        return { failed };
      },
      log,
      "anvil alone",
      nodeRss,
    );
    return { target: "anchor: pre-signed into anvil alone (no service)", ...run };
  } finally {
    await node.stop();
  }
}

export interface GrowthOptions {
  counts: number[];
  anvilCounts: number[];
  targets: string[];
}

export function growthOptions(argv: string[]): GrowthOptions {
  const list = (name: string) =>
    argv
      .find((argument) => argument.startsWith(`--${name}=`))
      ?.slice(name.length + 3)
      .split(",")
      .filter((part) => part !== "");
  const counts = (name: string, fallback: number[]) => {
    const given = list(name)?.map(Number);
    if (given === undefined) return fallback;
    if (given.some((count) => !Number.isInteger(count) || count <= 0 || count % WAVE !== 0))
      throw new Error(`--${name} takes positive multiples of ${WAVE}, ascending`);
    return given;
  };
  const all = counts("growth-launches", DEFAULT_GROWTH_COUNTS);
  return {
    counts: all,
    anvilCounts: counts("growth-anvil-launches", list("growth-launches") !== undefined ? all : DEFAULT_ANVIL_GROWTH_COUNTS),
    targets: list("growth-targets") ?? ["simulated", "edr", "anvil-alone", "anvil"],
  };
}

const TARGETS = { edr: edrAloneGrowth, simulated: simulatedGrowth, "anvil-alone": anvilAloneGrowth, anvil: anvilGrowth } as const;
type Target = keyof typeof TARGETS;

/**
 * Each target in a Node process of its own, one at a time: its RSS then counts that target alone, not what an earlier
 * one left to the allocator. The child prints its run as JSON on stdout, its progress on stderr.
 */
export async function growthRuns(options: GrowthOptions, log: (line: string) => void): Promise<GrowthRun[]> {
  const runs: GrowthRun[] = [];
  for (const target of Object.keys(TARGETS) as Target[]) {
    if (!options.targets.includes(target)) continue;
    const counts = target === "anvil" || target === "anvil-alone" ? options.anvilCounts : options.counts;
    const child = spawn(
      process.execPath,
      ["--expose-gc", "--import", "tsx/esm", fileURLToPath(import.meta.url), target, counts.join(",")],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    if (code !== 0) throw new Error(`growth ${target} exited with ${code}`);
    runs.push(JSON.parse(output.trim().split("\n").at(-1)!) as GrowthRun);
    log(`growth ${target}: done`);
  }
  return runs;
}

// Run as a child: one target, its counts; the run as JSON on the last line of stdout.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [target, counts] = process.argv.slice(2) as [Target, string];
  const { default: hre } = await import("hardhat");
  const run = await TARGETS[target](hre, counts.split(",").map(Number), (line) => console.error(`[bench] ${line}`));
  console.log(JSON.stringify(run));
  process.exit(0);
}

export function formatGrowth(runs: GrowthRun[]): string {
  const lines = [
    "| target | launches | RSS | heap used (committed) | RSS growth since the count before | rate (last 200) | rate ÷ rate at 200 |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const run of runs) {
    const first = run.readings[0];
    run.readings.forEach((reading, index) => {
      const before = run.readings[index - 1];
      const growth =
        before === undefined
          ? "—"
          : `${(((reading.rssMiB - before.rssMiB) / (reading.launches - before.launches)) * 1000).toFixed(1)} MiB per 1,000`;
      const node = reading.nodeRssMiB === undefined ? "" : ` (node: ${reading.nodeRssMiB.toFixed(0)} MiB)`;
      lines.push(
        `| ${run.target} | ${reading.launches.toLocaleString("en-US")} | ${reading.rssMiB.toFixed(0)} MiB${node} | ${reading.heapUsedMiB.toFixed(1)} MiB (${reading.heapCommittedMiB.toFixed(0)} MiB) | ${growth} | ${reading.rate.toFixed(0)} /s | ${first === undefined ? "—" : (reading.rate / first.rate).toFixed(2)} |`,
      );
    });
    if (run.failures > 0)
      lines.push(`| ${run.target}: ${run.failures} launches not mined (first: ${run.firstFailure ?? "?"}) | | | | | | |`);
  }
  const counted = runs.flatMap((run) => run.readings.flatMap((reading) => (reading.node === undefined ? [] : [{ run, reading }])));
  if (counted.length > 0) {
    lines.push(
      "",
      `| target | launches | node calls per launch (last ${RATE_WINDOW}) | sends per launch | the most asked | minimum |`,
      "|---|---|---|---|---|---|",
    );
    for (const { run, reading } of counted) {
      const { callsPerLaunch, sendsPerLaunch, byMethod } = reading.node!;
      const most = Object.entries(byMethod)
        .sort(([, a], [, b]) => b - a)
        .slice(0, 4)
        .map(([method, calls]) => `${method} ${calls.toFixed(2)}`)
        .join(", ");
      lines.push(
        `| ${run.target} | ${reading.launches.toLocaleString("en-US")} | ${callsPerLaunch.toFixed(2)} | ${sendsPerLaunch.toFixed(2)} | ${most} | 2 (a send, a receipt) |`,
      );
    }
  }
  const restarts = runs.flatMap((run) => run.readings.flatMap((reading) => (reading.restart === undefined ? [] : [{ run, reading }])));
  if (restarts.length > 0) {
    lines.push(
      "",
      "| target | launches | chain start from its data (checkpoint + journal after it) | of which: the checkpoint's chain | the journal after it | checkpoint block | entries replayed | anchor: empty chain start | ratio |",
      "|---|---|---|---|---|---|---|---|---|",
    );
    for (const { run, reading } of restarts) {
      const restart = reading.restart!;
      lines.push(
        `| ${run.target} | ${reading.launches.toLocaleString("en-US")} | ${(restart.ms / 1000).toFixed(2)} s | ${(restart.checkpointMs / 1000).toFixed(2)} s | ${(restart.replayMs / 1000).toFixed(2)} s | ${restart.checkpointHeight?.toLocaleString("en-US") ?? "none"} | ${restart.replayed.toLocaleString("en-US")} | ${restart.emptyStartMs.toFixed(0)} ms | ${(restart.ms / restart.emptyStartMs).toFixed(1)} |`,
      );
    }
  }
  return lines.join("\n");
}

export const GROWTH_NOTES = `Notes on the growth figures:
- ERC20 launches through \`service.operations.launch\` (the embedded SQLite store in a fresh data directory, as \`serve\`
  runs it), from ${SENDERS} senders, ${WAVE} at once, each followed to \`mined\` before the next ${WAVE}. The simulated chain
  journals every transaction (as \`serve\` keeps it); anvil mines on send, in a process of its own.
- RSS and heap used are this process's, after a full garbage collection (\`--expose-gc\`); "node" is anvil's own RSS.
  The EDR-alone row sends the same deployments, signed beforehand, into a fresh EDR chain in this process: EDR keeps
  every block, transaction, receipt and state change in memory, so that part of a simulated chain's growth is the
  chain's, not the service's. The anvil-alone row sends the same deployments, signed beforehand, into a fresh anvil
  node, each sender's in nonce order, and reads each receipt: what of the rate into anvil is the node's own.
- The rate at a count is launches per second over the ${RATE_WINDOW} launches before it (for 200: the first 200, the
  process warming up among them).`;
