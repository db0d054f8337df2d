// Measures the core on this machine and prints a markdown table: `npm run bench`.
// Wallet creation runs in one thread (so its rate is per core); chain figures use in-process EDR
// chains and, for comparison, a real JSON-RPC node over HTTP on localhost.
import { rm } from "node:fs/promises";
import os from "node:os";

import { Wallet as EthersWallet } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../src/api.js";
import { formatServeFootprint, measureServeFootprints, packedPackageProject } from "./serve-footprint.js";
import type { Wallet } from "../src/wallets.js";

interface Row {
  measure: string;
  value: string;
  note?: string;
}

const rows: Row[] = [];
let peakRss = process.memoryUsage().rss;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** Calls `work` repeatedly for about `ms` milliseconds; returns calls per second. */
function ratePerSecond(work: () => unknown, ms: number): number {
  for (let i = 0; i < 50; i++) work(); // warm-up: JIT, lazy tables
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 20; i++) work();
    calls += 20;
    elapsed = performance.now() - start;
  }
  return (calls / elapsed) * 1000;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latencies(count: number, work: (index: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await work(index);
    samples.push(performance.now() - start);
    sampleRss();
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")} /s`;

function walletCreation(service: TokenService): void {
  const ethereum = ratePerSecond(() => service.createWallet({ chain: "ethereum", network: "mainnet" }), 1500);
  const bitcoin = ratePerSecond(() => service.createWallet({ chain: "bitcoin", network: "mainnet" }), 1500);
  const taproot = ratePerSecond(() => service.createWallet({ chain: "bitcoin", network: "mainnet", addressType: "p2tr" }), 1500);
  const ethersMnemonic = ratePerSecond(() => EthersWallet.createRandom(), 1500);
  rows.push(
    { measure: "wallet:create ethereum (per core)", value: perSecond(ethereum), note: "CSPRNG key, no mnemonic" },
    { measure: "wallet:create bitcoin p2wpkh (per core)", value: perSecond(bitcoin) },
    { measure: "wallet:create bitcoin p2tr (per core)", value: perSecond(taproot) },
    {
      measure: "ethers Wallet.createRandom() (per core)",
      value: perSecond(ethersMnemonic),
      note: `mnemonic + HD derivation; ours is ${(ethereum / ethersMnemonic).toFixed(0)}x faster`,
    },
  );
  sampleRss();
}

async function fundedOwner(service: TokenService, pair: { chain: string; network: string }): Promise<Wallet> {
  const owner = service.createWallet(pair);
  await service.faucet({ ...pair, address: owner.address, amount: (10n ** 24n).toString() });
  return owner;
}

async function launchErc20s(
  service: TokenService,
  pair: { chain: string; network: string },
  owner: Wallet,
  count: number,
): Promise<string[]> {
  const launched = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      service.launchToken({
        ...pair,
        type: "erc20",
        token: { name: `Bench ${index}`, symbol: `B${index}`, initialSupply: "1000" },
        sender: owner.address,
        privateKey: owner.privateKey,
      }),
    ),
  );
  await Promise.all(launched.map((launch) => service.waitForTransaction({ ...pair, transactionHash: launch.transactionHash })));
  return launched.map((launch) => launch.contractAddress);
}

async function balanceReads(service: TokenService, label: string, pair: { chain: string; network: string }, owner: Wallet): Promise<void> {
  const contracts = await launchErc20s(service, pair, owner, 3);
  await service.getBalances({ ...pair, address: owner.address, erc20TokenContractAddresses: contracts }); // caches symbols and decimals
  const reads = await latencies(300, () =>
    service.getBalances({ ...pair, address: owner.address, erc20TokenContractAddresses: contracts }),
  );
  rows.push({
    measure: `balance read, native + 3 ERC20, ${label} (p50 / p95)`,
    value: `${ms(reads.p50)} / ${ms(reads.p95)}`,
    note: "sequential reads, metadata cached",
  });
}

async function launches(service: TokenService, label: string, pair: { chain: string; network: string }): Promise<void> {
  const owner = await fundedOwner(service, pair);
  const sequential = await latencies(50, (index) =>
    service.launchToken({
      ...pair,
      type: "erc20",
      token: { name: `Seq ${index}`, symbol: `S${index}` },
      sender: owner.address,
      privateKey: owner.privateKey,
    }),
  );
  rows.push({
    measure: `launch ERC20 send → accepted, ${label} (p50 / p95)`,
    value: `${ms(sequential.p50)} / ${ms(sequential.p95)}`,
    note: "validate, estimate, sign, broadcast",
  });

  // Throughput: many launches in flight; one sender is serialized by its nonce lock, several senders are not.
  for (const senders of [1, 10]) {
    const owners = await Promise.all(Array.from({ length: senders }, () => fundedOwner(service, pair)));
    const total = 100;
    const start = performance.now();
    const sent = await Promise.all(
      Array.from({ length: total }, (_, index) => {
        const from = owners[index % senders]!;
        return service.launchToken({
          ...pair,
          type: "erc721",
          token: { name: `T${index}`, symbol: `T${index}` },
          sender: from.address,
          privateKey: from.privateKey,
        });
      }),
    );
    const accepted = performance.now() - start;
    await Promise.all(sent.map((launch) => service.waitForTransaction({ ...pair, transactionHash: launch.transactionHash })));
    const mined = performance.now() - start;
    sampleRss();
    rows.push({
      measure: `launch throughput, ${total} launches from ${senders} sender${senders > 1 ? "s" : ""}, ${label}`,
      value: perSecond((total / accepted) * 1000),
      note: `accepted; ${perSecond((total / mined) * 1000)} including mining`,
    });
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const service = await createTokenService({ hre, env: {} });
  rows.push({ measure: "RSS after start (Hardhat runtime loaded)", value: mib(process.memoryUsage().rss) });
  walletCreation(service);

  const simulated = { chain: "ethereum", network: "sepolia" };
  const owner = await fundedOwner(service, simulated);
  await balanceReads(service, "simulated EDR", simulated, owner);
  await launches(service, "simulated EDR", simulated);

  // The same over HTTP JSON-RPC: a Hardhat node on localhost configured as a live endpoint.
  const server = await hre.network.createServer({ override: { chainId: 11155111 } }, "127.0.0.1", 0);
  const { address, port } = await server.listen();
  const live = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": `http://${address}:${port}` } });
  const liveOwner = live.createWallet(simulated);
  await fetch(`http://${address}:${port}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "hardhat_setBalance",
      params: [liveOwner.address, `0x${(10n ** 24n).toString(16)}`],
    }),
  });
  await balanceReads(live, "JSON-RPC over HTTP (localhost)", simulated, liveOwner);

  sampleRss();
  rows.push({ measure: "peak RSS sampled", value: mib(peakRss), note: "two EDR chains and one local node in this process" });
  await Promise.all([service.close(), live.close()]);
  await server.close();

  console.log(
    `hardhat-token-service benchmark — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "cpu"}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  console.log("| measure | value | note |");
  console.log("|---|---|---|");
  for (const row of rows) console.log(`| ${row.measure} | ${row.value} | ${row.note ?? ""} |`);

  // The service as an operator starts it, in its own process: start-up time and the memory it keeps.
  // Twice: from this repository (TypeScript compiled at run time, what developers of this project start) and
  // as users get it (the packed package's dist/ in a new project). The targets are about the second.
  console.log(`\n${formatServeFootprint(await measureServeFootprints(3))}`);
  const project = await packedPackageProject();
  try {
    console.log(`\n${formatServeFootprint(await measureServeFootprints(3, { projectDir: project }))}`);
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}

await main();
