import type { Store } from "../store/types.js";

export interface AuthFailureSettings {
  /** Failed API-key attempts per client address and window; 0 disables the limit. */
  limit: number;
  windowMs: number;
}

const MAX_BLOCKED_CLIENTS = 10_000;

/**
 * Slows down guessing of API keys. Failures are counted in the store, like the
 * rate limit, so replicas share the count; a client over the limit is refused
 * here without another look at the key until its window ends.
 */
export class AuthFailureLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly settings: AuthFailureSettings,
  ) {}

  /** Seconds the client must wait, or undefined when it may present a key. */
  retryAfterSeconds(client: string): number | undefined {
    const until = this.blockedUntil.get(client);
    if (until === undefined) return undefined;
    const remainingMs = until - Date.now();
    if (remainingMs <= 0) {
      this.blockedUntil.delete(client);
      return undefined;
    }
    return Math.max(1, Math.ceil(remainingMs / 1000));
  }

  /** Counts a failed attempt; returns the seconds to wait once the client is over the limit. */
  async recordFailure(client: string): Promise<number | undefined> {
    if (this.settings.limit <= 0) return undefined;
    const result = await this.store.hitRateLimit(`auth-failure:${client}`, this.settings.limit, this.settings.windowMs);
    if (result.allowed) return undefined;
    if (this.blockedUntil.size >= MAX_BLOCKED_CLIENTS) this.forgetExpired();
    this.blockedUntil.set(client, Date.now() + result.resetMs);
    return Math.max(1, Math.ceil(result.resetMs / 1000));
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [client, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(client);
    // Still full: the oldest entries go; their clients are counted again on their next failure.
    for (const client of this.blockedUntil.keys()) {
      if (this.blockedUntil.size < MAX_BLOCKED_CLIENTS) break;
      this.blockedUntil.delete(client);
    }
  }
}
