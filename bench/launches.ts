// Launches through the core's recorded path (`service.operations.launch`, the embedded SQLite store, as `serve` runs it),
// beside what the same simulated chain takes without the service: pre-signed raw transactions, and ethers' own deploy.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { ContractFactory } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { AddressInfo } from "node:net";

import { createTokenService, type TokenService } from "../src/api.js";
import { serviceErc20Artifact } from "../src/chains/evm/artifacts.js";
import { hardhatSimulatedChains } from "../src/hardhat/simulated-chains.js";
import { createServer } from "../src/http/app.js";
import { listen, shutdown } from "../src/http/listen.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/types.js";
import { parseErc20Params } from "../src/domain/token-params.js";
import { PAIR, erc20Token, freshChain, presignedDeployments, randomSigner, setBalance } from "./deployments.js";
import { REPETITIONS, jsonPoster, median, ms, perSecond, sequentialLatencies, type RatioRow } from "./support.js";

const SETTLE_TIMEOUT_MS = 120_000;
const LATENCY_SAMPLES = 40;

interface RecordedService {
  service: TokenService;
  close(): Promise<void>;
}

/** A token service with the embedded SQLite store in a fresh data directory, as `serve` composes it. */
async function recordedService(hre: HardhatRuntimeEnvironment): Promise<RecordedService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-launch-"));
  const store: Store = await openStore({ dataDir });
  const service = await createTokenService({ hre, env: {}, operationStore: store });
  return {
    service,
    async close() {
      await service.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function fundedWallets(service: TokenService, count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const wallet = service.createWallet(PAIR);
      await service.faucet({ ...PAIR, address: wallet.address, amount: (10n ** 24n).toString() });
      return wallet;
    }),
  );
}

/** One launch, followed to its record's final status. */
async function launchUntilSettled(service: TokenService, sender: { address: string; privateKey: string }, index: number) {
  const outcome = await service.operations.launch({
    ...PAIR,
    type: "ERC20",
    token: erc20Token(index),
    sender: sender.address,
    privateKey: sender.privateKey,
  });
  return service.operations.settle(outcome, SETTLE_TIMEOUT_MS);
}

interface Throughput {
  minedPerSecond: number;
  mined: number;
  failures: number;
  firstFailure?: string;
}

/**
 * `total` launches fired at once, timed until every one settled; `notMined` says why one did not end mined (undefined
 * when it did).
 */
async function burst<T>(
  total: number,
  launch: (index: number) => Promise<T>,
  notMined: (outcome: T) => string | undefined,
): Promise<Throughput> {
  const start = performance.now();
  const results = await Promise.allSettled(Array.from({ length: total }, (_, index) => launch(index)));
  const elapsed = performance.now() - start;
  const failures = results.map((result) => (result.status === "rejected" ? String(result.reason) : notMined(result.value)));
  const mined = failures.filter((failure) => failure === undefined).length;
  const firstFailure = failures.find((failure) => failure !== undefined);
  return {
    minedPerSecond: (mined / elapsed) * 1000,
    mined,
    failures: total - mined,
    ...(firstFailure !== undefined ? { firstFailure } : {}),
  };
}

/** `total` launches fired at once from `senders` funded wallets, counted until the tracker recorded them mined. */
async function serviceThroughput(hre: HardhatRuntimeEnvironment, senders: number, total: number): Promise<Throughput> {
  const { service, close } = await recordedService(hre);
  try {
    const [warmUp, ...owners] = await fundedWallets(service, senders + 1);
    await launchUntilSettled(service, warmUp!, 0);
    return await burst(
      total,
      (index) => launchUntilSettled(service, owners[index % senders]!, index),
      (outcome) => (outcome.status === "mined" ? undefined : `record ${outcome.id} ended ${outcome.status}`),
    );
  } finally {
    await close();
  }
}

const HTTP_API_KEY = "bench-launch-key-0123456789";

/**
 * `total` launches over HTTP into a server in this process, as `serve` composes it (createServer + listen, the embedded
 * SQLite store in a fresh data directory, an API key, the rate limit off, request lines formatted into a sink): fired
 * at once from `senders` wallets as `POST /api/v1/tokens?wait=mined` through a keep-alive pool of 32 connections (as a
 * client application sends them), each counted when its answer says `mined`.
 */
