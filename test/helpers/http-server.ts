import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import hre from "hardhat";

import { hardhatSimulatedChains } from "../../src/hardhat/simulated-chains.js";
import { createServer, type CreateServerOptions, type TokenServiceServer } from "../../src/http/app.js";
import { createLogger } from "../../src/http/logger.js";
import { listen, shutdown } from "../../src/http/listen.js";
import { checkResponseAgainstOpenApi, parseBody } from "./openapi-responses.js";

export const TEST_API_KEY = "test-key-0123456789";

/** Collects the service's log lines so tests can read them. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    callback();
  }
  text(): string {
    return this.lines.join("\n");
  }
}

export interface RunningServer {
  baseUrl: string;
  server: TokenServiceServer;
  http: Server;
  logs: LogCapture;
  dataDir: string;
  /** fetch with the API key (header) and JSON helpers; the answer is checked against /openapi.json. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export async function startServer(options: Partial<CreateServerOptions> = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "hts-http-")));
  const logs = new LogCapture();
  const server = await createServer({
    simulatedChainFactory: hardhatSimulatedChains(hre),
    blockTimeSeconds: 0,
    apiKeys: [TEST_API_KEY],
    rateLimit: { limit: 0, windowMs: 60_000 },
    logger: createLogger(logs, "debug"),
    env: {},
    ...options,
    dataDir,
  });
  const http = await listen(server, "127.0.0.1", 0);
  const address = http.address();
  const baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    baseUrl,
    server,
    http,
    logs,
    dataDir,
    async call(method, urlPath, body, headers = {}) {
      const response = await fetch(`${baseUrl}${urlPath}`, {
        method,
        headers: { "x-api-key": TEST_API_KEY, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      });
      // Non-JSON bodies (the docs page) stay text.
      const parsed = parseBody(await response.text());
      checkResponseAgainstOpenApi(method, urlPath, {
        status: response.status,
        contentType: response.headers.get("content-type"),
        body: parsed,
      });
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async stop({ keepData = false } = {}) {
      await shutdown(http, server);
      if (!keepData && options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `read` until `done` holds, or fails after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
