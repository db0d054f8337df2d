import { Agent, createServer, request, type Server } from "node:http";
import { connect } from "node:net";
import { expect } from "chai";

import { type RunningServer, startServer } from "../../helpers/http-server.js";
import { checkResponseAgainstOpenApi, parseBody, ResponseSchemaMismatch } from "../../helpers/openapi-responses.js";
import { Dice, makeRequest, type RequestSpec } from "../../helpers/fuzz-requests.js";

/**
 * Bad input over every endpoint: thousands of deterministic hostile requests, a
 * few at a time, and not one 5xx, a 4xx without the JSON error shape, or a hang.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const REQUESTS = 10_000;
const CONCURRENCY = 20;
const PER_REQUEST_DEADLINE_MS = 20_000;

interface Outcome {
  status: number;
  contentType: string;
  text: string;
}

function sendWithClient(baseUrl: string, spec: RequestSpec, agent: Agent): Promise<Outcome> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body, "utf8");
    const headers = {
      ...spec.headers,
      ...(body !== undefined && !("content-length" in spec.headers) ? { "content-length": String(body.length) } : {}),
    };
    const outgoing = request({ hostname, port, method: spec.method, path: spec.path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers["content-type"] ?? ""),
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function sendRaw(baseUrl: string, spec: RequestSpec): Promise<Outcome> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const head = split === -1 ? text : text.slice(0, split);
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /^content-type:\s*(.*)$/im.exec(head)?.[1] ?? "",
        text: split === -1 ? "" : text.slice(split + 4),
      });
    });
    socket.write(Buffer.from(spec.raw!, "latin1"));
  });
}

/** A problem with one response, or undefined when it is acceptable. */
function problemWith(spec: RequestSpec, outcome: Outcome): string | undefined {
  if (outcome.status >= 500) return `status ${outcome.status}: ${outcome.text.slice(0, 300)}`;
  if (spec.raw !== undefined && outcome.status === 0) return undefined; // the parser may drop what is not HTTP at all
  if (outcome.status < 100) return `no status: ${outcome.text.slice(0, 200)}`;
  if (outcome.status >= 400 && spec.method !== "HEAD") {
    let parsed: { error?: { code?: unknown; message?: unknown } };
    try {
      parsed = JSON.parse(outcome.text);
    } catch {
      return `status ${outcome.status} with a body that is not JSON (${outcome.contentType}): ${outcome.text.slice(0, 200)}`;
    }
    if (typeof parsed.error?.code !== "string" || typeof parsed.error.message !== "string")
      return `status ${outcome.status} without error.code: ${outcome.text.slice(0, 200)}`;
    if (!outcome.contentType.startsWith("application/json")) return `status ${outcome.status} labelled ${outcome.contentType}`;
  }
  if (spec.raw === undefined) {
    try {
      checkResponseAgainstOpenApi(spec.method, spec.path, {
        status: outcome.status,
        contentType: outcome.contentType,
        body: parseBody(outcome.text),
      });
    } catch (error) {
      if (error instanceof ResponseSchemaMismatch) return error.message;
      throw error;
    }
  }
  return undefined;
}

/** Serves zero balances for any address, so Bitcoin reads stay on this machine. */
async function startEsploraStub(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((incoming, response) => {
    if (/^\/address\/[^/]+$/.test(incoming.url ?? "")) {
      const stats = { funded_txo_sum: 0, spent_txo_sum: 0 };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ chain_stats: stats, mempool_stats: stats }));
      return;
    }
    response.writeHead(404).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("HTTP service — bad-input fuzz", function () {
  let api: RunningServer;
  let esplora: { url: string; close(): Promise<void> };

  before(async function () {
    esplora = await startEsploraStub();
    api = await startServer({
      env: {
        TOKEN_SERVICE_ESPLORA_BITCOIN_MAINNET: esplora.url,
        TOKEN_SERVICE_ESPLORA_BITCOIN_TESTNET: esplora.url,
        TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET: esplora.url,
        TOKEN_SERVICE_ESPLORA_BITCOIN_REGTEST: esplora.url,
        // Counted, so the path runs, but never reached: the fuzz sends wrong keys on purpose.
        TOKEN_SERVICE_AUTH_FAILURE_LIMIT: "1000000",
        // The keystore unlocked, as a service that holds wallets runs: a locked one answers 503 by design (KEYSTORE_LOCKED).
        TOKEN_SERVICE_KEYSTORE_PASSPHRASE: "the fuzz test's keystore passphrase",
      },
    });
  });

  after(async function () {
    await api?.stop();
    await esplora?.close();
  });

  it(`answers ${REQUESTS} hostile requests (seed ${SEED}) without a 5xx, a 4xx outside the error shape, or a hang`, async function () {
    this.timeout(180_000);
    const dice = new Dice(SEED);
    const specs = Array.from({ length: REQUESTS }, () => makeRequest(dice));
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    const started = Date.now();
    let nextIndex = 0;

    const worker = async () => {
      for (let index = nextIndex++; index < specs.length; index = nextIndex++) {
        const spec = specs[index]!;
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<"hang">((resolve) => {
          timer = setTimeout(() => resolve("hang"), PER_REQUEST_DEADLINE_MS);
        });
        const sent = (spec.raw !== undefined ? sendRaw(api.baseUrl, spec) : sendWithClient(api.baseUrl, spec, agent)).catch(
          (error: Error) => error,
        );
        const outcome = await Promise.race([sent, deadline]);
        clearTimeout(timer);
        const label = `#${index} ${spec.method} ${spec.path.slice(0, 160)}`;
        if (outcome === "hang") {
          problems.push(`${label}: no answer within ${PER_REQUEST_DEADLINE_MS} ms`);
        } else if (outcome instanceof Error) {
          // A raw request the parser refuses may end with a reset; a well-formed one must be answered.
          if (spec.raw === undefined) problems.push(`${label}: ${outcome.message}`);
        } else {
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
          const problem = problemWith(spec, outcome);
          if (problem !== undefined) problems.push(`${label} (body ${spec.body?.slice(0, 120) ?? "none"}): ${problem}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    agent.destroy();
    const elapsedMs = Date.now() - started;
    const summary = `${REQUESTS} requests in ${elapsedMs} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`;

    // The problems themselves in the message: chai cuts a long array short.
    expect(problems.length, `${problems.length} problems; ${summary}\n${problems.slice(0, 20).join("\n")}`).to.equal(0);
    expect([...statuses.values()].reduce((sum, count) => sum + count, 0)).to.be.at.least(REQUESTS * 0.97);
    expect(elapsedMs, summary).to.be.below(110_000);
    expect(api.logs.text()).not.to.include('"code":"INTERNAL"');
  });
});
