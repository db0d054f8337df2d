import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { exchange, quoteUpstream, upstreamUnavailable, type Upstream } from "./upstream.js";

export const DEFAULT_BITCOIND_TIMEOUT_MS = 30_000;

/** Bitcoin Core's own error codes the backend reacts to. */
export const RpcCode = {
  MISC_ERROR: -1,
  WALLET_ERROR: -4,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  IN_WARMUP: -28,
  WALLET_NOT_FOUND: -18,
  WALLET_ALREADY_LOADED: -35,
  /** Not a transaction (sendrawtransaction's "TX decode failed"). */
  DESERIALIZATION_ERROR: -22,
  /** Inputs missing or spent, over maxfeerate. */
  VERIFY_ERROR: -25,
  /** Mempool policy: fees, dust, conflicts, standardness. */
  VERIFY_REJECTED: -26,
  /** Already in the chain ("Transaction outputs already in utxo set"). */
  VERIFY_ALREADY_IN_CHAIN: -27,
  METHOD_NOT_FOUND: -32601,
} as const;

/** An error the node itself reported for one call (its code and message); carries no credentials. */
export class BitcoindRpcError extends Error {
  constructor(
    readonly method: string,
    readonly rpcCode: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: ${rpcMessage} (code ${rpcCode})`);
    this.name = "BitcoindRpcError";
  }
}

export function isRpcError(error: unknown, ...codes: number[]): error is BitcoindRpcError {
  return error instanceof BitcoindRpcError && (codes.length === 0 || codes.includes(error.rpcCode));
}

export interface BitcoindConnection {
  /** The RPC URL without credentials. */
  url: URL;
  authorization: string | undefined;
  /** host:port, safe to print. */
  endpoint: string;
}

/**
 * Splits `http://user:pass@host:port` into a credential-free URL and a Basic
 * authorization header. Errors name the variable, never its value.
 */
export function parseBitcoindUrl(value: string, variable: string): BitcoindConnection {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TokenServiceError(ErrorCode.BACKEND_NOT_CONFIGURED, `${variable} is not a URL; expected http://user:password@host:port`, {
      field: "network",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TokenServiceError(
      ErrorCode.BACKEND_NOT_CONFIGURED,
      `${variable} must be an http(s) URL like http://user:password@host:port`,
      { field: "network" },
    );
  }
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const authorization = user || password ? `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` : undefined;
  return { url, authorization, endpoint: url.host };
}

export interface CallOptions {
  /** Routes the call to /wallet/<name>. */
  wallet?: string;
  /** Overrides the client's timeout, for calls that scan (scantxoutset, importdescriptors). */
  timeoutMs?: number;
}

/** A minimal Bitcoin Core JSON-RPC client over Node's fetch. */
export class BitcoindRpc {
  readonly upstream: Upstream;
  private nextId = 1;
  private readonly closing = new AbortController();

  constructor(
    private readonly connection: BitcoindConnection,
    private readonly timeoutMs = DEFAULT_BITCOIND_TIMEOUT_MS,
  ) {
    this.upstream = { backend: "bitcoind", endpoint: connection.endpoint };
  }

  async call<T>(method: string, params: unknown[] | Record<string, unknown> = [], options: CallOptions = {}): Promise<T> {
    const url = new URL(this.connection.url);
    if (options.wallet !== undefined) url.pathname = `${url.pathname.replace(/\/$/, "")}/wallet/${encodeURIComponent(options.wallet)}`;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.connection.authorization) headers.authorization = this.connection.authorization;
    const id = this.nextId++;
    const response = await exchange(
      this.upstream,
      url,
      { method: "POST", headers, body: JSON.stringify({ jsonrpc: "1.0", id, method, params }) },
      options.timeoutMs ?? this.timeoutMs,
      this.closing.signal,
    );
    if (response.status === 401 || response.status === 403) {
      throw upstreamUnavailable(
        this.upstream,
        `rejected the RPC credentials (${response.status}); check the user and password in the URL`,
        { status: response.status },
      );
    }
    // Bitcoin Core answers RPC errors with 500 (404 for an unknown method) and a JSON body.
    let reply: { result?: unknown; error?: { code?: unknown; message?: unknown } | null } | undefined;
    try {
      reply = JSON.parse(response.body) as typeof reply;
    } catch {
      reply = undefined;
    }
    if (reply === undefined || reply === null || typeof reply !== "object" || !("result" in reply || "error" in reply)) {
      const detail =
        response.status === 200
          ? "a body that is not JSON-RPC"
          : `${response.status} ${response.statusText} ${quoteUpstream(response.body, 120)}`.trim();
      throw upstreamUnavailable(this.upstream, `answered ${method} with ${detail}`, { status: response.status, method });
    }
    if (reply.error) {
      const code = typeof reply.error.code === "number" ? reply.error.code : RpcCode.MISC_ERROR;
      const message = typeof reply.error.message === "string" ? reply.error.message : "unknown error";
      if (code === RpcCode.IN_WARMUP)
        throw upstreamUnavailable(this.upstream, `is starting up: ${quoteUpstream(message)}`, { rpcCode: code });
      throw new BitcoindRpcError(method, code, message);
    }
    return reply.result as T;
  }

  /** Cancels the calls in flight (the node finishes them on its side). */
  close(): void {
    this.closing.abort();
  }

  /** Turns an error the node reported into an UPSTREAM_UNAVAILABLE naming the call; passes typed errors through. */
  unexpected(error: unknown): TokenServiceError {
    if (error instanceof TokenServiceError) return error;
    if (error instanceof BitcoindRpcError) {
      return upstreamUnavailable(
        this.upstream,
        `failed ${error.method}: ${quoteUpstream(error.rpcMessage)}`,
        { method: error.method, rpcCode: error.rpcCode },
        error,
      );
    }
    return upstreamUnavailable(this.upstream, "failed", {}, error);
  }
}
