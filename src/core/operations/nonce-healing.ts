import type { EvmChain } from "../../chains/evm/chain.js";
import { rawTransactionOf } from "./stored-transactions.js";
import type { OperationStore, UnfinishedTransaction } from "./types.js";

// Nonces that heal: a sender's nonce on the node may move outside the service's view (a transaction sent with another
// wallet, a node that lost its pool, a provider whose nodes do not share one). The tracker reads the sender's nonce when
// a record of it waits, settles the records whose nonce another transaction took (decide.ts), sends its own again in
// nonce order, and fills a nonce the service left unused below one that waits, so the later ones are not stranded.

/** One nonce of a sender's on a pair. */
export interface SenderNonce {
  chain: string;
  network: string;
  sender: string;
  nonce: number;
}

/** A stored, signed transaction that can take a nonce: sending it lets the sender's later transactions be mined. */
export interface NonceFill {
  rawTransaction: string;
  /** What it is, for the log: "the pre-signed cancel of operation 7c0…". */
  description: string;
}

/**
 * A source of transactions to fill a nonce the service left unused (its record there ended `failed` or `dropped`, or
 * none was made), asked after the service's own `pending` records, which are sent again first. Asked when the node's
 * next nonce for the sender (read once a pass) is at or below the gap, inside the sender's lock, only while no record
 * or reservation holds the nonce, so no send takes it meanwhile. A pre-signed cancel at that nonce is one; the service
 * signs nothing here (it holds no key).
 */
export interface NonceFiller {
  fillerAt(gap: SenderNonce): Promise<NonceFill | undefined>;
}

/**
 * nonce-taken: a record settled `failed` (NONCE_TAKEN) because another transaction was mined at its nonce;
 * rebroadcast: a record's transaction the node no longer knew, sent again from its raw form;
 * gap-filled: a nonce the service left unused, taken by a filler's transaction;
 * gap-unfilled: such a nonce with nothing to fill it (reported once per gap): the sender's later transactions wait for
 * the next send from it, which takes that nonce;
 * replaced-lost: a record's transaction the node lost yet refused again as already known, replaced by the next step of
 * its ladder (another transaction at the nonce).
 */
export const NONCE_HEALING_KINDS = ["nonce-taken", "rebroadcast", "gap-filled", "gap-unfilled", "replaced-lost"] as const;
export type NonceHealingKind = (typeof NONCE_HEALING_KINDS)[number];

/** One healing, as the tracker reports it (the HTTP service logs and counts each). */
export interface NonceHealing extends SenderNonce {
  kind: NonceHealingKind;
  operationId?: string;
  transactionHash?: string;
  /** What happened, in words. */
  detail: string;
}

export type NonceHealingObserver = (healing: NonceHealing) => void;

/** A record of one tracker pass with no receipt yet: in the node's pool, or to be sent again (`broadcast`). */
export interface WaitingRecord {
  id: string;
  nonce: number;
  broadcast: boolean;
}

export type NonceStep = { kind: "broadcast"; id: string; nonce: number } | { kind: "fill"; nonce: number };

/** The most gap nonces one pass tries to fill for a sender (the rest wait for the next pass). */
export const MAX_FILLS_PER_PASS = 64;

/**
 * The order of one sender's sends in a tracker pass: its records to send again, lowest nonce first, and before each, the
 * nonces from the node's next one (`nextNonce`: `eth_getTransactionCount(sender, "pending")`) up that no record of the
 * pass holds, as gaps to fill. A node takes a sender's transactions in nonce order only: one sent above a missing nonce
 * waits in its pool (or, on a chain mining on send, is refused), so the lower nonces go first. Without `nextNonce` (the
 * node did not say), the records alone, in nonce order.
 */
export function nonceSteps(nextNonce: number | undefined, records: readonly WaitingRecord[], maxFills = MAX_FILLS_PER_PASS): NonceStep[] {
  const sorted = [...records].sort((a, b) => a.nonce - b.nonce);
  const held = new Set(sorted.map((record) => record.nonce));
  const steps: NonceStep[] = [];
  let cursor = nextNonce ?? Infinity;
  let fills = 0;
  for (const record of sorted) {
    for (; cursor < record.nonce && fills < maxFills; cursor++) {
      if (held.has(cursor)) continue;
      steps.push({ kind: "fill", nonce: cursor });
      fills++;
    }
    if (nextNonce !== undefined) cursor = Math.max(cursor, record.nonce + 1);
    if (record.broadcast) steps.push({ kind: "broadcast", id: record.id, nonce: record.nonce });
  }
  return steps;
}

/** What filling a gap nonce came to: a transaction there now, a live reservation holding it, or still nothing. */
export type GapState = "filled" | "reserved" | "open";

/** Whether the node's answer to a broadcast says it has the transaction now. */
export type SendOutcome = "accepted" | "already-known" | "refused" | "nonce-used";

/** What filling one gap nonce takes: the store, the chain, the sender's lock, the extra fillers and the report. */
export interface GapFillerOptions {
  store: OperationStore;
  fillers: readonly NonceFiller[];
  /** Runs `work` holding the sender's nonce lock (the one every send from it takes). */
  withSenderLock<T>(chain: EvmChain, sender: string, work: () => Promise<T>): Promise<T>;
  /** Sends a raw transaction; how the node answered. */
  send(chain: EvmChain, rawTransaction: string): Promise<SendOutcome>;
  report(healing: NonceHealing): void;
}

