import { randomUUID } from "node:crypto";

import type { TransactionReceipt } from "ethers";

import { ErrorCode, isTokenServiceError } from "../../domain/errors.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import { mintedTokenIds } from "../../chains/evm/write/mint.js";
import { CanonicalBlocks } from "./canonical-blocks.js";
import { ChainFollowers, PassReads, PoolChecks, type PoolState } from "./pass-reads.js";
import {
  RETRY_AFTER_ERROR_MS,
  currentTransaction,
  decide,
  replacementDue,
  type BroadcastOutcome,
  type ChainObservation,
  type Decision,
  type DecidePolicy,
  type Observation,
} from "./decide.js";
import { storedRawTransaction } from "./stored-transactions.js";
import {
  GapFiller,
  nonceSteps,
  type NonceFiller,
  type NonceHealing,
  type NonceHealingKind,
  type NonceHealingObserver,
} from "./nonce-healing.js";
import { isUnderpriced, translateProviderError } from "../../chains/evm/provider-errors.js";
import { refusalOf } from "../../chains/evm/node-refusals.js";
import type { LeasedOperation, OperationChange, OperationRecord, OperationStore } from "./types.js";

/** The tracker's settings: how records are judged (`DecidePolicy`: confirmations, drop and reorg windows), and its pace. */
export interface TrackerSettings extends DecidePolicy {
  /** How long a tracker holds a record; another replica may take it over afterwards. */
  leaseMs: number;
  /** How often an idle tracker asks the store for due records. */
  idlePollMs: number;
  /**
   * Follow only the records this process made (a task beside a running service leaves the service's records to it);
   * what it leaves unfinished, the service's tracker follows.
   */
  ownRecordsOnly?: boolean;
}

export const DEFAULT_TRACKER_SETTINGS: TrackerSettings = {
  confirmations: 1,
  dropAfterMs: 10 * 60_000,
  reorgWatchMs: 60 * 60_000,
  behindGraceMs: 30_000,
  leaseMs: 30_000,
  idlePollMs: 250,
};

const BATCH = 50;
/** How often a refused send's `failed` is written again while the store refuses it. */
const REFUSAL_RETRY_MS = 1_000;
const BUSY_PASS_INTERVAL_MS = 20;
/** Records accepted here are looked at once no other was accepted for this long (see `lookSoon`). */
const QUIET_MS = 5;

type ChainFor = (record: OperationRecord) => Promise<EvmChain>;

/** How the tracker heals nonces: who is told, what else may fill a gap, and the sender lock such a fill takes. */
export interface TrackerHealing {
  /** Told of every healing (the HTTP service logs and counts them). */
  observe?: NonceHealingObserver;
  /** Sources of transactions that can fill a nonce gap, after the service's own records (a pre-signed cancel). */
  fillers?: readonly NonceFiller[];
  /** The sender lock every send takes; a filler's transaction is sent under it. Default: none (no filler runs). */
  withSenderLock?<T>(chain: EvmChain, sender: string, work: () => Promise<T>): Promise<T>;
  /**
   * A record about to be said stuck (outbid, no step signed ahead above it): replaces it now if the service holds its
   * sender's key (a held wallet signs its replacements when they are needed); answers whether it sent one.
   */
  replaceHeld?(record: LeasedOperation): Promise<boolean>;
  /** What the Bitcoin backend says of a Bitcoin record's transaction (sent again when it knows it not). */
  observeBitcoin?(record: LeasedOperation): Promise<Observation>;
}

/** A record in one pass: where it is, what was seen of it, and, once judged, the change to write. */
interface Look {
  record: LeasedOperation;
  chain?: EvmChain;
  observation?: Observation;
  change?: OperationChange;
  /** A second move written after `change` in the same commit (see `Decision`). */
  then?: OperationChange;
}

/** A record waiting without a receipt, with the sender and nonce it holds. */
function waitingOf(look: Look): { chain: EvmChain; sender: string; nonce: number } | undefined {
  const { record, chain, observation } = look;
  if (chain === undefined || observation?.kind !== "chain" || observation.receipt !== null) return undefined;
  if ((record.status !== "signed" && record.status !== "pending") || record.sender === null || record.nonce === null) return undefined;
  return { chain, sender: record.sender, nonce: record.nonce };
}

/** Neither in a block nor in the node's pool. */
const isMissing = (observation: Observation | undefined) =>
  observation?.kind === "chain" && observation.receipt === null && !observation.inPool;

/** Whether a look found the record's transaction known to the node by hash but held nowhere it could be included. */
const heldNowhereOf = (look: Look): true | undefined =>
  look.observation?.kind === "chain" && look.observation.heldNowhere ? true : undefined;

/** A healing of this record's nonce, as the tracker reports it. */
function healingOf(record: OperationRecord, kind: NonceHealingKind, detail: string): NonceHealing | undefined {
  if (record.sender === null || record.nonce === null) return undefined;
  return {
    kind,
    chain: record.chain,
    network: record.network,
    sender: record.sender,
    nonce: record.nonce,
    operationId: record.id,
    ...(record.transactionHash !== null ? { transactionHash: record.transactionHash } : {}),
    detail,
  };
}

