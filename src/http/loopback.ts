import { isIP } from "node:net";

export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === "localhost") return true;
  if (isIP(name) === 4) return name.startsWith("127.");
  return name === "::1";
}

/** A Host header (`name`, `name:port`, `[v6]:port`) that names this machine; anything else may be a rebound DNS name. */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (header === undefined) return false;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (match === null) return false;
  return isLoopbackHost(match[1] ?? match[2]!);
}
