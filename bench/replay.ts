// Restart cost of a simulated chain: a journal holding 1,000 launches (written by SimulatedChain itself, as `serve`
// and the tasks write it in their data directory), replayed the way a restart replays it, beside the same raw
// transactions sent one by one into a fresh chain.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { SimulatedChain } from "../src/chains/evm/simulated-chain.js";
import { hardhatSimulatedChains } from "../src/hardhat/simulated-chains.js";
import { PAIR_INFO, freshChain, presignedDeployments, randomSigner, setBalance } from "./deployments.js";
import { seconds, type RatioRow } from "./support.js";

const LAUNCHES = 1_000;
const SENDERS = 10;
const FUNDS = 10n ** 24n;

export async function replayRows(hre: HardhatRuntimeEnvironment, log: (line: string) => void): Promise<RatioRow[]> {
  const factory = hardhatSimulatedChains(hre);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-replay-"));
  const journalPath = path.join(dataDir, "chains", `${PAIR_INFO.chain}-${PAIR_INFO.network}.jsonl`);
  try {
    log(`replay: signing ${LAUNCHES.toLocaleString("en-US")} launches…`);
    const senders = Array.from({ length: SENDERS }, () => randomSigner());
    const signing = await freshChain(hre);
    const signed = await presignedDeployments(signing, senders, LAUNCHES / SENDERS).finally(() => signing.close());

    log("replay: journaling them through a simulated chain…");
    // No checkpoint: this measures a replay of the whole journal (the growth section measures restarts from checkpoints).
    const writer = await SimulatedChain.start(factory, PAIR_INFO, { blockTimeSeconds: 0, journalPath, checkpointEntries: 0 });
    for (const sender of senders) await writer.fund(sender.address, FUNDS);
    // One at a time, as the sender lock sends them: the journal keeps each sender's nonces in order.
    for (const raw of signed) await writer.broadcast(raw);
    await writer.close();

    log("replay: restarting the chain from its journal…");
    const restarted = await SimulatedChain.start(factory, PAIR_INFO, { blockTimeSeconds: 0, journalPath, checkpointEntries: 0 });
    const replay = restarted.replay!;
    const nonces = await Promise.all(senders.map((sender) => restarted.provider.getTransactionCount(sender.address)));
    await restarted.close();
    const replayed = nonces.reduce((sum, nonce) => sum + nonce, 0);

    log("replay: the same transactions into a fresh chain…");
    const anchor = await freshChain(hre);
    let anchorMs: number;
    try {
      await Promise.all(senders.map((sender) => setBalance(anchor, sender.address, FUNDS)));
      const start = performance.now();
      for (const raw of signed) await anchor.request("eth_sendRawTransaction", [raw]);
      anchorMs = performance.now() - start;
    } finally {
      await anchor.close();
    }

    const perThousand = (replay.milliseconds / replayed) * 1000;
    return [
      {
        measure: `restart replay per 1,000 journaled launches (${LAUNCHES.toLocaleString("en-US")} ERC20 launches from ${SENDERS} senders)`,
        service: `${seconds(perThousand)} (${replay.entries} entries, ${(replay.bytes / 1024).toFixed(0)} KiB; ${replayed} transactions back)`,
        anchor: `the same raw transactions sent one by one into a fresh chain: ${seconds((anchorMs / LAUNCHES) * 1000)}`,
        ratio: replay.milliseconds / anchorMs,
        target: "≤ 0.3 s",
        met: replayed === LAUNCHES && perThousand <= 300,
      },
    ];
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
