import http from "node:http";
import https from "node:https";
import { gunzipSync } from "node:zlib";

import { makeError } from "ethers";

export interface HttpAnswer {
  statusCode: number;
  /** The answer's bytes, decompressed when the server sent them gzipped. */
  body: Buffer;
}

/**
 * One POST of `body` to `url` with Node's HTTP client and its keep-alive agents: what ethers' `FetchRequest` did for the
 * endpoint pool (the same headers, gzip asked for and undone, credentials in the URL sent as Basic authorization),
 * without its copies of the request and body, its throttle and its per-request listeners: a burst's broadcasts go one
 * after another through here, each waiting for the one before, so what a request costs this process is on their path.
 * No whole answer within `timeoutMs` of the request's start (whatever arrived meanwhile) fails with ethers' TIMEOUT
 * error, as before; a connection that fails keeps Node's error (its `code`: ECONNREFUSED, ECONNRESET, …).
 */
export function httpPost(url: URL, body: Buffer, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(body.length), "accept-encoding": "gzip" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", (error) => settle(() => reject(error)));
        response.on("end", () =>
          settle(() => {
            try {
              const bytes = Buffer.concat(chunks);
              const gzipped = /\bgzip\b/i.test(String(response.headers["content-encoding"] ?? ""));
              resolve({ statusCode: response.statusCode ?? 0, body: gzipped ? gunzipSync(bytes) : bytes });
            } catch (error) {
              reject(error);
            }
          }),
        );
      },
    );
    const timer = setTimeout(() => {
      const timeout = makeError("request timeout", "TIMEOUT");
      settle(() => reject(timeout));
      request.destroy(timeout);
    }, timeoutMs);
    request.on("error", (error) => settle(() => reject(error)));
    request.end(body);
  });
}
