import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";

import type { TokenServiceServer } from "./app.js";
import { answerClientError } from "./client-errors.js";
import { HttpErrorCode } from "./http-errors.js";

export { isLoopbackHost } from "./loopback.js";

/**
 * Listens with bounded waits for slow clients: node checks its header and request
 * timeouts only every `connectionsCheckingInterval` (30 s by default), so that is tightened too.
 */
export function listen(server: TokenServiceServer, host: string, port: number): Promise<Server> {
  const { headersTimeoutMs, bodyTimeoutMs } = server.settings;
  const refused = new WeakMap<Socket, Refusal>();
  const http = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: bodyTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
    },
    (request, response) => {
      // A connection past the bound is answered 429: a request on it is never acted on (a client told to retry must be
      // able to, without doing the work twice), except a liveness probe, which acts on nothing. Its body is left unread.
      const refusal = refused.get(request.socket);
      if (refusal !== undefined) return refusal.request(request.method, request.url);
      server.app(request, response);
    },
  );
  http.on("clientError", answerClientError);
  boundConnections(http, server, refused);
  return new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => {
      http.off("error", reject);
      resolve(http);
    });
  });
}

const TOO_MANY_CONNECTIONS_BODY = JSON.stringify({
  error: {
    code: HttpErrorCode.TOO_MANY_CONNECTIONS,
    message: "too many open connections from this address; reuse connections (keep-alive) or open fewer at once",
  },
});
const TOO_MANY_CONNECTIONS =
  "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\n" +
  `Content-Length: ${Buffer.byteLength(TOO_MANY_CONNECTIONS_BODY)}\r\n\r\n${TOO_MANY_CONNECTIONS_BODY}`;
const LIVE_BODY = JSON.stringify({ status: "live" });
const LIVE =
  "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n" +
  `Content-Length: ${Buffer.byteLength(LIVE_BODY)}\r\n\r\n${LIVE_BODY}`;
/** How long a connection past the bound may take to send its request line before it is answered 429 unread. */
const REFUSAL_WAIT_MS = 200;

/** A connection past the per-client bound: answered once, 429, or 200 to a liveness probe; then closed. */
interface Refusal {
  request(method: string | undefined, url: string | undefined): void;
}

function refuse(socket: Socket): Refusal {
  let answered = false;
  const answer = (text: string) => {
    if (answered) return;
    answered = true;
    clearTimeout(idle);
    socket.end(text);
    socket.setTimeout(1_000, () => socket.destroy());
  };
  // Answered, not reset: a client that opens too many at once learns why and when to come back; one that sends nothing
  // is told as soon as the wait is over, so its descriptor is soon free.
  const idle = setTimeout(() => answer(TOO_MANY_CONNECTIONS), REFUSAL_WAIT_MS);
  idle.unref();
  socket.once("close", () => clearTimeout(idle));
  return {
    request: (method, url) =>
      answer((method === "GET" || method === "HEAD") && url?.split("?")[0] === "/health/live" ? LIVE : TOO_MANY_CONNECTIONS),
  };
}

/**
 * Keeps the number of open connections bounded, in all and per client address, so that clients (keyless ones
 * included: a connection is taken before any key is read) cannot take the file descriptors the store and the chain
 * journals need. Connections past the total are closed as they arrive, unread; past the per-client bound they are
 * answered 429 TOO_MANY_CONNECTIONS and closed, and are put in `refused`: no request they carry is handed to the app.
 * `GET /health/live` on such a connection is answered 200 instead (docs/operations.md#probes): a load balancer or a
 * kubelet probing a client flooding the service with idle sockets from the same address must not take it out.
 * A trusted proxy's connections carry many clients and are not counted per address.
 */
function boundConnections(http: Server, server: TokenServiceServer, refused: WeakMap<Socket, Refusal>): void {
  const { maxConnections, maxConnectionsPerClient } = server.settings;
  if (maxConnections > 0) http.maxConnections = maxConnections;
  if (maxConnectionsPerClient <= 0) return;
  const trusted = server.app.get("trust proxy fn") as (address: string, hop: number) => boolean;
  const open = new Map<string, number>();
  http.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    if (trusted(address, 0)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > maxConnectionsPerClient) {
      refused.set(socket, refuse(socket));
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/** Resolves with true when `promise` settles within `ms`, false otherwise; never rejects. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Stops accepting connections and lets in-flight requests finish for the grace
 * period; then closes their connections, so a request stuck on a node that
 * stopped answering cannot hold the shutdown. Chains and the database then get
 * as long again to close; past that, they finish closing in the background.
 */
export async function shutdown(http: Server, server: TokenServiceServer, graceMs = server.settings.shutdownGraceMs): Promise<void> {
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  if (!(await settlesWithin(closed, graceMs))) {
    http.closeAllConnections();
    await closed;
  }
  const closing = server.close();
  if (!(await settlesWithin(closing, Math.max(graceMs, 1_000)))) {
    server.logger.warn({ graceMs }, "chains and database still closing after the grace period; not waiting for them");
    closing.catch((error: unknown) =>
      server.logger.error({ message: error instanceof Error ? error.message : String(error) }, "closing failed"),
    );
    return;
  }
  await closing;
}
