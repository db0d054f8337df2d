import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { bitcoinBalance } from "./amounts.js";
import type {
  BitcoinBackend,
  BitcoinBalance,
  BitcoinBlockHeader,
  BitcoinBlockTransaction,
  BitcoinTransactionStatus,
  BitcoinUtxo,
} from "./backend.js";
import { broadcastRefused, isAlreadyKnown } from "./broadcast-refusals.js";
import { ESPLORA_BLOCK_PAGE, parseEsploraBlock, parseEsploraTransactions, type EsploraBlock } from "./esplora-blocks.js";
import { ownTxid, requireTxid, satPerVbyte } from "./transactions.js";
import { FEE_RATE_FLOOR } from "./tx-size.js";
import { exchange, quoteUpstream, upstreamLabel, upstreamUnavailable, type Upstream, type UpstreamResponse } from "./upstream.js";

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

/** Where Esplora says a transaction is: `confirmed: false` also for a transaction it does not know. */
interface EsploraStatus {
  confirmed: boolean;
  block_height?: number;
  block_hash?: string;
}

interface EsploraUtxo {
  txid: string;
  vout: number;
  value: number;
  status: EsploraStatus;
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isHash = (value: unknown): value is string => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);

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
    await this.tipHeight();
  }

  async tipHeight(): Promise<number> {
    const body = await this.get("blocks/tip/height");
    if (!/^\d+\s*$/.test(body)) throw upstreamUnavailable(this.upstream, "answered blocks/tip/height with something other than a height");
    return Number(body.trim());
  }

  /** `/address/:address/utxo`; confirmations follow from the tip height read right after. */
  async listUnspent(address: string): Promise<BitcoinUtxo[]> {
    const listed = this.json(await this.get(`address/${encodeURIComponent(address)}/utxo`), "address utxo");
    if (!Array.isArray(listed))
      throw upstreamUnavailable(this.upstream, "answered the address's utxo list with something other than a list");
    const tip = await this.tipHeight();
    return listed.map((entry: Partial<EsploraUtxo>) => {
      if (!isHash(entry?.txid) || !isCount(entry.vout) || !isCount(entry.value) || typeof entry.status?.confirmed !== "boolean") {
        throw upstreamUnavailable(this.upstream, "answered a utxo without txid, vout, value or status");
      }
      return { txid: entry.txid, vout: entry.vout, value: BigInt(entry.value), confirmations: this.confirmations(entry.status, tip) };
    });
  }

  /** `POST /tx`; Esplora passes on the node's refusal as `400 sendrawtransaction RPC error: {"code":…,"message":…}`. */
  async broadcast(rawHex: string): Promise<string> {
    const response = await this.request("tx", { method: "POST", headers: { "content-type": "text/plain" }, body: rawHex });
    if (response.status === 200) {
      const txid = response.body.trim();
      if (!isHash(txid)) throw upstreamUnavailable(this.upstream, "answered the broadcast with something other than a txid");
      return txid;
    }
    if (response.status === 400) {
      const { message, code } = nodeError(response.body);
      if (isAlreadyKnown(message)) return ownTxid(rawHex);
      throw broadcastRefused(this.upstream, message, code);
    }
    throw this.failure(response, "tx");
  }

  /**
   * `/tx/:txid/status`. Esplora answers `{"confirmed": false}` for a transaction it does not know as for one in its
   * mempool, so an unconfirmed answer is told apart by `/tx/:txid/hex` (404 when unknown).
   */
  async transactionStatus(txid: string): Promise<BitcoinTransactionStatus> {
    requireTxid(txid);
    const response = await this.request(`tx/${txid}/status`);
    if (response.status === 404) return { state: "unknown" };
    if (response.status !== 200) throw this.failure(response, "tx");
    const status = this.json(response.body, "transaction status") as Partial<EsploraStatus> | null;
    if (typeof status?.confirmed !== "boolean")
      throw upstreamUnavailable(this.upstream, "answered a transaction status without `confirmed`");
    if (!status.confirmed) return (await this.transactionHex(txid)) === undefined ? { state: "unknown" } : { state: "mempool" };
    if (!isCount(status.block_height) || !isHash(status.block_hash)) {
      throw upstreamUnavailable(this.upstream, "answered a confirmed transaction status without block_height or block_hash");
    }
    const tip = await this.tipHeight();
    return {
      state: "confirmed",
      blockHeight: status.block_height,
      blockHash: status.block_hash,
      confirmations: this.confirmations(status as EsploraStatus, tip),
    };
  }

  async transactionHex(txid: string): Promise<string | undefined> {
    requireTxid(txid);
    const response = await this.request(`tx/${txid}/hex`);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw this.failure(response, "tx");
    const hex = response.body.trim();
    if (!/^(?:[0-9a-f]{2})+$/.test(hex))
      throw upstreamUnavailable(this.upstream, "answered a transaction's hex with something other than hex");
    return hex;
  }

  /**
   * `/fee-estimates` maps confirmation targets (1 to 25, 144, 504, 1008 blocks) to sat/vB. The estimate used is the
   * one for the largest target within `targetBlocks` (a rate that confirms at least as fast), or the smallest target's
   * when all are longer; with no estimate at all (a regtest Esplora) it is FEE_RATE_FLOOR, and never below it.
   */
  async feeRate(targetBlocks: number): Promise<number> {
    const estimates = this.json(await this.get("fee-estimates"), "fee estimates");
    if (typeof estimates !== "object" || estimates === null || Array.isArray(estimates)) {
      throw upstreamUnavailable(this.upstream, "answered fee-estimates with something other than an object");
    }
    const targets = Object.entries(estimates)
      .map(([target, rate]) => ({ target: Number(target), rate }))
      .filter(
        (entry): entry is { target: number; rate: number } =>
          Number.isInteger(entry.target) && typeof entry.rate === "number" && entry.rate > 0,
      )
      .sort((a, b) => a.target - b.target);
    const within = targets.filter((entry) => entry.target <= targetBlocks).at(-1) ?? targets[0];
    return within === undefined ? FEE_RATE_FLOOR : Math.max(satPerVbyte(within.rate), FEE_RATE_FLOOR);
  }

  /** `/blocks/tip/hash`, then that block: a height and a hash that agree. */
  async tip(): Promise<{ height: number; hash: string }> {
    const hash = (await this.get("blocks/tip/hash")).trim();
    if (!isHash(hash)) throw upstreamUnavailable(this.upstream, "answered blocks/tip/hash with something other than a block hash");
    const block = await this.block(hash);
    if (block === undefined) throw upstreamUnavailable(this.upstream, "does not know the block it answered as its tip");
    return { height: block.height, hash };
  }

  /** `/block-height/:height` (404 above the tip), then that block. */
  async blockHeader(height: number): Promise<BitcoinBlockHeader | undefined> {
    const response = await this.request(`block-height/${height}`);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw this.failure(response, "block-height");
    const hash = response.body.trim();
    if (!isHash(hash)) throw upstreamUnavailable(this.upstream, "answered block-height with something other than a block hash");
    const block = await this.block(hash);
    return block === undefined ? undefined : { height: block.height, hash, previousHash: block.previousHash };
  }

  /** `/block/:hash/txs/:start`, page after page of 25, up to the block's `tx_count`. */
  async blockTransactions(hash: string): Promise<BitcoinBlockTransaction[]> {
    const block = await this.block(hash);
    if (block === undefined) throw upstreamUnavailable(this.upstream, `does not know block ${hash}`);
    const transactions: BitcoinBlockTransaction[] = [];
    for (let start = 0; start < block.txCount; start += ESPLORA_BLOCK_PAGE) {
      const response = await this.request(`block/${hash}/txs/${start}`);
      if (response.status !== 200) throw this.failure(response, "block");
      const page = parseEsploraTransactions(this.json(response.body, "block's transactions"));
      if (typeof page === "string") throw upstreamUnavailable(this.upstream, `answered block/${hash}/txs/${start} with ${page}`);
      if (page.length !== Math.min(ESPLORA_BLOCK_PAGE, block.txCount - start)) {
        throw upstreamUnavailable(this.upstream, `answered block/${hash}/txs/${start} with ${page.length} transactions`);
      }
      transactions.push(...page);
    }
    return transactions;
  }

  /** `/block/:hash`; undefined when Esplora does not know it. */
  private async block(hash: string): Promise<EsploraBlock | undefined> {
    const response = await this.request(`block/${hash}`);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw this.failure(response, "block");
    const block = parseEsploraBlock(this.json(response.body, "block"), hash);
    if (typeof block === "string") throw upstreamUnavailable(this.upstream, `answered block/${hash} with ${block}`);
    return block;
  }

  private confirmations(status: EsploraStatus, tip: number): number {
    if (!status.confirmed) return 0;
    if (!isCount(status.block_height)) throw upstreamUnavailable(this.upstream, "answered a confirmed output without block_height");
    // The tip is read after the list; a load-balanced Esplora may answer it from a node a block behind.
    return Math.max(1, tip - status.block_height + 1);
  }

  private json(body: string, what: string): unknown {
    try {
      return JSON.parse(body);
    } catch (error) {
      throw upstreamUnavailable(this.upstream, `answered the ${what} with a body that is not JSON`, {}, error);
    }
  }

  private request(path: string, init: RequestInit = {}): Promise<UpstreamResponse> {
    return exchange(this.upstream, new URL(path, this.base), { headers: { accept: "application/json" }, ...init }, this.timeoutMs);
  }

  private async get(path: string): Promise<string> {
    const response = await this.request(path);
    if (response.status === 200) return response.body;
    // electrs caps what one answer lists ("Too many unspent transaction outputs (>500)…"): the address is fine, the
    // server will not list it.
    if (response.status === 400 && /too many/i.test(response.body)) {
      throw upstreamUnavailable(this.upstream, `will not list that much for /${path}: ${quoteUpstream(response.body)}`, { status: 400 });
    }
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
    throw this.failure(response, path);
  }

  /** The error for an answer that is neither success nor a refusal the caller handles. */
  private failure(response: UpstreamResponse, path: string): TokenServiceError {
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    if (response.status === 429)
      return upstreamUnavailable(
        this.upstream,
        `is rate limiting this service (${status}); retry later or point the network at another Esplora`,
        { status: 429 },
      );
    if (response.status === 404)
      return upstreamUnavailable(
        this.upstream,
        `answered ${status} for /${path.split("/")[0]}: is the URL an Esplora API base (like https://mempool.space/api)?`,
        { status: 404 },
      );
    return upstreamUnavailable(this.upstream, `answered ${status}`, { status: response.status });
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

/** The node's code and message inside Esplora's 400 answer to a broadcast; the whole body when it has no JSON part. */
function nodeError(body: string): { message: string; code?: number } {
  const start = body.indexOf("{");
  if (start >= 0) {
    try {
      const parsed = JSON.parse(body.slice(start)) as { code?: unknown; message?: unknown };
      if (typeof parsed.message === "string")
        return { message: parsed.message, ...(typeof parsed.code === "number" ? { code: parsed.code } : {}) };
    } catch {
      // Not JSON after all: the plain text is the reason.
    }
  }
  return { message: body };
}
