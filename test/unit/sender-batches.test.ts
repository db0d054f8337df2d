import { expect } from "chai";

import type { EvmChain } from "../../src/chains/evm/chain.js";
import { InProcessSenderLock, senderLockKey } from "../../src/chains/evm/sender-lock.js";
import { BATCHES_PER_HOLD, MAX_BATCH, SenderBatches, type Handoff, type Queued } from "../../src/chains/evm/write/sender-batches.js";

const chain = { info: { chainId: 1 } } as EvmChain;
const SENDER = "0x00000000000000000000000000000000000000aa";
const key = senderLockKey(1, SENDER);

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Lets every promise callback that can run, run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

type Numbered = Handoff & { batch: number };

interface Run {
  jobs: number[];
  /** The batch before it in the same hold, if any. */
  before: number | undefined;
  /** Resolves its handoff's `finished`: its sends all answered. */
  finish(): void;
}

/**
 * Batches of numbered jobs under an in-process lock, each answered with its own number once its batch finishes; the
 * runner records every batch it is given, and hands each batch's number to the next.
 */
function recordedBatches(fail?: (batch: number) => Error | undefined) {
  const lock = new InProcessSenderLock();
  const runs: Run[] = [];
  const batches = new SenderBatches<number, number, Numbered>(lock, async (_chain, batch, before) => {
    const number = runs.length;
    const done = deferred();
    runs.push({ jobs: batch.map((entry) => entry.job), before: before?.batch, finish: done.resolve });
    const error = fail?.(number);
    if (error !== undefined) throw error;
    const finished = done.promise.then(() => {
      for (const entry of batch as Array<Queued<number, number>>) entry.resolve(entry.job);
    });
    return { finished, batch: number };
  });
  return { lock, runs, batches };
}

/** Submits `count` jobs while another holder keeps the lock, so they all queue; resolves once it is let go. */
async function queued(lock: InProcessSenderLock, batches: SenderBatches<number, number, Numbered>, count: number) {
  const holder = deferred();
  const held = lock.withLock(key, () => holder.promise);
  await settle();
  const answers = Array.from({ length: count }, (_, job) => batches.submit(chain, SENDER, job));
  for (const answer of answers) answer.catch(() => undefined);
  holder.resolve();
  await held;
  await settle();
  return answers;
}

/** Whether the lock can be taken now: a holder that gets it before `settle` finishes. */
async function lockFree(lock: InProcessSenderLock): Promise<boolean> {
  let got = false;
  const attempt = lock.withLock(key, async () => void (got = true));
  await settle();
  await settle();
  if (got) await attempt;
  else void attempt;
  return got;
}

describe("SenderBatches: batches of one sender's sends, in holds of the sender lock", function () {
  it("starts a hold's second batch once the first hands off, before its sends are answered, and keeps the lock until both are", async function () {
    const { lock, runs, batches } = recordedBatches();
    const answers = await queued(lock, batches, MAX_BATCH + 3);
    expect(runs.map((run) => run.jobs.length)).to.deep.equal([MAX_BATCH, 3]);
    expect(runs[1]!.before, "the second batch is handed the first").to.equal(0);

    runs[1]!.finish();
    await settle();
    let otherHolder = false;
    const other = lock.withLock(key, async () => void (otherHolder = true));
    await settle();
    expect(otherHolder, "the lock is held while the first batch's sends are unanswered").to.equal(false);
    runs[0]!.finish();
    await other;
    expect(otherHolder).to.equal(true);
    expect(await Promise.all(answers)).to.deep.equal(Array.from({ length: MAX_BATCH + 3 }, (_, job) => job));
  });

  it("takes at most BATCHES_PER_HOLD batches in one hold: the next batch waits for the next hold", async function () {
    const { lock, runs, batches } = recordedBatches();
    const answers = await queued(lock, batches, MAX_BATCH * BATCHES_PER_HOLD + 1);
    expect(runs.length).to.equal(BATCHES_PER_HOLD);
    for (const run of runs) run.finish();
    await settle();
    await settle();
    expect(runs.length, "a new hold takes the rest").to.equal(BATCHES_PER_HOLD + 1);
    expect(runs.at(-1)!.before, "a hold's first batch follows no batch").to.equal(undefined);
    expect(runs.at(-1)!.jobs).to.deep.equal([MAX_BATCH * BATCHES_PER_HOLD]);
    runs.at(-1)!.finish();
    expect((await Promise.all(answers)).length).to.equal(MAX_BATCH * BATCHES_PER_HOLD + 1);
    expect(await lockFree(lock)).to.equal(true);
  });

  it("answers a batch whose runner failed with its error, and lets the lock go once the batch before it finished", async function () {
    const { lock, runs, batches } = recordedBatches((batch) => (batch === 1 ? new Error("the node is down") : undefined));
    const answers = await queued(lock, batches, MAX_BATCH + 2);
    const failed = await Promise.allSettled(answers.slice(MAX_BATCH));
    expect(failed.map((answer) => (answer.status === "rejected" ? String(answer.reason) : answer.status))).to.deep.equal([
      "Error: the node is down",
      "Error: the node is down",
    ]);
    expect(await lockFree(lock), "the first batch's sends are still unanswered").to.equal(false);
    runs[0]!.finish();
    expect((await Promise.all(answers.slice(0, MAX_BATCH))).length).to.equal(MAX_BATCH);
  });
});