/** How far another process's clock may be ahead of this one's, where a record's write time says when it was sent. */
const OTHER_CLOCKS_MS = 1_000;

/** How many times the tracker sends a transaction that nodes answer "already known", looking for one that lacks it. */
const SENDS_WHILE_KNOWN = 3;

/**
 * Sends a raw transaction; how the node answered (a refusal typed, never with the node's own text). The tracker sends
 * what a read just said the node lacks (or a new step): "already known" then came from another node behind the same URL
 * (a load balancer whose nodes do not share a pool), and the one that lacks it, maybe the one producing blocks, gets it
 * only if asked. So it is sent again, a few times, until a node takes it; a later refusal keeps the "already known".
 */
async function sendRaw(chain: EvmChain, rawTransaction: string): Promise<BroadcastOutcome> {
  const first = await sendOnce(chain, rawTransaction);
  for (let sends = 1; first.kind === "already-known" && sends < SENDS_WHILE_KNOWN; sends++) {
    const again = await sendOnce(chain, rawTransaction);
    if (again.kind === "accepted") return again;
    if (again.kind === "refused") break;
  }
  return first;
}

async function sendOnce(chain: EvmChain, rawTransaction: string): Promise<BroadcastOutcome> {
  try {
    await chain.broadcast(rawTransaction);
    return { kind: "accepted" };
  } catch (raw) {
    if (isAlreadyKnown(raw)) return { kind: "already-known" };
    // Only the typed message is stored: the node's own text may quote the endpoint with its credentials.
    const error = translateProviderError(raw, `the ${chain.info.chain}/${chain.info.network} node`);
    return {
      kind: "refused",
      error: { code: error.code, message: error.message },
      transient: isTransient(error),
      ...(isUnderpriced(raw) ? { underpriced: true } : {}),
      ...(refusalOf(raw) === "nonce-too-low" ? { nonceUsed: true } : {}),
    };
  }
}

/** Upstream trouble (down, slow, failing) says nothing about the transaction: try again later. */
export function isTransient(error: unknown): boolean {
  return isTokenServiceError(error, "UPSTREAM_UNAVAILABLE") || isTokenServiceError(error, "UPSTREAM_TIMEOUT");
}

/** The node already has this very transaction. Checked on the raw error, whose text is not stored. */
export const isAlreadyKnown = (error: unknown) => refusalOf(error) === "already-known";

/**
 * Follows every unfinished operation in the store to a final state, whichever process recorded it:
 * it leases due records (one tracker per record at a time), asks the node, and writes what changed.
 * A `signed` record the node does not know is broadcast from its raw form; a `pending` one the node
 * lost is re-broadcast, then `dropped` after `dropAfterMs`; a live `mined` one whose block left the
 * canonical chain goes back to `pending`. Nonces heal (nonce-healing.ts): a record whose nonce another
 * transaction took ends `failed` (NONCE_TAKEN), a sender's transactions are sent again in nonce order,
 * and a nonce the node lacks below one that waits is filled where anything can fill it.
 */
export class OperationTracker {
  readonly owner = `tracker-${randomUUID()}`;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** A kick that came while a pass ran: the loop looks again at once instead of sleeping. */
  private kicked = false;
  /** The records accepted here are looked at by the next pass before they fall due (see `lookSoon`). */
  private lookEarly = false;
  private soonTimer: NodeJS.Timeout | undefined;
  /** When the records accepted since the last early look are looked at, at the latest. */
  private soonDeadline: number | undefined;
  private readonly waiters = new Map<string, Set<(record?: OperationRecord) => void>>();
  private readonly canonicalBlocks = new CanonicalBlocks();
  /** One head follower per live chain: heads, block hashes and receipts read per block, not per record. */
  private readonly followers = new ChainFollowers((chain, fromBlock) => this.reorged(chain, fromBlock));
  private readonly poolChecks = new PoolChecks();
  private kickTimer: NodeJS.Timeout | undefined;
  private kickAt = Infinity;
  /** Records this process is broadcasting right now: the tracker leaves them to the request until it returns. */
  private readonly broadcasting = new Set<string>();
  /** Refused sends whose `failed` is still being written (see writeRefusal). */
  private readonly refusing = new Set<string>();
  /** Records whose broadcast the node accepted here (answered `pending`); the tracker writes that state at its first look. */
  private readonly accepted = new Set<string>();
  /** Records this process made, for a tracker that follows only those. */
  private readonly own = new Set<string>();

  private readonly gaps: GapFiller;

