import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

async function shutdown(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Sends a request's body on to the node and its answer back, as it came. */
async function forward(target: string, body: string, response: ServerResponse): Promise<void> {
  const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
  response.writeHead(upstream.status, { "content-type": "application/json" });
  response.end(Buffer.from(await upstream.arrayBuffer()));
}

export interface CountingProxy {
  url: string;
  /** The JSON-RPC methods of each HTTP request that went through, one array per request. */
  requests: string[][];
  /** Every JSON-RPC call that went through, a batch's one by one, with its parameters (none kept with `countOnly`). */
  calls: Array<{ method: string; params: unknown[] }>;
  /** How many calls of each method went through: kept with `countOnly` too. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A JSON-RPC pass-through that records every HTTP request, so tests can count round trips (and every call, so they
 * can count calls). With `methodNotFound`, calls of that method are answered JSON-RPC -32601 (in a batch too, the
 * others going on to the node), as from a node that lacks the method.
 * With `refuse`, requests that call that method get an HTTP 503, as from a node that fails; with `refuseCreationCalls`,
 * an `eth_call` without `to` gets a JSON-RPC error, as from a node that runs calls against deployed code only.
 * With `requireHeader`, requests without that header and value get an HTTP 401, as from a provider that wants its key.
 * With `countOnly`, only the counts by method are kept (a long benchmark run, whose memory is measured).
 */
export async function startCountingProxy(
  target: string,
  options: {
    refuse?: string;
    refuseCreationCalls?: boolean;
    requireHeader?: { name: string; value: string };
    methodNotFound?: string;
    countOnly?: boolean;
  } = {},
): Promise<CountingProxy> {
  const requests: string[][] = [];
  const calls: CountingProxy["calls"] = [];
  const counts = new Map<string, number>();
  const server = createServer(async (request, response) => {
    const required = options.requireHeader;
    if (required !== undefined && request.headers[required.name.toLowerCase()] !== required.value) {
      response.writeHead(401, { "content-type": "text/plain" }).end("missing key");
      return;
    }
    const body = await readBody(request);
    type Call = { id?: unknown; method: string; params?: Array<{ to?: unknown }> };
    let methods: string[];
    let parsed: Call | Call[] | undefined;
    try {
      parsed = JSON.parse(body.toString("utf8")) as Call | Call[];
      methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => call.method);
    } catch {
      methods = ["(unparsable)"];
    }
    for (const method of methods) counts.set(method, (counts.get(method) ?? 0) + 1);
    if (!options.countOnly) {
      requests.push(methods);
      if (parsed !== undefined)
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) calls.push({ method: call.method, params: call.params ?? [] });
    }
    const lacking = options.methodNotFound;
    if (parsed !== undefined && lacking !== undefined && methods.includes(lacking)) {
      const batch = Array.isArray(parsed) ? parsed : [parsed];
      const notFound = (call: Call) => ({
        jsonrpc: "2.0",
        id: call.id,
        error: { code: -32601, message: `the method ${lacking} does not exist/is not available` },
      });
      const others = batch.filter((call) => call.method !== lacking);
      const answered =
        others.length === 0
          ? []
          : ((await (
              await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(others) })
            ).json()) as Array<{ id?: unknown }>);
      const answers = batch.map((call) => (call.method === lacking ? notFound(call) : answered.find((answer) => answer.id === call.id)));
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      return;
    }
    if (options.refuse !== undefined && methods.includes(options.refuse)) {
      response.writeHead(503, { "content-type": "text/plain" }).end("unavailable");
      return;
    }
    const single = parsed !== undefined && !Array.isArray(parsed) ? parsed : undefined;
    if (options.refuseCreationCalls && single?.method === "eth_call" && !single.params?.[0]?.to) {
      // As a node that runs eth_call only against deployed code answers.
      const error = { code: -32602, message: "invalid argument 0: missing 'to'" };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: single.id, error }));
      return;
    }
    await forward(target, body.toString("utf8"), response);
  });
  const url = await listen(server);
  return { url, requests, calls, counts, close: () => shutdown(server) };
}

export interface LosingProxy {
  url: string;
  /**
   * From now on the node is made to answer `hash` as anvil did under load here, having lost the transaction from its
   * pool: by hash it still gives `transaction` (what it answered before losing it), and the same bytes sent again are
   * refused as "transaction already imported".
   */
  lose(hash: string, transaction: unknown): void;
  close(): Promise<void>;
}

/**
 * A JSON-RPC pass-through to a real node that plays one fault the node itself was seen to have (anvil, mining on send,
 * on a loaded machine: see docs/benchmarks.md): a transaction accepted, then held nowhere, yet still known by hash and
 * refused when sent again. Everything else goes to the node unchanged (one call per request, as ethers sends them).
 */
export async function startLosingProxy(target: string, hashOfRaw: (raw: string) => string): Promise<LosingProxy> {
  const lost = new Map<string, unknown>();
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const call = JSON.parse(body.toString("utf8")) as { id?: unknown; method: string; params?: unknown[] };
    const reply = (result: { result: unknown } | { error: { code: number; message: string } }) =>
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: call.id, ...result }));
    const hash = typeof call.params?.[0] === "string" ? call.params[0].toLowerCase() : undefined;
    if (call.method === "eth_getTransactionByHash" && hash !== undefined && lost.has(hash)) return void reply({ result: lost.get(hash) });
    if (call.method === "eth_sendRawTransaction" && hash !== undefined && lost.has(hashOfRaw(hash).toLowerCase())) {
      return void reply({ error: { code: -32003, message: "transaction already imported" } });
    }
    await forward(target, body.toString("utf8"), response);
  });
  const url = await listen(server);
  return { url, lose: (hash, transaction) => void lost.set(hash.toLowerCase(), transaction), close: () => shutdown(server) };
}

export interface GatedProxy {
  url: string;
  /** Lets the held requests through, and every later one. */
  open(): void;
  close(): Promise<void>;
}

/**
 * A JSON-RPC pass-through to a real node that holds every request calling `method` until `open()`, as a node that is
 * slow to take them: what a service does meanwhile can be seen without racing the node.
 */
export async function startGatedProxy(target: string, method: string): Promise<GatedProxy> {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const server = createServer(async (request, response) => {
    const body = (await readBody(request)).toString("utf8");
    const calls = JSON.parse(body) as { method: string } | Array<{ method: string }>;
    if ((Array.isArray(calls) ? calls : [calls]).some((call) => call.method === method)) await opened;
    await forward(target, body, response);
  });
  const url = await listen(server);
  return {
    url,
    open,
    close: () => {
      open();
      return shutdown(server);
    },
  };
}

/** An HTTP server that accepts requests and never answers them. */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(() => undefined);
  const url = await listen(server);
  return { url, close: () => shutdown(server) };
}

/** One JSON-RPC call straight to a node, outside the service. */
export async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const reply = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
}
