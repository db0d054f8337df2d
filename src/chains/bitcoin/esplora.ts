import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { bitcoinBalance } from "./amounts.js";
import type { BitcoinBackend, BitcoinBalance } from "./backend.js";
import { exchange, quoteUpstream, upstreamLabel, upstreamUnavailable, type Upstream } from "./upstream.js";

/**
 * Public Esplora endpoints run by mempool.space. "testnet" is testnet4 (BIP 94):
 * testnet3 is being retired and its coins are hard to come by.
 */
export const DEFAULT_ESPLORA_URLS: Readonly<Record<string, string>> = {
  mainnet: "https://mempool.space/api",
  testnet: "https://mempool.space/testnet4/api",
  signet: "https://mempool.space/signet/api",
};

export const DEFAULT_ESPLORA_TIMEOUT_MS = 15_000;

export interface EsploraOptions {
  /** The API base, e.g. https://mempool.space/api; `/address/:address` is appended. */
  baseUrl: string;
  timeoutMs?: number;
  /** Printed instead of the host, for a well-known public URL. */
  endpoint?: string;
}

interface AddressStats {
  funded_txo_sum: number;
  spent_txo_sum: number;
}

/** Balances from an Esplora REST API (mempool.space, blockstream.info, or a self-hosted electrs). */
export class EsploraBackend implements BitcoinBackend {
  readonly kind = "esplora" as const;
  readonly endpoint: string;
  private readonly base: URL;
  private readonly timeoutMs: number;

  constructor(options: EsploraOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new TypeError("an Esplora URL must be http(s)");
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.base = base;
    this.endpoint = options.endpoint ?? base.host;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ESPLORA_TIMEOUT_MS;
  }

  private get upstream(): Upstream {
    return { backend: "esplora", endpoint: this.endpoint };
  }

  async getBalance(address: string): Promise<BitcoinBalance> {
    const body = await this.get(`address/${encodeURIComponent(address)}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      throw upstreamUnavailable(this.upstream, "answered with a body that is not JSON", {}, error);
    }
    const record = parsed as { chain_stats?: unknown; mempool_stats?: unknown } | null;
    const chain = this.stats(record?.chain_stats, "chain_stats");
    const mempool = this.stats(record?.mempool_stats, "mempool_stats");
    return bitcoinBalance(
      BigInt(chain.funded_txo_sum) - BigInt(chain.spent_txo_sum),
      BigInt(mempool.funded_txo_sum) - BigInt(mempool.spent_txo_sum),
    );
  }

  /** Readiness: the tip height answers. */
  async ping(): Promise<void> {
    const body = await this.get("blocks/tip/height");
    if (!/^\d+\s*$/.test(body)) throw upstreamUnavailable(this.upstream, "answered blocks/tip/height with something other than a height");
  }

  private async get(path: string): Promise<string> {
    const response = await exchange(this.upstream, new URL(path, this.base), { headers: { accept: "application/json" } }, this.timeoutMs);
    if (response.status === 200) return response.body;
    // Esplora answers 400 with a plain-text reason ("Invalid Bitcoin address", "Address on invalid network").
    if (response.status === 400) {
      throw new TokenServiceError(
        ErrorCode.INVALID_ADDRESS,
        `${upstreamLabel(this.upstream)} rejected the address: ${quoteUpstream(response.body) || "400 Bad Request"}`,
        {
          field: "address",
          details: { backend: "esplora", endpoint: this.endpoint },
        },
      );
    }
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    if (response.status === 429)
      throw upstreamUnavailable(
        this.upstream,
        `is rate limiting this service (${status}); retry later or point the network at another Esplora`,
        { status: 429 },
      );
    if (response.status === 404)
      throw upstreamUnavailable(
        this.upstream,
        `answered ${status} for /${path.split("/")[0]}: is the URL an Esplora API base (like https://mempool.space/api)?`,
        { status: 404 },
      );
    throw upstreamUnavailable(this.upstream, `answered ${status}`, { status: response.status });
  }

  private stats(value: unknown, name: string): AddressStats {
    const stats = value as Partial<AddressStats> | null | undefined;
    const valid = (amount: unknown) => typeof amount === "number" && Number.isSafeInteger(amount) && amount >= 0;
    if (typeof stats !== "object" || stats === null || !valid(stats.funded_txo_sum) || !valid(stats.spent_txo_sum)) {
      throw upstreamUnavailable(this.upstream, `answered without a valid ${name} (funded_txo_sum / spent_txo_sum)`);
    }
    return stats as AddressStats;
  }
}
