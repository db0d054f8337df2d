// `npm run bench`: the service measured beside anchors run in the same process and the same run, printed as one
// markdown ratio table (issue 9), then wallet creation per core and the footprint of `hardhat serve` (issue 7).
// Speed is printed here, never asserted in a test. Progress goes to stderr, the tables to stdout.
// `npm run bench -- --no-footprint` leaves out the footprint of `serve` (about two minutes); `--only=balances,wallets`
// runs only the named sections of the ratio table (launches, balances, wallets, replay, anvil, rpc-cost, notifications) and
// nothing after it (notifications: issue 30's chain notifications on anvil, about 4 minutes); `--only=token-gas` only the deployment gas of each token option and the gas of batch mints (docs/tokens.md; a minute);
// `--only=bursts` only the memory `serve` keeps after bursts (slow readers, docs, 1,000 launches, into a simulated chain
// and into anvil; about 10 minutes); `--only=footprint` only the footprint of `serve` and its idle memory beside a
// Hardhat process with one simulated network (about 6 minutes);
// `--only=growth` only what history costs: memory and launch rate at 200, 2,000 and 12,000 launches (bench/growth.ts has
// its flags; not in the full bench, it takes a quarter of an hour).
import { rm } from "node:fs/promises";
import os from "node:os";

import hre from "hardhat";

import { anvilRows } from "./anvil.js";
import { balanceReadRows } from "./balance-reads.js";
import { formatBurstMemory, measureBurstMemory } from "./burst-memory.js";
import { GROWTH_NOTES, formatGrowth, growthOptions, growthRuns } from "./growth.js";
import { launchRows } from "./launches.js";
import { notificationRows } from "./notifications.js";
import { replayRows } from "./replay.js";
import { rpcCostRows } from "./rpc-cost.js";
import { batchMintGasRows, formatBatchMintGasTable, formatOptionCostTable, formatTokenGasTable, tokenGasRows } from "./token-gas.js";
import {
  formatIdleAgainstFloor,
  formatServeFootprint,
  measureHardhatFloor,
  measureServeFootprints,
  packedPackageProject,
} from "./serve-footprint.js";
import { REPETITIONS, formatRatioTable, machine } from "./support.js";
import { walletCreationTable } from "./wallet-creation.js";
import { walletHttpRows } from "./wallet-http.js";

const NOTES = `Notes on the method:
- Launch and HTTP rows run ${REPETITIONS} times, anchor and service alternating; they show medians, and the ratio of each
  repetition in brackets.
- Every chain figure is ethereum/sepolia simulated in-process by Hardhat's EDR (the factory \`serve\` uses), mining on send; each
  anchor gets a fresh chain of the same kind from the same factory.
- Launches are ERC20 deployments (the shipped ServiceERC20, about 5 KB of deployment data). The service's go through
  \`service.operations.launch\` with the embedded SQLite store in a fresh data directory, as \`serve\` runs them, and count as
  mined when the operation tracker recorded them mined. The raw-ingest anchor sends the same deployments, signed beforehand
  with ethers (gas: the node's estimate + 20 %, as the service does), all at once, and counts them mined when every receipt
  exists. One warm-up launch precedes each timed batch.
- Launch latency is "accepted": the service's launch resolving (record written, node accepted the transaction) beside ethers'
  \`ContractFactory.deploy()\` resolving, through a BrowserProvider on the chain's EIP-1193 connection as the service's own;
  5 warm-up launches, then the p50 of 40 one after another.
- Balance reads call \`service.getBalances\` in this process with a cached symbol and decimals per contract (after 20 warm-up
  reads), of two kinds: the same holder and tokens again and again, where equal reads at one chain state share one answer
  (nothing is mined meanwhile, so after the first read every read is answered without the node), and a new holder every
  read (a random address), where every read asks the node. The per-contract path is the fallback for nodes that refuse the
  reader's creation-code \`eth_call\`. RSS is this process's, across reads of new holders, after a full garbage collection
  before and after.
- HTTP: the servers run one at a time; autocannon (POST with a JSON body, keep-alive) runs in a child process of its own.
  The service, the static anchor and one naive anchor run in this process; the other naive anchor runs as an application
  runs it, in a Node process of its own with plain ethers: in this process ethers has been given EDR's native secp256k1
  and keccak by hardhat-ethers, which makes Wallet.createRandom() several times faster than it is in an application.
  Every anchor parses the JSON body with express.json(). The service checks the x-api-key header, has its rate limit off,
  and formats its request log lines at the default level into a sink instead of a terminal.
- Anvil: ethereum/sepolia live on a real anvil node (\`--chain-id 11155111\`, mining on send), a fresh node per run. The
  service's launches go through \`service.operations.launch\` with the SQLite store, fired at once from one sender, counted
  mined when the tracker recorded them mined; the anchor sends the same deployments, signed beforehand, into a fresh
  node as one JSON-RPC batch of \`eth_sendRawTransaction\` in nonce order, and reads receipts in batches (asking anvil for
  a block while some are missing: mining on send, anvil mines what is ready into one block when a transaction comes, and
  what does not fit in it waits for the next transaction) until every one exists; a second row sends them one by one, each once the node answered the one before. Before the service's, two warm-up launches at once (a burst's path: the signing thread starts once per
  process) and the thread up; before the anchor's, one warm-up transaction. A first round of both, logged and not
  counted, warms up the process (V8 compiles a burst path's functions over its first bursts). The CPU row adds the CPU
  time this process and the anvil node used while each side was timed (from /proc: Linux only). The failover rows launch
  one after another through two endpoints to one node, the first a TCP relay that is cut (refusing connections) before
  the timed launches, beside the same with it up. These rows run 5 times, anchor and service alternating.
- Replay: the journal is written by the simulated chain itself (its faucet grants and the 1,000 signed launches it broadcast,
  the lines \`serve\` journals), not by 1,000 launches through the service, to keep the bench short; the replay time is the
  figure \`serve\` prints at start ("replayed in … s"). Its anchor sends the same raw transactions one by one into a fresh chain.
- Notifications: the HTTP service in this process (SQLite), its ethereum/sepolia endpoint a counting relay in front of a
  real anvil started with \`--no-mining\`: the bench mines every block itself (\`evm_mine\`) and takes the moment that call
  returned as the block's time (anvil's timestamps are whole seconds). 100 random addresses each get an address
  subscription (every asset, 1 confirmation); one webhook (\`chain.activity\`) posts to a receiver in this process that
  notes each arrival's time. The transfers, signed beforehand with ethers (10 of the watched addresses sending, to the
  others in turn), go straight to anvil in JSON-RPC batches, not through the service. The lag is an event's arrival
  minus its block's time, split at the delivery's createdAt (when the scan's commit queued it); its anchor is what
  reading the head once per poll interval costs alone (half an interval on average). Backfills: a subscription made
  with fromBlock at the first transfer's block, timed from its POST until GET shows backfillNext null (asked every
  10 ms; the next timed once its webhook deliveries arrived), beside eth_getLogs over the same blocks straight to anvil,
  the faster of 500- and 2,000-block ranges (an address watching native currency: with the blocks and their
  transactions read too, as no log shows native currency), alternating, 3 times each. Calls per
  block: 30 blocks of one transfer each, one every 500 ms, with 1 subscription and then with 100, counted through the
  relay until the last block's events arrived.`;