async function httpThroughput(hre: HardhatRuntimeEnvironment, senders: number, total: number): Promise<Throughput> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-http-launch-"));
  const server = await createServer({
    simulatedChainFactory: hardhatSimulatedChains(hre),
    dataDir,
    blockTimeSeconds: 0,
    apiKeys: [HTTP_API_KEY],
    rateLimit: { limit: 0, windowMs: 60_000 },
    logDestination: { write: () => undefined },
    env: {},
  });
  const http = await listen(server, "127.0.0.1", 0);
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = jsonPoster(base, { "x-api-key": HTTP_API_KEY });
  const post = client.post;
  const launch = (sender: { address: string; privateKey: string }, index: number) =>
    post("/api/v1/tokens?wait=mined", {
      ...PAIR,
      type: "ERC20",
      token: erc20Token(index),
      sender: sender.address,
      privateKey: sender.privateKey,
    });
  try {
    const wallets = Array.from({ length: senders + 1 }, () => randomSigner());
    for (const wallet of wallets) {
      const granted = await post("/api/v1/faucet", { ...PAIR, address: wallet.address, amount: (10n ** 24n).toString() });
      if (granted.status !== 200) throw new Error(`faucet: ${granted.status} ${JSON.stringify(granted.json)}`);
    }
    const [warmUp, ...owners] = wallets;
    await launch(warmUp!, 0);
    return await burst(
      total,
      (index) => launch(owners[index % senders]!, index),
      (answer) => (answer.json.status === "mined" ? undefined : `${answer.status} ${JSON.stringify(answer.json).slice(0, 200)}`),
    );
  } finally {
    client.close();
    await shutdown(http, server);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The same deployments signed beforehand, sent at once as `eth_sendRawTransaction` into a fresh chain, until every receipt exists. */
async function rawIngestThroughput(hre: HardhatRuntimeEnvironment, senders: number, total: number): Promise<Throughput> {
  const chain = await freshChain(hre);
  try {
    const wallets = Array.from({ length: senders + 1 }, () => randomSigner());
    const [warmUp, ...owners] = wallets;
    await Promise.all(wallets.map((wallet) => setBalance(chain, wallet.address)));
    const [warmUpTransaction] = await presignedDeployments(chain, [warmUp!], 1);
    await chain.request("eth_sendRawTransaction", [warmUpTransaction]);
    const signed = await presignedDeployments(chain, owners, total / senders);
    const start = performance.now();
    const hashes = await Promise.all(signed.map((raw) => chain.request("eth_sendRawTransaction", [raw]) as Promise<string>));
    const receipts = await Promise.all(
      hashes.map((hash) => chain.request("eth_getTransactionReceipt", [hash]) as Promise<{ status: string } | null>),
    );
    const elapsed = performance.now() - start;
    const mined = receipts.filter((receipt) => receipt?.status === "0x1").length;
    return { minedPerSecond: (mined / elapsed) * 1000, mined, failures: total - mined };
  } finally {
    await chain.close();
  }
}

/** Accepted latency of sequential launches through the recorded path, p50 in ms. */
async function serviceLatency(hre: HardhatRuntimeEnvironment): Promise<number> {
  const { service, close } = await recordedService(hre);
  try {
    const [owner] = await fundedWallets(service, 1);
    const launch = (index: number) =>
      service.operations.launch({
        ...PAIR,
        type: "ERC20",
        token: erc20Token(index),
        sender: owner!.address,
        privateKey: owner!.privateKey,
      });
    for (let index = 0; index < 5; index++) await launch(index);
    return median(await sequentialLatencies(LATENCY_SAMPLES, (index) => launch(index + 5)));
  } finally {
    await close();
  }
}

/** The same: ethers' `ContractFactory.deploy()` of the shipped artifact, resolved once the node accepted it, p50 in ms. */
async function ethersDeployLatency(hre: HardhatRuntimeEnvironment): Promise<number> {
  const chain = await freshChain(hre);
  try {
    const signer = randomSigner().connect(chain.provider);
    await setBalance(chain, signer.address);
    const factory = new ContractFactory(serviceErc20Artifact.abi, serviceErc20Artifact.bytecode, signer);
    const deploy = (index: number) => {
      const { name, symbol, decimals, cap, minter, initialSupply, account } = parseErc20Params(erc20Token(index), signer.address);
      return factory.deploy(name, symbol, decimals, cap, minter, initialSupply, account);
    };
    for (let index = 0; index < 5; index++) await deploy(index);
    return median(await sequentialLatencies(LATENCY_SAMPLES, (index) => deploy(index + 5)));
  } finally {
    await chain.close();
  }
}

function throughputRow(label: string, services: Throughput[], anchors: Throughput[], total: number, target: number): RatioRow {
  const ratios = services.map((service, index) => service.minedPerSecond / anchors[index]!.minedPerSecond);
  const ratio = median(ratios);
  const failures = services.reduce((sum, service) => sum + service.failures, 0);
  const firstFailure = services.find((service) => service.firstFailure)?.firstFailure;
  const notMined = anchors.reduce((sum, anchor) => sum + anchor.failures, 0);
  return {
    measure: label,
    service: `${perSecond(median(services.map((service) => service.minedPerSecond)))}; ${failures} of ${total * services.length} failed${firstFailure ? ` (first: ${firstFailure})` : ""}`,
    anchor: `pre-signed eth_sendRawTransaction: ${perSecond(median(anchors.map((anchor) => anchor.minedPerSecond)))}${notMined > 0 ? ` (${notMined} not mined)` : ""}`,
    ratio,
    ratios,
    target: target > 0 ? `≥ ${target}, 0 failures` : "0 failures",
    met: (target === 0 || ratio >= target) && failures === 0,
  };
}

export async function launchRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  const ethersMs: number[] = [];
  const serviceMs: number[] = [];
  for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
    log(`launch latency ${repetition}/${REPETITIONS}: direct ethers ContractFactory.deploy(), then the service…`);
    ethersMs.push(await ethersDeployLatency(hre));
    serviceMs.push(await serviceLatency(hre));
  }
  const latencyRatios = serviceMs.map((value, index) => value / ethersMs[index]!);
  const rows: RatioRow[] = [
    {
      measure: `launch latency (accepted), ERC20, p50 of ${LATENCY_SAMPLES} sequential`,
      service: ms(median(serviceMs)),
      anchor: `ethers ContractFactory.deploy(): ${ms(median(ethersMs))}`,
      ratio: median(latencyRatios),
      ratios: latencyRatios,
      target: "≤ 1.0",
      met: median(latencyRatios) <= 1,
    },
  ];
  for (const [senders, total, target] of [
    [1, 100, 0.3],
    [10, 500, 0],
  ] as const) {
    const anchors: Throughput[] = [];
    const services: Throughput[] = [];
    for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
      log(`launch throughput ${repetition}/${REPETITIONS}, ${total} from ${senders} sender(s): pre-signed raw ingest, then the service…`);
      anchors.push(await rawIngestThroughput(hre, senders, total));
      services.push(await serviceThroughput(hre, senders, total));
    }
    const label = `launches mined/s, ${total} ERC20 fired at once from ${senders} sender${senders > 1 ? "s" : ""}`;
    rows.push(throughputRow(label, services, anchors, total, target));
  }
  // The same burst as a client sends it: over HTTP, into a server in this process (issue 28: at least 0.3 of raw ingest).
  const anchors: Throughput[] = [];
  const overHttp: Throughput[] = [];
  for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
    log(`HTTP launch throughput ${repetition}/${REPETITIONS}, 100 from 1 sender: pre-signed raw ingest, then POST /api/v1/tokens…`);
    anchors.push(await rawIngestThroughput(hre, 1, 100));
    overHttp.push(await httpThroughput(hre, 1, 100));
  }
  rows.push(
    throughputRow(
      "launches mined/s over HTTP (POST /api/v1/tokens?wait=mined, server in process), 100 ERC20 fired at once from 1 sender",
      overHttp,
      anchors,
      100,
      0.3,
    ),
  );
  return rows;
}
