// Launches into a live node: the service with ethereum/sepolia configured to an anvil node (mining on send), beside
// pre-signed raw ingest into a fresh anvil node of the same kind; and what a failover costs a launch (the first of the
// pair's two endpoints refusing connections, beside both up).
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { JsonRpcProvider, Transaction, toQuantity, type Wallet } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService, type TokenService } from "../src/api.js";
import { signingThreadStatus } from "../src/chains/evm/write/signing-thread.js";
import { openStore } from "../src/store/open-store.js";
import type { OperationStore } from "../src/core/operations/types.js";
import { startAnvil, type AnvilNode } from "../test/helpers/anvil.js";
import { startTcpRelay } from "../test/helpers/tcp-relay.js";
import { until } from "../test/helpers/until.js";
import { PAIR, PAIR_INFO, erc20DeploymentData, erc20Token, randomSigner } from "./deployments.js";
import { median, ms, perSecond, percentile, sequentialLatencies, type RatioRow } from "./support.js";

const LAUNCHES = 100;
/** More than the other sections' repetitions: a node in a process of its own makes these rows noisier. */
const RUNS = 5;
const LATENCY_SAMPLES = 40;
const SETTLE_TIMEOUT_MS = 120_000;
const FUNDS = 10n ** 24n;

async function fund(node: AnvilNode, address: string): Promise<void> {
  await node.rpc("anvil_setBalance", [address, toQuantity(FUNDS)]);
}

