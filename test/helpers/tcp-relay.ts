import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpRelay {
  port: number;
  /** A network outage: every relayed connection drops and new ones are refused. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Forwards loopback TCP connections to `target`, so a test can take the path to a real server down and back up.
 * `recordRequests` is handed every byte a client sends (requests, headers and bodies, as they travel).
 */
export async function startTcpRelay(
  target: { host: string; port: number },
  options: { recordRequests?: (chunk: Buffer) => void } = {},
): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const listen = async (port: number) => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      if (options.recordRequests) client.on("data", options.recordRequests);
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    return (server.address() as { port: number }).port;
  };

  const stop = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  const port = await listen(0);
  return {
    port,
    cut: stop,
    restore: async () => void (await listen(port)),
    close: stop,
  };
}
