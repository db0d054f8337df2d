import { ErrorCode, TokenServiceError } from "../../domain/errors.js";

/** Who answered, for messages and error details; never carries credentials. */
export interface Upstream {
  backend: "esplora" | "bitcoind";
  /** host[:port], or a known public URL. */
  endpoint: string;
}

export function upstreamLabel(upstream: Upstream): string {
  return `${upstream.backend === "esplora" ? "Esplora" : "bitcoind"} at ${upstream.endpoint}`;
}

export function upstreamUnavailable(
  upstream: Upstream,
  message: string,
  extra: Record<string, unknown> = {},
  cause?: unknown,
): TokenServiceError {
  return new TokenServiceError(ErrorCode.UPSTREAM_UNAVAILABLE, `${upstreamLabel(upstream)} ${message}`, {
    details: { backend: upstream.backend, endpoint: upstream.endpoint, ...extra },
    ...(cause !== undefined ? { cause } : {}),
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || (error.cause instanceof Error && error.cause.name === "TimeoutError"));
}

/** The system error code (ECONNREFUSED, ENOTFOUND, ...) behind a failed fetch, if any. */
function networkReason(error: unknown): string | undefined {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === "string" ? cause.code : undefined;
}

export interface UpstreamResponse {
  status: number;
  statusText: string;
  body: string;
}

/**
 * One HTTP exchange bounded by `timeoutMs` (the body included). Transport
 * failures become UPSTREAM_TIMEOUT or UPSTREAM_UNAVAILABLE; the URL must not
 * carry credentials (fetch refuses them anyway).
 */
export async function exchange(
  upstream: Upstream,
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  cancel?: AbortSignal,
): Promise<UpstreamResponse> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { ...init, signal: cancel ? AbortSignal.any([timeout, cancel]) : timeout });
    return { status: response.status, statusText: response.statusText, body: await response.text() };
  } catch (error) {
    if (cancel?.aborted) throw upstreamUnavailable(upstream, "request was cancelled: the service is closing", {}, error);
    if (isTimeout(error)) {
      throw new TokenServiceError(ErrorCode.UPSTREAM_TIMEOUT, `${upstreamLabel(upstream)} did not answer within ${timeoutMs} ms`, {
        details: { backend: upstream.backend, endpoint: upstream.endpoint, timeoutMs },
        cause: error,
      });
    }
    const reason = networkReason(error);
    throw upstreamUnavailable(upstream, `is unreachable${reason ? ` (${reason})` : ""}`, reason ? { reason } : {}, error);
  }
}

/** Upstream text fit to quote in a message: one line, printable, short. */
export function quoteUpstream(text: string, max = 200): string {
  const line = text.replace(/[^\x20-\x7e]+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
