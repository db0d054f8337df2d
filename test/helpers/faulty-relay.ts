import { createServer, type IncomingMessage } from "node:http";

/** What the relay does with one HTTP request, given its JSON-RPC methods and its place among the requests (0, 1, …). */
export type Fault =
  /** Forwarded to the node, its answer relayed. */
  | "forward"
  /** Answered with that status at once; the node never sees it. */
  | 429
  | 503
  /** Forwarded, so the node acts on it, but the answer is lost: the client gets a 503, as from a proxy that failed after. */
  | "lose-answer"
  /** Forwarded, the node's error answers relayed without their `data` (as nodes that give no revert data for eth_estimateGas). */
  | "strip-error-data"
  /** Forwarded, the node's error messages relayed reworded (as another client words the same refusal). */
  | { reword(message: string): string }
  /**
   * Each call of the request (a batch's, in order) for which `refuseCall` gives a message is answered with that JSON-RPC
   * error, as a node refusing that one; the others go to the node (together, as a batch if the request was one).
   */
  | { refuseCall(call: RelayedCall, position: number, calls: RelayedCall[]): string | undefined };

/** One JSON-RPC call as the relay received it. */
export interface RelayedCall {
  jsonrpc?: string;
  id?: unknown;
  method: string;
  params?: unknown[];
}

export interface FaultyRelay {
  url: string;
  /** The JSON-RPC methods of each HTTP request that arrived, one array per request. */
  requests: string[][];
  /** How many were answered by a fault (429, 503, a lost answer) instead of the node. */
  faults: number;
  /** Changes what the relay does from now on. */
  setFault(decide: (methods: string[], index: number) => Fault): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * An HTTP relay in front of a real node that misbehaves as public RPC providers do: for the requests `decide` picks, it
 * answers 429 or 503 without asking the node, or asks the node and loses the answer. The rest go to the node, on
 * whatever path they came (a provider's `/v2/KEY` included). It is the fault, not a stand-in for the node.
 */
export async function startFaultyRelay(
  target: string,
  decide: (methods: string[], index: number) => Fault = () => "forward",
): Promise<FaultyRelay> {
  let current = decide;
  const relay: FaultyRelay = {
    url: "",
    requests: [],
    faults: 0,
    setFault: (next) => void (current = next),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    let methods: string[];
    try {
      const parsed = JSON.parse(body) as { method: string } | Array<{ method: string }>;
      methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => call.method);
    } catch {
      methods = ["(unparsable)"];
    }
    const index = relay.requests.length;
    relay.requests.push(methods);
    const fault = current(methods, index);
    if (fault === 429 || fault === 503) {
      relay.faults++;
      response.writeHead(fault, { "content-type": "text/plain" }).end(fault === 429 ? "rate limited" : "unavailable");
      return;
    }
    if (typeof fault === "object" && "refuseCall" in fault) {
      const parsed = JSON.parse(body) as RelayedCall | RelayedCall[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      const refusals = calls.map((call, position) => fault.refuseCall(call, position, calls));
      if (refusals.some((refusal) => refusal !== undefined)) relay.faults++;
      const forwarded = calls.filter((_, position) => refusals[position] === undefined);
      let answers: Array<{ id?: unknown }> = [];
      if (forwarded.length > 0) {
        const sent = await fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(Array.isArray(parsed) ? forwarded : forwarded[0]),
        });
        const answer = (await sent.json()) as { id?: unknown } | Array<{ id?: unknown }>;
        answers = Array.isArray(answer) ? answer : [answer];
      }
      const reply = calls.map((call, position) =>
        refusals[position] !== undefined
          ? { jsonrpc: "2.0", id: call.id, error: { code: -32000, message: refusals[position] } }
          : answers.find((answer) => answer.id === call.id),
      );
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(parsed) ? reply : reply[0]));
      return;
    }
    let upstream: Response;
    try {
      upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    } catch {
      response.writeHead(502, { "content-type": "text/plain" }).end("node unreachable");
      return;
    }
    const answer = Buffer.from(await upstream.arrayBuffer());
    if (fault === "lose-answer") {
      relay.faults++;
      response.writeHead(503, { "content-type": "text/plain" }).end("unavailable");
      return;
    }
    if (fault === "strip-error-data" || (typeof fault === "object" && "reword" in fault)) {
      type Reply = { error?: { data?: unknown; message?: unknown } };
      const parsed = JSON.parse(answer.toString("utf8")) as Reply | Reply[];
      for (const reply of Array.isArray(parsed) ? parsed : [parsed]) {
        if (reply.error === undefined) continue;
        if (fault === "strip-error-data") delete reply.error.data;
        else if (typeof reply.error.message === "string") reply.error.message = fault.reword(reply.error.message);
      }
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(JSON.stringify(parsed));
      return;
    }
    response.writeHead(upstream.status, { "content-type": "application/json" }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  relay.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return relay;
}
