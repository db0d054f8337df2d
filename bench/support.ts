// What every bench section shares: statistics, formatting, concurrent loops, and the ratio table's row.
import http from "node:http";
import os from "node:os";

export interface RatioRow {
  measure: string;
  service: string;
  anchor: string;
  /** service ÷ anchor as the row defines it; undefined when the row has no ratio (a count, a report). */
  ratio?: number;
  /** The ratio of each repetition, when the row is the median of several. */
  ratios?: number[];
  target: string;
  /** Whether the target was met; undefined when the target only asks for the number. */
  met?: boolean;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const median = (samples: number[]) => percentile(samples, 50);

export const ms = (value: number) =>
  value < 0.1 ? `${(value * 1000).toFixed(value < 0.01 ? 2 : 1)} µs` : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(2)} s`;
export const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")} /s`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const ratio = (value: number) => (value >= 10 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toPrecision(2));

/** How many times the rows that compare rates run, anchor and service alternating; each row shows medians. */
export const REPETITIONS = 3;

/** Latency of `count` calls made one after another, in milliseconds. */
export async function sequentialLatencies(count: number, work: (index: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await work(index);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** `callers` loops calling `work` until `durationMs` passed (or `total` calls were started); calls per second. */
export async function concurrentRate(
  callers: number,
  work: () => Promise<unknown>,
  limit: { durationMs?: number; total?: number },
): Promise<{ calls: number; perSecond: number; elapsedMs: number }> {
  const start = performance.now();
  const deadline = limit.durationMs === undefined ? Infinity : start + limit.durationMs;
  let started = 0;
  let calls = 0;
  const loop = async () => {
    while (performance.now() < deadline && (limit.total === undefined || started < limit.total)) {
      started++;
      await work();
      calls++;
    }
  };
  await Promise.all(Array.from({ length: callers }, loop));
  const elapsedMs = performance.now() - start;
  return { calls, perSecond: (calls / elapsedMs) * 1000, elapsedMs };
}

/** The machine the numbers come from, as one line. */
export function machine(): string {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  return `${cpus.length} cores × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}; load average at start ${load}`;
}

/** Collects garbage when the bench runs with --expose-gc (the npm script passes it), so RSS readings compare like with like. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function formatRatioTable(rows: RatioRow[]): string {
  const lines = ["| measure | service | anchor (same run) | ratio | target |", "|---|---|---|---|---|"];
  for (const row of rows) {
    const verdict = row.met === undefined ? "" : row.met ? " — met" : " — **missed**";
    const shown = row.ratio === undefined ? "—" : ratio(row.ratio);
    const each = row.ratios && row.ratios.length > 1 ? ` (${row.ratios.map(ratio).join(", ")})` : "";
    lines.push(`| ${row.measure} | ${row.service} | ${row.anchor} | ${shown}${each} | ${row.target}${verdict} |`);
  }
  return lines.join("\n");
}

/**
 * POSTs JSON bodies to `base` as an HTTP client application would: Node's http module, keep-alive, at most `sockets`
 * connections (a pool, below the service's per-client bound), the answer parsed as JSON.
 */
export function jsonPoster(
  base: string,
  headers: Record<string, string>,
  sockets = 32,
): { post(route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return {
    post: (route, body) =>
      new Promise((resolve, reject) => {
        const payload = Buffer.from(JSON.stringify(body));
        const request = http.request(
          `${base}${route}`,
          { method: "POST", agent, headers: { ...headers, "content-type": "application/json", "content-length": payload.length } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => {
              try {
                resolve({
                  status: response.statusCode ?? 0,
                  json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
                });
              } catch (error) {
                reject(error as Error);
              }
            });
            response.on("error", reject);
          },
        );
        request.on("error", reject);
        request.end(payload);
      }),
    close: () => agent.destroy(),
  };
}
