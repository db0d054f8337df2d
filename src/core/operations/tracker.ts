import { randomUUID } from "node:crypto";

import { ErrorCode } from "../../domain/errors.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import { ChainFollowers, PassReads } from "./pass-reads.js";
import { RETRY_AFTER_ERROR_MS, decide, replacementDue, type ChainObservation, type Decision, type Observation } from "./decide.js";
import {
  GapFiller,
  nonceSteps,
  type NonceFiller,
  type NonceHealing,
  type NonceHealingKind,
  type NonceHealingObserver,
} from "./nonce-healing.js";
import type { LeasedOperation, OperationChange, OperationRecord, OperationStore } from "./types.js";
import { RecordObserver } from "./record-observer.js";
import { broadcastAgain, grantAgain, sendLadderStep, sendRaw } from "./tracker-sends.js";
import type { TrackerSettings } from "./tracker-settings.js";

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
  /** One head follower per live chain: heads, block hashes and receipts read per block, not per record. */
  private readonly followers = new ChainFollowers((chain, fromBlock) => this.reorged(chain, fromBlock));
  /** What the chain says of each record looked at. */
  private readonly observer: RecordObserver;
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
    this.observer = new RecordObserver(this.followers, settings, replaceAfterBlocks);
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
          look.change = await sendLadderStep(this.store, look.record, look.chain!, decision.transactionHash, pass, decision.lost).then(
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
          look.change = await grantAgain(look.record, look.chain!).then(
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
      return { record, chain, observation: await this.observer.observe(record, chain, pass) };
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
          const again = await this.observer.observe(look.record, chain, pass);
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
          (look.change = this.decision(
            look.record,
            await broadcastAgain(this.store, this.replaceAfterBlocks, look.record, look.chain!, pass, heldNowhereOf(look)),
          )),
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
          const observation = await broadcastAgain(
            this.store,
            this.replaceAfterBlocks,
            look.record,
            chain,
            pass,
            heldNowhereOf(look),
            behindReservation,
          ).catch((): Observation => ({ kind: "node-error" }));
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

  /**
   * The first look at a record whose broadcast this process saw the node accept: `pending`, as the request answered,
   * without asking whether the node still has it (the next look's business). Only whether it is in a block already is
   * asked (a chain that mines as it accepts): then the same write takes it on from `pending`.
   */
  private async firstLook(record: LeasedOperation, pass: PassReads): Promise<Look> {
    let included: ChainObservation | undefined;
    try {
      const chain = await this.chainFor(record);
      const { sent, receipt, minted, head } = await this.observer.receiptOf(record, chain, pass, true);
      if (receipt === null) this.observer.acceptedHere(record, chain, sent);
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

  /** A reorg the follower saw: the records mined from its first changed block are looked at now, against the new chain. */
  private reorged(chain: EvmChain, fromBlock: number): void {
    void this.store
      .recheckMined(chain.info.chain, chain.info.network, fromBlock)
      .then((count) => {
        if (count > 0) this.kick();
      })
      .catch(() => undefined);
  }

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
}
