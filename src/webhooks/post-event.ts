import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";

import type { TargetGuard } from "./target-guard.js";

export interface PostOutcome {
  /** The receiver's status code, or null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** Why it did not count as delivered; undefined for a 2xx. */
  error?: string;
}

/**
 * POSTs `body` to `url` once: no redirect is followed (a 3xx is an answer, not 2xx), the connection goes only to an
 * address the guard resolved and allowed at this moment, and `timeoutMs` bounds the whole attempt.
 */
export function postEvent(
  url: string,
  body: string,
  headers: Record<string, string>,
  guard: TargetGuard,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      resolve(outcome);
    };
    const target = new URL(url);
    // Resolved by the guard, so what is checked is what is connected to (a name rebound to a private address fails here).
    const lookup: LookupFunction = (_hostname, options, callback) => {
      guard.resolve(target).then(
        (addresses) => {
          if (options.all) return callback(null, addresses);
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        },
        (error: Error) => callback(Object.assign(error, { code: "ETARGETREFUSED" }), "", 0),
      );
    };
    const client = target.protocol === "https:" ? https : http;
    const request = client.request(target, {
      method: "POST",
      headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      lookup,
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ status: null, error: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    function stop() {
      finish({ status: null, error: "stopped: the process is shutting down" });
      request.destroy();
    }
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      // The answer's body is not needed: only its status says whether the event arrived.
      response.resume();
      response.on("error", () => undefined);
      finish(status >= 200 && status < 300 ? { status } : { status, error: `answered HTTP ${status}` });
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      finish({
        status: null,
        error: error.code === "ETARGETREFUSED" ? error.message : `could not deliver: ${error.code ?? error.message}`,
      });
    });
    request.end(body);
  });
}