/** A token service recording into SQLite in a fresh data directory, as `serve` runs, with the pair live on `endpoints`. */
async function liveService(
  hre: HardhatRuntimeEnvironment,
  endpoints: string[],
): Promise<{ service: TokenService; store: OperationStore; close(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-anvil-"));
  const store = await openStore({ dataDir });
  const service = await createTokenService({
    hre,
    env: {},
    operationStore: store,
    rpcUrls: { [`${PAIR.chain}/${PAIR.network}`]: endpoints },
  });
  return {
    service,
    store,
    async close() {
      await service.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function launch(service: TokenService, sender: { address: string; privateKey: string }, index: number) {
  return service.operations.launch({
    ...PAIR,
    type: "ERC20",
    token: erc20Token(index),
    sender: sender.address,
    privateKey: sender.privateKey,
  });
}

async function launchUntilSettled(service: TokenService, sender: { address: string; privateKey: string }, index: number) {
  return service.operations.settle(await launch(service, sender, index), SETTLE_TIMEOUT_MS);
}

interface Throughput {
  minedPerSecond: number;
  failures: number;
  firstFailure?: string;
  /** CPU time per launch of this process and of the node, while they were timed; undefined where it cannot be read. */
  cpuPerLaunch?: { process: number; node: number };
}

/** CPU time (user and system, ms) a process has used, from /proc on Linux; undefined elsewhere. */
function processCpuMs(pid: number): number | undefined {
  try {
    // The fields after the command name (which may hold spaces, and ends with ")"): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every common platform). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time, while `timed` runs, of this process (every thread: the service's work or the anchor's client) and of the
 * node. On a machine shared with other work, a process waits for a core in proportion to the CPU it needs: wall-clock
 * ratios then drift towards the ratio of CPU times, which other work on the machine does not change.
 */
async function withCpuTime<T>(
  node: AnvilNode,
  launches: number,
  timed: () => Promise<T>,
): Promise<{ result: T; cpuPerLaunch?: { process: number; node: number } }> {
  const nodeBefore = processCpuMs(node.pid);
  const before = process.cpuUsage();
  const result = await timed();
  const used = process.cpuUsage(before);
  const nodeAfter = processCpuMs(node.pid);
  if (nodeBefore === undefined || nodeAfter === undefined) return { result };
  return { result, cpuPerLaunch: { process: (used.user + used.system) / 1000 / launches, node: (nodeAfter - nodeBefore) / launches } };
}

/** `LAUNCHES` launches fired at once from one sender through the service, counted until the tracker recorded them mined. */
async function serviceThroughput(hre: HardhatRuntimeEnvironment): Promise<Throughput> {
  const node = await startAnvil({ chainId: PAIR_INFO.chainId });
  const { service, store, close } = await liveService(hre, [node.url]);
  try {
    const [warmUp, owner] = [service.createWallet(PAIR), service.createWallet(PAIR)];
    await Promise.all([fund(node, warmUp.address), fund(node, owner.address)]);
    // Two at once: a burst's path, whose signing thread starts once per process (loading this repository's TypeScript
    // there), and is up before the timed burst, as in a service that has had one.
    await Promise.all([launchUntilSettled(service, warmUp, 0), launchUntilSettled(service, warmUp, 1)]);
    await until(() => signingThreadStatus().state !== "starting", "the signing thread up", 60_000);
    const start = performance.now();
    const { result: results, cpuPerLaunch } = await withCpuTime(node, LAUNCHES, () =>
      Promise.allSettled(Array.from({ length: LAUNCHES }, (_, index) => launchUntilSettled(service, owner, index))),
    );
    const elapsed = performance.now() - start;
    const mined = results.filter((result) => result.status === "fulfilled" && result.value.status === "mined").length;
    const failure = results.find((result) => result.status === "rejected" || result.value.status !== "mined");
    return {
      minedPerSecond: (mined / elapsed) * 1000,
      failures: LAUNCHES - mined,
      ...(cpuPerLaunch !== undefined ? { cpuPerLaunch } : {}),
      ...(failure
        ? {
            firstFailure:
              failure.status === "rejected"
                ? String(failure.reason)
                : await describeUnsettled(node, store, owner.address, failure.value.id, mined),
          }
        : {}),
    };
  } finally {
    await close();
    await node.stop();
  }
}

/** A record that did not end mined in time, with what the store and the node say of it: enough to find out why. */
async function describeUnsettled(node: AnvilNode, store: OperationStore, sender: string, id: string, mined: number): Promise<string> {
  const record = await store.getOperation(id);
  const [latest, pending, pool] = await Promise.all([
    node.rpc("eth_getTransactionCount", [sender, "latest"]),
    node.rpc("eth_getTransactionCount", [sender, "pending"]),
    node.rpc("txpool_status", []),
  ]);
  const hash = record?.transactionHash;
  const [receipt, byHash] = hash
    ? await Promise.all([node.rpc("eth_getTransactionReceipt", [hash]), node.rpc("eth_getTransactionByHash", [hash])])
    : [null, null];
  const moves = (record?.transitions ?? []).map(({ status, reason }) => `${status} (${reason})`).join(" → ");
  return (
    `record ${id} (nonce ${record?.nonce}) ended ${record?.status}: ${moves}; ${mined} mined; the node: nonce ${Number(latest)} ` +
    `(pending ${Number(pending)}), pool ${JSON.stringify(pool)}, receipt ${receipt === null ? "none" : "there"}, by hash ${byHash === null ? "unknown" : JSON.stringify(byHash).slice(0, 160)}`
  );
}

/** The same deployments from one sender, signed beforehand with ethers (gas: the node's estimate + 20 %, its fees). */
async function presigned(provider: JsonRpcProvider, sender: Wallet, count: number): Promise<string[]> {
  const estimate = await provider.estimateGas({ from: sender.address, data: erc20DeploymentData(sender.address, 0) });
  const fees = await provider.getFeeData();
  const signed: string[] = [];
  for (let nonce = 0; nonce < count; nonce++) {
    const transaction = Transaction.from({
      type: 2,
      chainId: PAIR_INFO.chainId,
      nonce,
      gasLimit: (estimate * 120n) / 100n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      data: erc20DeploymentData(sender.address, nonce),
      value: 0n,
    });
    signed.push(await sender.signTransaction(transaction));
  }
  return signed;
}

/** One JSON-RPC batch (one HTTP request) of `calls` to `url`; the answers in the order of the calls. */
async function batchCall(
  url: string,
  calls: Array<{ method: string; params: unknown[] }>,
): Promise<Array<{ result?: unknown; error?: unknown }>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await response.json()) as Array<{ id: number; result?: unknown; error?: unknown }>;
  return answers.sort((a, b) => a.id - b.id);
}

/**
 * How the anchor hands anvil the pre-signed deployments: `batch`, all of them as one JSON-RPC batch in nonce order (the
 * anchor issue 28 names: the fastest a client can make the node take them); `one-by-one`, each sent once the node
 * answered the one before (reported beside it).
 */
type IngestMode = "batch" | "one-by-one";

/** Pre-signed `eth_sendRawTransaction`s over HTTP into a fresh anvil node, in nonce order, until every receipt exists. */
async function rawIngestThroughput(mode: IngestMode): Promise<Throughput> {
  const node = await startAnvil({ chainId: PAIR_INFO.chainId });
  const provider = new JsonRpcProvider(node.url, PAIR_INFO.chainId, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const [warmUp, owner] = [randomSigner(), randomSigner()];
    await Promise.all([fund(node, warmUp.address), fund(node, owner.address)]);
    const [warmUpTransaction] = await presigned(provider, warmUp, 1);
    await node.rpc("eth_sendRawTransaction", [warmUpTransaction]);
    const signed = await presigned(provider, owner, LAUNCHES);
    const start = performance.now();
    const { result: receipts, cpuPerLaunch } = await withCpuTime(node, LAUNCHES, async () => {
      const hashes: string[] = [];
      if (mode === "batch") {
        const answers = await batchCall(
          node.url,
          signed.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
        );
        for (const answer of answers) if (typeof answer.result === "string") hashes.push(answer.result);
      } else {
        for (const raw of signed) hashes.push((await node.rpc("eth_sendRawTransaction", [raw])) as string);
      }
      // Mined on send, but a receipt may come a moment after the send's answer: asked again (one batch) until every one is there.
      const found = new Map<string, { status: string }>();
      const deadline = performance.now() + SETTLE_TIMEOUT_MS;
      while (found.size < hashes.length && performance.now() < deadline) {
        const missing = hashes.filter((hash) => !found.has(hash));
        const answers = await batchCall(
          node.url,
          missing.map((hash) => ({ method: "eth_getTransactionReceipt", params: [hash] })),
        );
        answers.forEach((answer, index) => {
          const receipt = answer.result as { status: string } | null | undefined;
          if (receipt) found.set(missing[index]!, receipt);
        });
        // Mining on send, anvil mines what its pool holds ready into one block when a transaction comes, and what does
        // not fit in that block (about 33 of these deployments fill its 30 M gas) waits there until the next transaction
        // comes (foundry-rs/foundry#10122), which after the batch never does. The anchor measures what the node ingests,
        // so it asks for that block.
        if (mode === "batch" && found.size < hashes.length) await node.rpc("evm_mine", []);
      }
      return found;
    });
    const elapsed = performance.now() - start;
    const mined = [...receipts.values()].filter((receipt) => receipt.status === "0x1").length;
    return {
      minedPerSecond: (mined / elapsed) * 1000,
      failures: LAUNCHES - mined,
      ...(cpuPerLaunch !== undefined ? { cpuPerLaunch } : {}),
    };
  } finally {
    provider.destroy();
    await node.stop();
  }
}

/**
 * Accepted latency of sequential launches through a pair of two endpoints to one anvil node, the first a TCP relay:
 * up, or cut (refusing connections) before the first timed launch. The first launch after the cut pays for finding out
 * (until the endpoint's circuit opens); the p50 is what a launch costs once it is skipped.
 */
async function failoverLatencies(hre: HardhatRuntimeEnvironment, firstDown: boolean): Promise<{ p50: number; first: number }> {
  const node = await startAnvil({ chainId: PAIR_INFO.chainId });
  const relay = await startTcpRelay({ host: "127.0.0.1", port: node.port });
  const { service, close } = await liveService(hre, [`http://127.0.0.1:${relay.port}`, node.url]);
  try {
    const owner = service.createWallet(PAIR);
    await fund(node, owner.address);
    for (let index = 0; index < 5; index++) await launch(service, owner, index);
    if (firstDown) await relay.cut();
    const samples = await sequentialLatencies(LATENCY_SAMPLES, (index) => launch(service, owner, index + 5));
    return { p50: median(samples), first: samples[0]! };
  } finally {
    await close();
    await relay.close();
    await node.stop();
  }
}

export async function anvilRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  const services: Throughput[] = [];
  const anchors: Throughput[] = [];
  const oneByOne: Throughput[] = [];
  // A round first that is not counted, as benchmark harnesses warm up: the first bursts of a process run code V8 has not
  // optimized yet (it was still compiling about 80 of the burst path's functions during the fourth). It is logged.
  log(`anvil: a warm-up round, not counted: pre-signed raw ingest, then the service…`);
  const [warmAnchor, warmService] = [await rawIngestThroughput("batch"), await serviceThroughput(hre)];
  log(
    `anvil: warm-up round: raw ingest ${perSecond(warmAnchor.minedPerSecond)}, the service ${perSecond(warmService.minedPerSecond)}` +
      (warmService.failures > 0 ? ` (${warmService.failures} not mined: ${warmService.firstFailure})` : ""),
  );
  for (let repetition = 1; repetition <= RUNS; repetition++) {
    log(
      `anvil: launch throughput ${repetition}/${RUNS}, ${LAUNCHES} from one sender: pre-signed raw ingest (one batch, then one by one), then the service…`,
    );
    anchors.push(await rawIngestThroughput("batch"));
    oneByOne.push(await rawIngestThroughput("one-by-one"));
    services.push(await serviceThroughput(hre));
    const [anchor, service] = [anchors.at(-1)!, services.at(-1)!];
    log(
      `anvil: raw ingest ${perSecond(anchor.minedPerSecond)} (one by one ${perSecond(oneByOne.at(-1)!.minedPerSecond)}), the service ${perSecond(service.minedPerSecond)}` +
        (service.cpuPerLaunch
          ? ` (CPU per launch: this process ${ms(service.cpuPerLaunch.process)}, anvil ${ms(service.cpuPerLaunch.node)})`
          : ""),
    );
  }
  const ratios = services.map((service, index) => service.minedPerSecond / anchors[index]!.minedPerSecond);
  const failures = services.reduce((sum, service) => sum + service.failures, 0);
  const firstFailure = services.find((service) => service.firstFailure)?.firstFailure;
  const notMined = anchors.reduce((sum, anchor) => sum + anchor.failures, 0);
  const rows: RatioRow[] = [
    {
      measure: `launches mined/s into anvil (automine), ${LAUNCHES} ERC20 fired at once from 1 sender`,
      service: `${perSecond(median(services.map((service) => service.minedPerSecond)))}; ${failures} of ${LAUNCHES * RUNS} failed${firstFailure ? ` (first: ${firstFailure})` : ""}`,
      anchor: `pre-signed eth_sendRawTransaction into anvil, one JSON-RPC batch in nonce order: ${perSecond(median(anchors.map((anchor) => anchor.minedPerSecond)))}${notMined > 0 ? ` (${notMined} not mined)` : ""}`,
      ratio: median(ratios),
      ratios,
      target: "≥ 0.5, 0 failures",
      met: median(ratios) >= 0.5 && failures === 0,
    },
    {
      measure: "the same launches against pre-signed sends one by one (each once the node answered the one before)",
      service: perSecond(median(services.map((service) => service.minedPerSecond))),
      anchor: `one by one: ${perSecond(median(oneByOne.map((anchor) => anchor.minedPerSecond)))}`,
      ratio: median(services.map((service, index) => service.minedPerSecond / oneByOne[index]!.minedPerSecond)),
      ratios: services.map((service, index) => service.minedPerSecond / oneByOne[index]!.minedPerSecond),
      target: "report (the anchor before issue 28)",
    },
  ];
  const cpu = (runs: Throughput[]) => {
    const measured = runs.flatMap((run) => (run.cpuPerLaunch === undefined ? [] : [run.cpuPerLaunch]));
    return measured.length === runs.length ? measured : undefined;
  };
  const [serviceCpu, anchorCpu] = [cpu(services), cpu(anchors)];
  if (serviceCpu !== undefined && anchorCpu !== undefined) {
    const total = (used: { process: number; node: number }) => used.process + used.node;
    const cpuRatios = serviceCpu.map((used, index) => total(used) / total(anchorCpu[index]!));
    const described = (runs: Array<{ process: number; node: number }>) =>
      `${ms(median(runs.map(total)))} (this process ${ms(median(runs.map((used) => used.process)))}, anvil ${ms(median(runs.map((used) => used.node)))})`;
    rows.push({
      measure: `CPU time per launch in the row above, this process and the anvil node (launches mined/s track its inverse on a busy machine)`,
      service: described(serviceCpu),
      anchor: `pre-signed raw ingest: ${described(anchorCpu)}`,
      ratio: median(cpuRatios),
      ratios: cpuRatios,
      target: "report",
    });
  }
  const up: Array<{ p50: number; first: number }> = [];
  const down: Array<{ p50: number; first: number }> = [];
  for (let repetition = 1; repetition <= RUNS; repetition++) {
    log(`anvil: failover cost ${repetition}/${RUNS}: launches with both endpoints up, then with the first refusing connections…`);
    up.push(await failoverLatencies(hre, false));
    down.push(await failoverLatencies(hre, true));
  }
  const p50Ratios = down.map((sample, index) => sample.p50 / up[index]!.p50);
  const firstRatios = down.map((sample, index) => sample.first / up[index]!.p50);
  rows.push(
    {
      measure: `launch latency (accepted) into anvil, p50 of ${LATENCY_SAMPLES} sequential, first of two endpoints refusing connections`,
      service: ms(median(down.map((sample) => sample.p50))),
      anchor: `both endpoints up: ${ms(median(up.map((sample) => sample.p50)))}`,
      ratio: median(p50Ratios),
      ratios: p50Ratios,
      target: "report (the dead endpoint is skipped once its circuit opens)",
    },
    {
      measure: "the first launch after the first endpoint went down (its circuit still closed)",
      service: `${ms(median(down.map((sample) => sample.first)))} (worst ${ms(
        percentile(
          down.map((sample) => sample.first),
          100,
        ),
      )})`,
      anchor: `p50 with both up: ${ms(median(up.map((sample) => sample.p50)))}`,
      ratio: median(firstRatios),
      ratios: firstRatios,
      target: "report",
    },
  );
  return rows;
}