  constructor(
    private readonly store: OperationStore,
    private readonly chainFor: ChainFor,
    private readonly settings: TrackerSettings,
    private readonly healing: TrackerHealing = {},
    /** The clock records are judged by (drop and reorg windows); tests pass their own. */
    private readonly now: () => number = Date.now,
    /** How many blocks a pending transaction of the record's pair waits before it is replaced. */
    private readonly replaceAfterBlocks: (record: OperationRecord) => number = () => Infinity,
  ) {
    const withSenderLock = healing.withSenderLock;
    this.gaps = new GapFiller({
      store,
      // A filler's transaction takes a nonce a send could take: without the lock, none is sent.
      fillers: withSenderLock === undefined ? [] : (healing.fillers ?? []),
      withSenderLock: withSenderLock ?? ((_chain, _sender, work) => work()),
      send: async (chain, raw) => {
        const outcome = await sendRaw(chain, raw);
        if (outcome.kind !== "refused") return outcome.kind;
        return outcome.nonceUsed ? "nonce-used" : "refused";
      },
      report: (healing) => this.report(healing),
    });
  }

  start(): void {
    this.stopped = false;
    if (this.running === undefined && !this.settings.ownRecordsOnly) {
      // The records whose reorg watch a follower took over in an earlier process are looked at once: this process's
      // followers know no block yet (nor what happened while none ran). They take the watches over again.
      void this.store.recheckWatched().catch(() => undefined);
    }
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** Looks at due records now (or in `afterMs`, when a record falls due) instead of at the next idle poll. */
  kick(afterMs = 0): void {
    if (afterMs <= 0) return this.wakeUp();
    // Kicks coalesce: a burst of launches wakes the tracker once, and that pass takes them all.
    const at = Date.now() + afterMs;
    if (this.kickTimer !== undefined && this.kickAt <= at) return;
    clearTimeout(this.kickTimer);
    this.kickAt = at;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      this.wakeUp();
    }, afterMs).unref();
  }

  /**
   * Looks at the records this process just saw accepted before they fall due: once sends pause (QUIET_MS without
   * another: a burst's end), or `withinMs` after the first of them at the latest. A burst is taken in few passes, and
   * its last record does not wait for its check time.
   */
  lookSoon(withinMs: number): void {
    const now = Date.now();
    this.soonDeadline ??= now + withinMs;
    clearTimeout(this.soonTimer);
    this.soonTimer = setTimeout(
      () => {
        this.soonTimer = undefined;
        this.soonDeadline = undefined;
        this.lookEarly = true;
        this.wakeUp();
      },
      Math.max(0, Math.min(now + QUIET_MS, this.soonDeadline) - now),
    ).unref();
  }

  private wakeUp(): void {
    if (this.wake !== undefined) this.wake();
    else this.kicked = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await this.running;
    clearTimeout(this.kickTimer);
    clearTimeout(this.soonTimer);
    // What this process held (records it was broadcasting, a pass cut short) goes to the other trackers now, not at lease end.
    await this.store.releaseLeases(this.owner).catch(() => undefined);
  }

  /** Resolves with the record as this process wrote it when it changes it, or with nothing after `ms`. */
  changed(id: string, ms: number): Promise<OperationRecord | undefined> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, waiters);
      const done = (record?: OperationRecord) => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(id);
        resolve(record);
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Runs `send` with the record left alone by this tracker; other processes' trackers keep off through its insert lease. */
  async whileBroadcasting<T>(id: string, send: () => Promise<T>): Promise<T> {
    this.broadcasting.add(id);
    try {
      const sent = await send();
      this.accepted.add(id);
      this.follow(id);
      return sent;
    } finally {
      this.broadcasting.delete(id);
    }
  }

  /**
   * Writes what a refused send's request learned (its record ends `failed`) before the caller is told nothing was done.
   * When the store refuses that write too (the same full disk), this tracker keeps off the record, which would otherwise
   * be sent from its stored raw form once room comes back, and the write is tried again each second until it holds.
   */
  async writeRefusal(id: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
      return;
    } catch {
      // Kept off, and tried again below.
    }
    this.broadcasting.add(id);
    this.refusing.add(id);
    const done = () => {
      this.broadcasting.delete(id);
      this.refusing.delete(id);
    };
    const again = () =>
      void write().then(done, () => {
        // A stopped tracker follows nothing: the record stays `signed` for the next start (see docs/operations.md).
        if (this.stopped) done();
        else setTimeout(again, REFUSAL_RETRY_MS).unref();
      });
    setTimeout(again, REFUSAL_RETRY_MS).unref();
  }

  /** Whether the record is a refused send's whose `failed` the store has not taken yet: not an answer to replay. */
  refusalPending(id: string): boolean {
    return this.refusing.has(id);
  }

  /**
   * Whether the record is one this process is broadcasting, or saw accepted and has not looked at since: nothing has
   * changed it since it was written `signed` (its lease keeps other processes off), so it is not final.
   */
  notLookedAt(id: string): boolean {
    return this.broadcasting.has(id) || this.accepted.has(id);
  }

  /** Counts the record among this process's own (see `ownRecordsOnly`) until it is final. */
  follow(id: string): void {
    // Kept only where it filters: a service's tracker follows every record, and another replica may finish this one.
    if (this.settings.ownRecordsOnly) this.own.add(id);
  }

  /** How many records each of the tracker's in-memory sets holds: records in flight only, never history (tests). */
  retained(): { waiters: number; broadcasting: number; accepted: number; own: number } {
    return { waiters: this.waiters.size, broadcasting: this.broadcasting.size, accepted: this.accepted.size, own: this.own.size };
  }

  /** What the head followers that took over reorg watches keep (see ChainFollowers.retained; tests). */
  following(): ReturnType<ChainFollowers["retained"]> {
    return this.followers.retained();
  }

  notify(id: string, record?: OperationRecord): void {
    for (const waiter of [...(this.waiters.get(id) ?? [])]) waiter(record);
  }

  /** One pass over the due records; answers how many it looked at. */
  async runOnce(): Promise<number> {
    const early = this.lookEarly && this.accepted.size > 0 ? new Set(this.accepted) : undefined;
    this.lookEarly = false;
    const due = await this.store.leaseDueOperations(this.owner, this.settings.leaseMs, BATCH, {
      skip: this.broadcasting,
      ...(early !== undefined ? { early } : {}),
      ...(this.settings.ownRecordsOnly ? { only: this.own } : {}),
    });
    if (due.length === 0) return 0;
    // One head per chain, and one nonce count per sender, a pass: the records of a burst are looked at together. A pass
    // that looks at records just accepted here reads the head now (their transactions may be in a block already).
    const fresh = due.some((record) => this.accepted.has(record.id));
    const pass = new PassReads(this.settings.confirmations, this.followers, fresh);
    const looks = await Promise.all(due.map((record) => this.look(record, pass)));
    await this.markNoncesTaken(looks, pass);
    const healings = new Map<string, NonceHealing>();
    const broadcasts: Look[] = [];
    await Promise.all(
      looks.map(async (look) => {
        if (look.change !== undefined || look.observation === undefined) return;
        const decision = decide(look.record, look.observation, this.settings, this.now());
        if (this.heldMayReplace(look, decision) && (await this.replacedHeld(look.record))) {
          // Sent in its place, and the record follows it now: looked at again after a poll interval.
          look.change = { checkInMs: look.chain?.pollingIntervalMs ?? RETRY_AFTER_ERROR_MS };
        } else if ("change" in decision) {
          look.change = decision.change;
          look.then = decision.then;
        } else if (decision.action === "broadcast") broadcasts.push(look);
        else if (decision.action === "replace")
          // A step of its own ladder at its own nonce: no gap of the sender's is filled by it, so it is sent on its own.
          look.change = await this.replace(look.record, look.chain!, decision.transactionHash, pass, decision.lost).then(
            (observation) => {
              if (decision.lost && observation.kind === "replaced" && observation.outcome.kind !== "refused") {
                const healing = healingOf(
                  look.record,
                  "replaced-lost",
                  `the node lost it and would not take it again: replaced by ${decision.transactionHash}`,
                );
                if (healing !== undefined) healings.set(look.record.id, healing);
              }
              return this.decision(look.record, observation);
            },
            () => this.decision(look.record, { kind: "node-error" }),
          );
        else
          look.change = await this.grant(look.record, look.chain!).then(
            (observation) => this.decision(look.record, observation),
            () => this.decision(look.record, { kind: "node-error" }),
          );
      }),
    );
    await this.sendInOrder(looks, broadcasts, pass, healings);
    // Each look's change, and its second move right after it (the store keeps the lease until a record's last change).
    const changes = looks.flatMap((look) => {
      const { id } = look.record;
      const first = { id, change: look.change ?? { checkInMs: RETRY_AFTER_ERROR_MS }, look };
      return look.then === undefined ? [first] : [first, { id, change: look.then, look }];
    });
    for (const { record, change } of looks) {
      if (change?.error?.code !== ErrorCode.NONCE_TAKEN) continue;
      const healing = healingOf(record, "nonce-taken", `settled failed: ${change.reason ?? "another transaction took its nonce"}`);
      if (healing !== undefined) healings.set(record.id, healing);
    }
    const changed = await this.store.changeOperations(changes, this.owner).catch(() => changes.map(() => undefined));
    changes.forEach(({ id, change, look }, index) => {
      // Told once per record, with what its last change wrote.
      if (changes[index + 1]?.id === id) return;
      if (change.checkInMs === null) this.own.delete(id);
      if (changed[index] === undefined) return;
      // The store answers a change without the record's transactions (nor the first's raw form, kept with them); the pass
      // has them (a step it sent marked so).
      const { transactions, rawTransaction } = look.record;
      if (change.reason !== undefined || look.change?.reason !== undefined)
        this.notify(id, { ...changed[index]!, transactions, rawTransaction });
      const healing = healings.get(id);
      if (healing !== undefined) this.report(healing);
    });
    return due.length;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let looked = 0;
      try {
        looked = await this.runOnce();
      } catch {
        // The store is unreachable; its records wait for it, nothing is lost.
      }
      if (!this.stopped) this.followers.keepFollowing();
      if (!this.stopped && looked < BATCH) {
        // A busy tracker pauses briefly between passes, so that each pass (one lease, one commit) takes more records; so
        // does one kicked during its pass (a record falls due now), which would otherwise wait for the idle poll.
        const busy = looked > 0 || this.kicked;
        this.kicked = false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, busy ? BUSY_PASS_INTERVAL_MS : this.settings.idlePollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  /** What the chain says of a record, or the change already known without asking it. */
  private async look(record: LeasedOperation, pass: PassReads): Promise<Look> {
    // What the request answered comes first: the node may already have lost it, and that is the next look's business.
    if (this.accepted.delete(record.id) && record.status === "signed") return this.firstLook(record, pass);
    if (record.chain === "bitcoin") {
      // No EVM node, nonce or head follower: the Bitcoin backend's word, judged by the same decide.
      const observed = await this.healing.observeBitcoin?.(record).catch(() => undefined);
      return observed === undefined ? { record, change: this.decision(record, { kind: "node-error" }) } : { record, observation: observed };
    }
    try {
      const chain = await this.chainFor(record);
      return { record, chain, observation: await this.observe(record, chain, pass) };
    } catch {
      // The node (or the pair's configuration) is failing: nothing is known, so nothing changes but the next look.
      return { record, change: this.decision(record, { kind: "node-error" }) };
    }
  }

  private decision(record: LeasedOperation, observation: Observation): OperationChange {
    const decision = decide(record, observation, this.settings, this.now());
    // An action after an action is not in the table: look again later rather than loop.
    return "change" in decision ? decision.change : { checkInMs: RETRY_AFTER_ERROR_MS };
  }

  /**
   * Marks the records whose nonce another transaction took: for a sender with a record missing (in no block, not in the
   * pool), the node's next nonce (its pool counted) and, where the record is below it, the count at the block with the
   * required confirmations. A missing record whose nonce that count passed, and still missing when looked at again after
   * the count, was replaced by another transaction.
   */
  private async markNoncesTaken(looks: Look[], pass: PassReads): Promise<void> {
    const missing = looks.filter((look) => waitingOf(look) !== undefined && isMissing(look.observation));
    await Promise.all(
      missing.map(async (look) => {
        const { chain, sender, nonce } = waitingOf(look)!;
        try {
          const next = await pass.nextNonce(chain, sender);
          if (nonce >= next) return;
          const confirmed = await pass.confirmedNonce(chain, sender);
          if (nonce >= confirmed) return;
          // Looked at again after the count: mined in between, it would have counted, and is found now.
          const again = await this.observe(look.record, chain, pass);
          look.observation = isMissing(again) ? { ...(again as ChainObservation), nonceTakenBy: { confirmedNonce: confirmed } } : again;
        } catch {
          // Nothing known of the nonce (the node failed to say): judged on what was seen, as before.
        }
      }),
    );
  }

  /**
   * Each sender's sends of the pass, in nonce order, one at a time: its records the node does not know, sent again, and
   * before each, the nonces below it the node lacks (a gap), filled if anything can fill them.
   */
  private async sendInOrder(looks: Look[], broadcasts: Look[], pass: PassReads, healings: Map<string, NonceHealing>): Promise<void> {
    const bySender = new Map<string, { chain: EvmChain; sender: string; looks: Look[] }>();
    const alone: Look[] = [];
    const toSend = new Set(broadcasts);
    for (const look of looks) {
      const waiting = waitingOf(look);
      if (waiting === undefined) {
        if (toSend.has(look)) alone.push(look);
        continue;
      }
      const key = `${waiting.chain.info.chain}/${waiting.chain.info.network}/${waiting.sender}`;
      const group = bySender.get(key) ?? { chain: waiting.chain, sender: waiting.sender, looks: [] };
      group.looks.push(look);
      bySender.set(key, group);
    }
    await Promise.all([
      ...alone.map(
        async (look) =>
          (look.change = this.decision(look.record, await this.broadcast(look.record, look.chain!, pass, heldNowhereOf(look)))),
      ),
      ...[...bySender.values()].map(async ({ chain, sender, looks: group }) => {
        const next = await pass.nextNonce(chain, sender).catch(() => undefined);
        if (next !== undefined) this.gaps.closedBelow(chain, sender, next);
        const byId = new Map(group.map((look) => [look.record.id, look]));
        const steps = nonceSteps(
          next,
          group.map((look) => ({ id: look.record.id, nonce: look.record.nonce!, broadcast: toSend.has(look) })),
        );
        const gaps = this.gaps.senderView(chain, { chain: group[0]!.record.chain, network: group[0]!.record.network, sender });
        // Set once a nonce below is a live reservation's: the records above wait for it, and are not missing.
        let behindReservation = false;
        for (const step of steps) {
          if (step.kind === "fill") {
            if ((await gaps.fill(step.nonce).catch(() => "open" as const)) === "reserved") behindReservation = true;
            continue;
          }
          const look = byId.get(step.id)!;
          const observation = await this.broadcast(look.record, chain, pass, heldNowhereOf(look), behindReservation).catch(
            (): Observation => ({ kind: "node-error" }),
          );
          look.change = this.decision(look.record, observation);
          // A pending record's transaction the node no longer knew (a signed one's first broadcast is no healing).
          if (observation.kind === "broadcast" && observation.outcome.kind === "accepted" && look.record.status === "pending") {
            const healing = healingOf(look.record, "rebroadcast", "sent again from its raw form: the node no longer knew it");
            if (healing !== undefined) healings.set(look.record.id, healing);
          }
        }
      }),
    ]);
  }

  private report(healing: NonceHealing): void {
    try {
      this.healing.observe?.(healing);
    } catch {
      // A report that fails (a logger, a metric) changes nothing the tracker does.
    }
  }

  /** What the chain says of a record now. */
  private async observe(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<Observation> {
    const label = `${chain.info.chain}/${chain.info.network}`;
    if (record.kind === "faucet") {
      if (chain.fund === undefined || chain.hasGrant === undefined)
        return { kind: "grant", simulated: false, granted: false, chainLabel: label };
      const { address } = record.params as { address: string };
      if (!chain.hasGrant(record.id)) return { kind: "grant", simulated: true, granted: false, chainLabel: label };
      return { kind: "grant", simulated: true, granted: true, balance: await chain.provider.getBalance(address), chainLabel: label };
    }
    const poll = chain.pollingIntervalMs;
    // On a simulated chain a mined record is looked at only after its journal lost lines (is the transaction still
    // there?), or after a reorg fault replaced its block (checked as on a live network).
    const replacedFrom = chain.faults?.replacedFrom();
    const reorged = replacedFrom !== undefined && record.blockNumber !== null && record.blockNumber >= replacedFrom;
    const included = record.status === "mined" || record.status === "cancelled";
    if (included && (!chain.simulated || reorged)) {
      const follower = this.followers.of(chain);
      const blocks = follower ?? { hashAt: (number: number) => this.canonicalBlocks.hashAt(chain, number) };
      const hash = record.blockNumber === null ? null : await blocks.hashAt(record.blockNumber);
      // Its block canonical, on a chain this process follows: the follower watches it from here on (one head read per
      // poll interval for all records, not a look per record; see decide's `followed`).
      const followed =
        follower !== undefined &&
        hash !== null &&
        hash === record.blockHash &&
        record.minedAt !== null &&
        this.followers.watch(chain, record.blockNumber!, hash, Date.parse(record.minedAt) + this.settings.reorgWatchMs);
      return { kind: "canonical", hash, pollMs: poll, ...(chain.simulated ? { simulated: true } : {}), ...(followed ? { followed } : {}) };
    }
    if (record.transactionHash === null) return { kind: "no-transaction" };
    const { sent, receipt, minted, head } = await this.receiptOf(record, chain, pass);
    const { pooled, heldNowhere } =
      receipt === null ? await this.poolState(record, chain, sent, pass) : { pooled: undefined, heldNowhere: false };
    const replaceAfterBlocks = this.replaceAfterBlocks(record);
    // Noted lost at an earlier look and not stuck: decide replaces it now, at what the node asks.
    const lostBefore = heldNowhere && record.missingSince !== null && record.stuck === null;
    const due = receipt === null && replacementDue(record, head, replaceAfterBlocks);
    const behindOwnNonces = due && !lostBefore && (await this.behindOwnNonces(record, chain, pass));
    const asks = receipt === null && (lostBefore || due) && !behindOwnNonces ? await pass.feeAsks(chain) : undefined;
    return {
      kind: "chain",
      simulated: chain.simulated,
      pollMs: poll,
      head,
      receipt,
      inPool: pooled !== undefined && !heldNowhere,
      ...(heldNowhere ? { heldNowhere } : {}),
      ...(pooled !== undefined && pooled !== sent[0] ? { pooled } : {}),
      ...(minted !== undefined ? { minted } : {}),
      ...(Number.isFinite(replaceAfterBlocks) ? { replaceAfterBlocks } : {}),
      ...(asks !== undefined ? { needed: asks.fees, floor: asks.floor } : {}),
      ...(behindOwnNonces ? { behindOwnNonces } : {}),
    };
  }

  /**
   * Whether it is not the record's turn on a live chain: the sender's mined nonce count (one read per sender and pass)
   * is below its nonce (its own earlier transactions wait), or past it (mined since the receipts were read: the next
   * look finds it).
   */
  private async behindOwnNonces(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<boolean> {
    if (chain.simulated || record.sender === null || record.nonce === null) return false;
    const mined = await pass.minedNonce(chain, record.sender).catch(() => undefined);
    return mined !== undefined && mined !== record.nonce;
  }

  /**
   * The first look at a record whose broadcast this process saw the node accept: `pending`, as the request answered,
   * without asking whether the node still has it (the next look's business). Only whether it is in a block already is
   * asked (a chain that mines as it accepts): then the same write takes it on from `pending`.
   */
  private async firstLook(record: LeasedOperation, pass: PassReads): Promise<Look> {
    let included: ChainObservation | undefined;
    try {
      const chain = await this.chainFor(record);
      const { sent, receipt, minted, head } = await this.receiptOf(record, chain, pass, true);
      const tip = this.followers.of(chain)?.latest?.hash;
      if (receipt === null && tip !== undefined) this.poolChecks.accepted(`${record.id}:${sent.join(",")}`, sent[0]!, tip);
      if (receipt !== null) {
        const poll = chain.pollingIntervalMs;
        included = { kind: "chain", simulated: chain.simulated, pollMs: poll, head, receipt, inPool: false, ...(minted ? { minted } : {}) };
      }
    } catch {
      // Nothing is known but what the request heard: the next look asks again.
    }
    const decision = decide(record, { kind: "accepted-here", ...(included ? { included } : {}) }, this.settings, this.now());
    if (!("change" in decision)) return { record, change: { checkInMs: RETRY_AFTER_ERROR_MS } };
    return { record, change: decision.change, ...(decision.then ? { then: decision.then } : {}) };
  }

  /**
   * Whether one of the record's transactions is in a block: every hash it was sent as is asked (whichever the chain mined
   * settles it: a replacement, or the first one, won the race), with the pass's head, and an ERC721 mint's minted ids.
   */
  private async receiptOf(
    record: LeasedOperation,
    chain: EvmChain,
    pass: PassReads,
    firstLook = false,
  ): Promise<{ sent: string[]; receipt: ChainObservation["receipt"]; minted?: ChainObservation["minted"]; head: number }> {
    const sent = [record.transactionHash!.toLowerCase()];
    for (const transaction of record.transactions) {
      if (transaction.broadcastAt !== null && !sent.includes(transaction.transactionHash)) sent.push(transaction.transactionHash);
    }
    // Only an ERC721 mint's minted id is read from the logs; for the rest, where and whether it was included.
    const mintOf = record.kind === "mint" && record.tokenType === "ERC721" ? record.contractAddress : null;
    // The head first: the receipts are then read up to it, and a receipt found is never ahead of it.
    const head = await pass.head(chain);
    // Written before its first broadcast: by this process (its first look) at that time, by another maybe by a clock ahead.
    const writtenBefore = Date.parse(record.createdAt) - (firstLook ? 0 : OTHER_CLOCKS_MS);
    const receipts = await pass.receipts(chain, sent, { block: record.broadcastBlock, time: writtenBefore });
    const found = receipts.findIndex((each) => each !== null);
    if (found === -1) return { sent, receipt: null, head };
    const receipt = receipts[found]!;
    // Its logs are read only here: an ERC721 mint's receipt, whole, once it is in a block.
    const full = mintOf ? await chain.provider.getTransactionReceipt(sent[found]!) : null;
    const minted = mintOf && full !== null ? mintedTokens(record, mintedTokenIds(full as TransactionReceipt, mintOf)) : undefined;
    return {
      sent,
      receipt: { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, status: receipt.status, transactionHash: sent[found]! },
      head,
      ...(minted !== undefined ? { minted } : {}),
    };
  }

  /**
   * Whether a live node's next nonce for the record's sender is the record's own: then it holds nothing it could include
   * at that nonce, whatever it answers by hash (one read per sender and pass; unknown counts as no). A simulated chain
   * is the service's own node: a transaction its base fee overtook waits there outside that count, and is not lost.
   */
  private async holdsNothingAt(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<boolean> {
    if (chain.simulated || record.status !== "pending" || record.sender === null || record.nonce === null) return false;
    const next = await pass.nextNonce(chain, record.sender).catch(() => undefined);
    return next === record.nonce;
  }

  /**
   * Whether the node still holds one of the record's transactions, unmined, and whether it holds it nowhere it could
   * include it. On a live chain, asked again only after a block that did not include it, or every few poll intervals
   * (see PoolChecks); between, the last answer stands.
   */
  private async poolState(record: LeasedOperation, chain: EvmChain, sent: string[], pass: PassReads): Promise<PoolState> {
    const follower = this.followers.of(chain);
    const key = `${record.id}:${sent.join(",")}`;
    const tip = follower?.latest?.hash;
    const standing = follower === undefined ? undefined : this.poolChecks.standing(key, tip, chain.pollingIntervalMs);
    // It stands while the node still counts the record's nonce in the sender's next one (read once per sender and pass,
    // for the sender's nonce healing anyway): a node that lost it (or another that took its place) does not.
    if (standing !== undefined && (standing.accepted || (await this.stillCounted(record, chain, pass)))) {
      return { pooled: standing.pooled, heldNowhere: standing.heldNowhere };
    }
    const pooled = await this.pooled(chain, sent);
    const state = { pooled, heldNowhere: pooled !== undefined && (await this.holdsNothingAt(record, chain, pass)) };
    // Only "held, and includable" stands: any other answer leads to a send, after which the next look asks again.
    if (follower !== undefined && pooled !== undefined && !state.heldNowhere) this.poolChecks.remember(key, tip, state);
    else this.poolChecks.forget(key);
    return state;
  }

  private async stillCounted(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<boolean> {
    if (record.sender === null || record.nonce === null) return true;
    const next = await pass.nextNonce(chain, record.sender).catch(() => undefined);
    return next !== undefined && next > record.nonce;
  }

  /** A reorg the follower saw: the records mined from its first changed block are looked at now, against the new chain. */
  private reorged(chain: EvmChain, fromBlock: number): void {
    void this.store
      .recheckMined(chain.info.chain, chain.info.network, fromBlock)
      .then((count) => {
        if (count > 0) this.kick();
      })
      .catch(() => undefined);
  }

  /** The one of `hashes` the node holds unmined (the one the record follows asked first), or undefined. */
  private async pooled(chain: EvmChain, hashes: string[]): Promise<string | undefined> {
    if ((await chain.provider.getTransaction(hashes[0]!)) !== null) return hashes[0];
    if (hashes.length === 1) return undefined;
    const others = await Promise.all(hashes.slice(1).map((each) => chain.provider.getTransaction(each)));
    const index = others.findIndex((each) => each !== null);
    return index === -1 ? undefined : hashes[index + 1];
  }

  /** The raw form of the transaction the record follows: its first one's, or a replacement's as stored with it. */
  private async rawOf(record: LeasedOperation): Promise<string> {
    const current = currentTransaction(record);
    if (record.rawTransaction !== null && (current === undefined || current.role === "original")) return record.rawTransaction;
    if (current === undefined) throw new Error(`no raw form stored for ${record.transactionHash}`);
    return storedRawTransaction(this.store, record, current);
  }

  /**
   * Sends a step of the record's ladder in place of the transaction it follows: written as sent first (so that a crash
   * after the broadcast still has its hash followed), then broadcast.
   */
  /**
   * Whether a held wallet (nothing signed ahead) could be replaced instead: decide says it is stuck, or, past its
   * replace-after blocks and gone from the node's pool (a node drops what the base fee overtook), would send the same
   * bytes again, which the node would only drop again.
   */
  private heldMayReplace(look: Look, decision: Decision): boolean {
    const { record, observation } = look;
    if (record.stuck !== null) return false;
    if ("change" in decision) return decision.change.stuck !== undefined && decision.change.stuck !== null;
    if (decision.action !== "broadcast" || observation?.kind !== "chain" || observation.receipt !== null) return false;
    const ahead = record.transactions.some((transaction) => transaction.role === "replacement");
    return (
      !ahead && observation.replaceAfterBlocks !== undefined && replacementDue(record, observation.head, observation.replaceAfterBlocks)
    );
  }

  /** Whether a held wallet's replacement went out in place of the stuck notice (any failure: the notice stands). */
  private async replacedHeld(record: LeasedOperation): Promise<boolean> {
    if (this.healing.replaceHeld === undefined) return false;
    return this.healing.replaceHeld(record).catch(() => false);
  }

  private async replace(record: LeasedOperation, chain: EvmChain, hash: string, pass: PassReads, lost?: true): Promise<Observation> {
    const step = record.transactions.find((transaction) => transaction.transactionHash === hash.toLowerCase());
    if (step === undefined || record.nonce === null) throw new Error(`step ${hash} of ${record.id} is not stored`);
    const raw = await storedRawTransaction(this.store, record, step);
    const { broadcastAt: _sent, ...fields } = step;
    const written = await this.store.recordTransaction(record.id, {
      ...fields,
      nonce: record.nonce,
      rawTransaction: raw,
      signature: null,
      broadcast: true,
    });
    if (written !== undefined) record.transactions = written.transactions;
    const [outcome, head] = await Promise.all([sendRaw(chain, raw), pass.head(chain)]);
    return {
      kind: "replaced",
      transactionHash: step.transactionHash,
      outcome,
      pollMs: chain.pollingIntervalMs,
      head,
      ...(lost ? { lost } : {}),
    };
  }

  /** Sends the stored raw transaction again (the one the record follows); how the node answered. */
  private async broadcast(
    record: LeasedOperation,
    chain: EvmChain,
    pass: PassReads,
    heldNowhere?: true,
    behindReservation = false,
  ): Promise<Observation> {
    const outcome = await sendRaw(chain, await this.rawOf(record));
    const replaceAfterBlocks = this.replaceAfterBlocks(record);
    // The pass's head, read when it observed the record (it is cached): where its replace-after blocks count from.
    const head = await pass.head(chain).catch(() => undefined);
    return {
      kind: "broadcast",
      outcome,
      pollMs: chain.pollingIntervalMs,
      ...(head !== undefined ? { head } : {}),
      ...(Number.isFinite(replaceAfterBlocks) ? { replaceAfterBlocks } : {}),
      ...(heldNowhere ? { heldNowhere } : {}),
      ...(behindReservation ? { behindReservation: true as const } : {}),
    };
  }

  /** A faucet grant recorded before a crash and not in the chain's journal: made now, under the same name. */
  private async grant(record: LeasedOperation, chain: EvmChain): Promise<Observation> {
    const { address, amount } = record.params as { address: string; amount: string };
    return { kind: "granted", balance: await chain.fund!(address, BigInt(amount), record.id) };
  }
}

/** What an ERC721 mint's receipt says it minted: a batch's ids in the order of its recipients, or one mint's id. */
function mintedTokens(record: LeasedOperation, ids: string[]): { tokenId: string } | { tokenIds: string[] } | undefined {
  if (Array.isArray(record.params.recipients)) return { tokenIds: ids };
  return ids[0] !== undefined ? { tokenId: ids[0] } : undefined;
}
