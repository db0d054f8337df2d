import { randomUUID } from "node:crypto";

import { parseBitcoinAddress } from "../../chains/bitcoin/addresses.js";
import type { ChainRegistry, NetworkInfo } from "../../domain/chains.js";
import { parseSubscriptionSpec } from "../../domain/subscriptions.js";
import { addressKey } from "./bitcoin-match.js";
import { DEFAULT_SCAN_SETTINGS, PairScanner, type BlockSource, type ScanSettings } from "./scanner.js";
import type { ChainEventPage, NotificationStore, SubscriptionPage, SubscriptionRecord } from "./types.js";

// Chain notifications (docs/notifications.md): subscriptions kept in the store, and, in each process that serves them,
// one scan per watched pair. Every replica runs the loop; the pair's lease lets one scan at a time, and another takes
// over when that one stops renewing it.

/** What the scans of this process are told of the world: where a pair's blocks come from, and how often to look. */
export interface NotificationSources {
  /** The pair's block source; refused (TokenServiceError) for a pair that is not served. */
  sourceOf(info: NetworkInfo): Promise<BlockSource>;
  /** How long to wait for a new block on the pair. */
  pollMs(info: NetworkInfo): number;
}

export interface NotificationSettings extends ScanSettings {
  /** How often a process looks for pairs other processes' subscriptions watch. */
  discoverMs: number;
  /** Told when a step failed (a node or the store failing); the loop waits a poll interval and tries again. */
  onError?: (pair: string, error: unknown) => void;
}

const DEFAULT_SETTINGS: NotificationSettings = { ...DEFAULT_SCAN_SETTINGS, discoverMs: 5_000 };

interface Loop {
  scanner: PairScanner;
  wake: (() => void) | undefined;
  done: Promise<void>;
}

export class Notifications {
  private readonly owner = `scan-${randomUUID()}`;
  private readonly loops = new Map<string, Loop>();
  private readonly settings: NotificationSettings;
  private started = false;
  private stopped = false;
  private discovery: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: NotificationStore,
    private readonly chains: ChainRegistry,
    private readonly sources: NotificationSources,
    settings: Partial<NotificationSettings> = {},
  ) {
    this.settings = { ...DEFAULT_SETTINGS, ...settings };
  }

  /**
   * A subscription of the API key: to everything moving value to or from an address, or to a contract's events (EVM
   * only). It watches from the block after the head (or from `fromBlock`, backfilled). A Bitcoin address is kept as
   * nodes write it (a bech32 one in lower case).
   */
  async subscribe(apiKeyId: string | null, body: Record<string, unknown>): Promise<SubscriptionRecord> {
    const info = this.chains.resolve(body.chain, body.network);
    const spec =
      info.kind === "bitcoin"
        ? parseSubscriptionSpec(body, "bitcoin", (value, field) => addressKey(parseBitcoinAddress(value, info.network, field)))
        : parseSubscriptionSpec(body, "evm");
    const source = await this.sources.sourceOf(info);
    const head = (await source.head()).number;
    const record = await this.store.createSubscription({
      id: randomUUID(),
      apiKeyId,
      chain: info.chain,
      network: info.network,
      target: spec.target,
      confirmations: spec.confirmations,
      fromBlock: spec.fromBlock,
      startBlock: spec.fromBlock ?? head + 1,
    });
    // A new subscription is looked at now, not after the pair's poll interval.
    if (this.started) this.watch(info, { wake: true });
    return record;
  }

  list(apiKeyId: string | null, options: { limit: number; cursor?: string }): Promise<SubscriptionPage> {
    return this.store.listSubscriptions(apiKeyId, options);
  }

  get(apiKeyId: string | null, id: string): Promise<SubscriptionRecord | undefined> {
    return this.store.getSubscription(apiKeyId, id);
  }

  unsubscribe(apiKeyId: string | null, id: string): Promise<boolean> {
    return this.store.deleteSubscription(apiKeyId, id);
  }

  /** A page of the subscription's events after `after`; an empty page answers `after` again, to ask again with. */
  async events(apiKeyId: string | null, id: string, options: { limit: number; after?: string }): Promise<ChainEventPage | undefined> {
    const page = await this.store.listEvents(apiKeyId, id, options);
    return page === undefined || page.nextCursor !== null ? page : { ...page, nextCursor: options.after ?? null };
  }

  /** Starts scanning the pairs subscriptions watch, and looks for new ones every `discoverMs`. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    const discover = () => {
      this.store.watchedPairs().then(
        (pairs) => {
          for (const pair of pairs) {
            try {
              this.watch(this.chains.resolve(pair.chain, pair.network), { wake: false });
            } catch (error) {
              this.settings.onError?.(`${pair.chain}/${pair.network}`, error);
            }
          }
        },
        (error: unknown) => this.settings.onError?.("*", error),
      );
    };
    discover();
    this.discovery = setInterval(discover, this.settings.discoverMs);
    this.discovery.unref();
  }

  /** Stops every scan after its current step, and lets their leases go. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.discovery);
    const loops = [...this.loops.values()];
    for (const loop of loops) loop.wake?.();
    await Promise.all(loops.map((loop) => loop.done));
    await Promise.all(loops.map((loop) => loop.scanner.release().catch(() => undefined)));
  }

  /** Scans the pair in this process (the lease decides whether this one or another replica does the work). */
  private watch(info: NetworkInfo, { wake }: { wake: boolean }): void {
    const pair = `${info.chain}/${info.network}`;
    const running = this.loops.get(pair);
    if (running !== undefined) {
      // The discovery only starts loops: waking a running one would put its next head read off by a step.
      if (wake) running.wake?.();
      return;
    }
    const loop: Loop = { scanner: undefined as unknown as PairScanner, wake: undefined, done: Promise.resolve() };
    this.loops.set(pair, loop);
    loop.done = this.run(info, loop).finally(() => this.loops.delete(pair));
  }

  private async run(info: NetworkInfo, loop: Loop): Promise<void> {
    const pair = `${info.chain}/${info.network}`;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          loop.wake = undefined;
          resolve();
        }
        loop.wake = done;
      });
    let source: BlockSource;
    try {
      source = await this.sources.sourceOf(info);
    } catch (error) {
      this.settings.onError?.(pair, error);
      return;
    }
    loop.scanner = new PairScanner(this.store, info.chain, info.network, source, this.owner, this.settings);
    let idleSteps = 0;
    while (!this.stopped) {
      const stepStarted = Date.now();
      try {
        const outcome = await loop.scanner.step();
        if (outcome === "progress") {
          idleSteps = 0;
          // Another step at once, after whatever else is waiting on the event loop.
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        if (outcome === "elsewhere") {
          // No subscription left for the pair, or another replica scans it: let the discovery start it again.
          if (++idleSteps > 3) return;
          await pause(this.settings.leaseMs / 3);
          continue;
        }
        idleSteps = 0;
        // One head read per poll interval, counted from the step's start: a step's own time does not add to the lag.
        await pause(Math.max(0, this.sources.pollMs(info) - (Date.now() - stepStarted)));
      } catch (error) {
        this.settings.onError?.(pair, error);
        await pause(Math.max(this.sources.pollMs(info), 1_000));
      }
    }
  }
}
