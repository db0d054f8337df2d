import { createServer, type IncomingMessage } from "node:http";

/** One HTTP request the relay passed on: its JSON-RPC calls and the node (index into the targets) that answered it. */
export interface RelayedRequest {
  node: number;
  calls: Array<{ method: string; params: unknown[] }>;
  /** The start of the node's answer, once it came (for a failing test's message). */
  answer?: string;
}

export interface RoundRobinRelay {
  url: string;
  /** Every request passed on, in the order they arrived. */
  requests: RelayedRequest[];
  /**
   * Runs `work` with no request at any node: those in flight finish first, those that arrive meanwhile wait for it (as
   * while a node imports a block).
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Once a request whose calls `matches` has been answered, holds every later one until `resume()`: what happened at the
   * nodes right after it, before any other request moved anything. Resolves once it holds.
   */
  pauseAfter(matches: (calls: RelayedRequest["calls"]) => boolean): Promise<void>;
  resume(): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A provider's load balancer on loopback: one URL in front of several real nodes, each HTTP request (a JSON-RPC batch
 * included, whole) to the next node in turn. The nodes share nothing through it: what one's pool holds, the others
 * learn only if something sends it to them.
 */
export async function startRoundRobinRelay(targets: readonly string[]): Promise<RoundRobinRelay> {
  let turn = 0;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  const requests: RelayedRequest[] = [];
  let pause: { matches: (calls: RelayedRequest["calls"]) => boolean; held: () => void } | undefined;
  let resume: (() => void) | undefined;

  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    // Waits out an exclusive turn (and one that starts while it waited).
    for (let current = gate; ; current = gate) {
      await current;
      if (current === gate) break;
    }
    const node = turn++ % targets.length;
    let calls: RelayedRequest["calls"];
    try {
      const parsed = JSON.parse(body) as { method: string; params?: unknown[] } | Array<{ method: string; params?: unknown[] }>;
      calls = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => ({ method: call.method, params: call.params ?? [] }));
    } catch {
      calls = [{ method: "(unparsable)", params: [] }];
    }
    const relayed: RelayedRequest = { node, calls };
    requests.push(relayed);
    inFlight++;
    try {
      const upstream = await fetch(targets[node]!, { method: "POST", headers: { "content-type": "application/json" }, body });
      const answer = Buffer.from(await upstream.arrayBuffer());
      relayed.answer = answer.toString("utf8").slice(0, 200);
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(answer);
      const rule = pause;
      if (rule?.matches(calls)) {
        pause = undefined;
        void exclusive(() => new Promise<void>((resolve) => ((resume = resolve), rule.held())));
      }
    } catch {
      response.writeHead(502, { "content-type": "text/plain" }).end("node unreachable");
    } finally {
      if (--inFlight === 0) drained?.();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  let exclusiveTail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = exclusiveTail.then(async () => {
      let open!: () => void;
      gate = new Promise<void>((resolve) => (open = resolve));
      try {
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
        drained = undefined;
        return await work();
      } finally {
        open();
      }
    });
    exclusiveTail = run.catch(() => undefined);
    return run;
  };

  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    exclusive,
    pauseAfter: (matches) => new Promise<void>((held) => (pause = { matches, held })),
    resume: () => {
      resume?.();
      resume = undefined;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
