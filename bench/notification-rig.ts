import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

import { createServer, type TokenServiceServer } from "../src/http/app.js";
import { listen, shutdown } from "../src/http/listen.js";
import type { CountingProxy } from "../test/helpers/json-rpc-servers.js";

// The rig of the chain-notification bench (bench/notifications.ts): a webhook receiver that notes arrivals, the service
// as `serve` runs it on a loopback port, a JSON-RPC batch straight to a node, and the counting relay's tallies.

const API_KEY = "bench-key-0123456789abcdef";

export interface Arrival {
  at: number;
  /** When the delivery was queued: the scan's commit (the envelope's createdAt, the database's clock, ms). */
  queuedAt: number;
  id: string;
  subscriptionId: string;
  blockNumber: number;
  txHash: string;
  direction: string;
}

/** A webhook receiver on 127.0.0.1 that notes when each event arrives and answers 204. */
export async function startReceiver(): Promise<{ url: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const server: Server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        createdAt: string;
        data: { id: string; subscriptionId: string; blockNumber: number; txHash: string; direction: string };
      };
      const { id, subscriptionId, blockNumber, txHash, direction } = body.data;
      arrivals.push({ at, queuedAt: Date.parse(body.createdAt), id, subscriptionId, blockNumber, txHash, direction });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One JSON-RPC batch straight to `url`; every answer's result, in the calls' order (an error throws). */
export async function batch(url: string, calls: Array<{ method: string; params: unknown[] }>): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }))),
  });
  const answers = (await response.json()) as Array<{ id: number; result?: unknown; error?: { message: string } }>;
  answers.sort((a, b) => a.id - b.id);
  const failed = answers.find((answer) => answer.error !== undefined);
  if (failed !== undefined) throw new Error(`${calls[failed.id]!.method}: ${failed.error!.message}`);
  return answers.map((answer) => answer.result);
}

/** The service as `serve` runs it (SQLite in a fresh data directory), its sepolia endpoint `rpcUrl`, on a loopback port. */
export async function startService(rpcUrl: string): Promise<{
  call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  warnings: string[];
  server: TokenServiceServer;
  close(): Promise<void>;
}> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-notifications-"));
  const warnings: string[] = [];
  const server = await createServer({
    dataDir,
    apiKeys: [API_KEY],
    rateLimit: { limit: 0, windowMs: 60_000 },
    // Lines at the default level are formatted; warnings and errors (a scan step that failed) are kept for the report.
    logDestination: {
      write(line: string) {
        if ((JSON.parse(line) as { level: number }).level >= 40) warnings.push(line.trim());
      },
    },
    env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: rpcUrl, TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
  });
  const http = await listen(server, "127.0.0.1", 0);
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    warnings,
    server,
    async call(method, urlPath, body) {
      const response = await fetch(`${baseUrl}${urlPath}`, {
        method,
        headers: { "x-api-key": API_KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
    },
    async close() {
      await shutdown(http, server);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const totalCalls = (proxy: CountingProxy) => [...proxy.counts.values()].reduce((sum, count) => sum + count, 0);

export function callsSince(proxy: CountingProxy, before: Map<string, number>): Map<string, number> {
  const since = new Map<string, number>();
  for (const [method, count] of proxy.counts)
    if (count - (before.get(method) ?? 0) > 0) since.set(method, count - (before.get(method) ?? 0));
  return since;
}