/**
 * Fills the gap nonces of one sender in one pass, in nonce order: from the service's own `pending` record at that nonce
 * (sent again: the node lost it), else, unless a record or a live reservation holds it, from the fillers. A gap nothing
 * fills is reported once, until the node's next nonce passes it.
 */
export class GapFiller {
  /** Gaps reported unfilled, by sender key: reported again only after they closed and opened again. */
  private readonly reported = new Map<string, Set<number>>();

  constructor(private readonly options: GapFillerOptions) {}

  /** Forgets the reported gaps of a sender below its node's next nonce: those are closed. */
  closedBelow(chain: EvmChain, sender: string, nextNonce: number): void {
    const key = senderKey(chain, sender);
    const open = this.reported.get(key);
    if (open === undefined) return;
    for (const nonce of open) if (nonce < nextNonce) open.delete(nonce);
    if (open.size === 0) this.reported.delete(key);
  }

  /** A sender's view of its own records for one pass: read once, at the first gap. */
  senderView(chain: EvmChain, where: Omit<SenderNonce, "nonce">): SenderGaps {
    return new SenderGaps(this, this.options, chain, where);
  }

  /** Reports an unfilled gap unless it was reported while open. */
  reportUnfilled(chain: EvmChain, gap: SenderNonce, detail: string): void {
    const key = senderKey(chain, gap.sender);
    const open = this.reported.get(key) ?? new Set<number>();
    if (open.has(gap.nonce)) return;
    open.add(gap.nonce);
    this.reported.set(key, open);
    this.options.report({ ...gap, kind: "gap-unfilled", detail });
  }
}

/** One sender's gaps in one pass. */
export class SenderGaps {
  private own: Promise<Map<number, UnfinishedTransaction>> | undefined;
  private held: Promise<number[]> | undefined;

  constructor(
    private readonly filler: GapFiller,
    private readonly options: GapFillerOptions,
    private readonly chain: EvmChain,
    private readonly where: Omit<SenderNonce, "nonce">,
  ) {}

  /**
   * Fills `nonce` if anything can; answers whether the node has a transaction there now (`filled`), the nonce is held by a
   * live reservation (`reserved`: its prepared transaction may still come, else its filler once it expired), or neither.
   */
  async fill(nonce: number): Promise<GapState> {
    const { chain, where, options } = this;
    const gap = { ...where, nonce };
    this.own ??= options.store
      .unfinishedOfSender(where.chain, where.network, where.sender, nonce, MAX_FILLS_PER_PASS)
      .then((records) => new Map(records.map((record) => [record.nonce, record])));
    const own = (await this.own).get(nonce);
    if (own !== undefined) {
      // A `signed` record is its request's to broadcast (or the tracker's, at its own look): sent from here first, the
      // request's own broadcast would meet "already known" and answer it refused. It holds the nonce either way.
      if (own.status !== "pending" || own.rawTransaction === null) return "open";
      // A `pending` one the node lost, in another pass or another replica's lease: the same signed transaction again,
      // so nothing but the node's pool changes. Its record's next look finds it there.
      const raw = own.followed === null ? own.rawTransaction : rawTransactionOf(own.rawTransaction, own.followed, own.followed);
      const outcome = await options.send(chain, raw);
      if (outcome === "accepted") {
        options.report({
          ...gap,
          kind: "rebroadcast",
          operationId: own.id,
          ...(own.transactionHash !== null ? { transactionHash: own.transactionHash } : {}),
          detail: `sent operation ${own.id}'s transaction again: the node no longer knew it, and later nonces waited for it`,
        });
      }
      return outcome === "refused" ? "open" : "filled";
    }
    this.held ??= options.store.heldNonces(where.chain, where.network, where.sender);
    // A live reservation (no record holds the nonce): a caller is signing the prepared transaction for it.
    if ((await this.held).includes(nonce)) return "reserved";
    for (const source of options.fillers) {
      const filled = await options
        .withSenderLock(chain, where.sender, async () => {
          // Under the lock no send takes the nonce; one may have taken it before, and every send records its nonce in the
          // store before it broadcasts: the store is read again here, fresh. The node is not: the pass's read found the
          // gap, and behind a load balancer another node, holding this very fill from an earlier pass, would say the gap
          // is closed while the node that mines still lacks it.
          if ((await options.store.heldNonces(where.chain, where.network, where.sender)).includes(nonce)) return "closed" as const;
          const fill = await source.fillerAt(gap);
          if (fill === undefined) return undefined;
          const outcome = await options.send(chain, fill.rawTransaction);
          // The nonce is used (another replica's tracker sent this very filler since this pass read the node): closed.
          if (outcome === "nonce-used") return "closed" as const;
          return outcome === "refused" ? undefined : { ...fill, outcome };
        })
        .catch(() => undefined);
      if (filled === "closed") return "filled";
      if (filled !== undefined) {
        // "Already known": a node has it from an earlier pass, which reported it.
        if (filled.outcome === "accepted") options.report({ ...gap, kind: "gap-filled", detail: `filled with ${filled.description}` });
        return "filled";
      }
    }
    this.filler.reportUnfilled(
      chain,
      gap,
      `nonce ${nonce} is unused (its operation ended, or a prepared transaction expired) and nothing can fill it: the sender's later transactions wait for its next send, which takes nonce ${nonce}`,
    );
    return "open";
  }
}

function senderKey(chain: EvmChain, sender: string): string {
  return `${chain.info.chainId}:${sender.toLowerCase()}`;
}