function log(line: string): void {
  console.error(`[bench] ${line}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const where = machine();
  log(where);
  const only = process.argv
    .find((argument) => argument.startsWith("--only="))
    ?.slice("--only=".length)
    .split(",");
  const sections = {
    launches: launchRows,
    balances: balanceReadRows,
    wallets: walletHttpRows,
    replay: replayRows,
    anvil: anvilRows,
    "rpc-cost": rpcCostRows,
    notifications: notificationRows,
  };
  const rows = [];
  for (const [name, section] of Object.entries(sections))
    if (only === undefined || only.includes(name)) rows.push(...(await section(hre, log)));
  console.log(`hardhat-token-service benchmark, ${new Date().toISOString().slice(0, 10)} — ${where}\n`);
  if (rows.length > 0) {
    console.log(formatRatioTable(rows));
    console.log(`\n${NOTES}\n`);
  }
  if (only === undefined || only.includes("token-gas")) {
    log("deployment gas per token option…");
    console.log("Deployment gas per token option (ethereum/sepolia simulated, each option alone):\n");
    const gasRows = await tokenGasRows(hre, log);
    console.log(`${formatTokenGasTable(gasRows)}\n`);
    console.log(`The README's table, what each option adds:\n\n${formatOptionCostTable(gasRows)}\n`);
    log("batch mint gas…");
    console.log("Batch mint gas (ethereum/sepolia simulated, to fresh holders):\n");
    console.log(`${formatBatchMintGasTable(await batchMintGasRows(hre, log))}\n`);
  }
  if (only?.includes("growth")) {
    const options = growthOptions(process.argv);
    log(`growth: ${options.targets.join(", ")} at ${options.counts.join(", ")} launches (anvil: ${options.anvilCounts.join(", ")})…`);
    console.log("What history costs (memory and launch rate as launches accumulate):\n");
    console.log(`${formatGrowth(await growthRuns(options, log))}\n\n${GROWTH_NOTES}\n`);
  }
  if (only === undefined || only.includes("bursts")) {
    for (const target of ["simulated", "anvil"] as const) {
      log(`memory after bursts, ${target} (about 5 minutes)…`);
      console.log(`\n${formatBurstMemory(await measureBurstMemory(target, log))}\n`);
    }
  }
  if (only === undefined) {
    log("wallet creation per core…");
    console.log("Wallet creation in one thread (per core):\n");
    console.log(walletCreationTable());
  }

  if (only === undefined ? process.argv.includes("--no-footprint") : !only.includes("footprint")) return;
  // The service as an operator starts it, in its own process: start-up time and the memory it keeps.
  // Twice: from this repository (TypeScript compiled at run time, what developers of this project start) and
  // as users get it (the packed package's dist/ in a new project). The targets are about the second.
  log("serve footprint, repository…");
  console.log(`\n${formatServeFootprint(await measureServeFootprints(3))}`);
  log("serve footprint, packed package…");
  const project = await packedPackageProject();
  try {
    const packaged = await measureServeFootprints(3, { projectDir: project });
    console.log(`\n${formatServeFootprint(packaged)}`);
    log("the floor: a Hardhat process with one simulated network, in the same project…");
    console.log(`\nIdle memory beside its anchor:\n\n${formatIdleAgainstFloor(packaged, await measureHardhatFloor(3, project))}`);
  } finally {
    await rm(project, { recursive: true, force: true });
  }
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  console.log(`\nWhole bench: ${((performance.now() - started) / 1000).toFixed(0)} s; load average at the end ${load}.`);
}

await main();
