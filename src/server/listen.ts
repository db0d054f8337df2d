import type { Server } from "node:http";
import { isIP } from "node:net";

import type { TokenServiceServer } from "./app.js";

export function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

export function listen(server: TokenServiceServer, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const http = server.app.listen(port, host, () => resolve(http));
    http.once("error", reject);
  });
}

/** Stops accepting connections, lets in-flight requests finish, then closes chains and the database. */
export async function shutdown(http: Server, server: TokenServiceServer): Promise<void> {
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    http.closeIdleConnections();
  });
  await server.close();
}
