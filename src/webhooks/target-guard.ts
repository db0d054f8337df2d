import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

import { invalidArgument } from "../domain/errors.js";

/**
 * Addresses a webhook may not reach (server-side request forgery): this network, private, shared (carrier-grade NAT),
 * loopback, link-local (cloud metadata at 169.254.169.254), documentation, benchmarking, multicast and reserved
 * ranges; in IPv6 the unspecified and loopback addresses, unique-local (fd00:ec2::254 metadata), link- and site-local,
 * documentation and multicast. IPv4-mapped IPv6 addresses are checked as the IPv4 address they carry.
 */
function blockedRanges(): BlockList {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ];
  const v6: Array<[string, number]> = [
    ["::", 128],
    ["::1", 128],
    ["64:ff9b:1::", 48],
    ["100::", 64],
    ["2001:db8::", 32],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, "ipv4");
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, "ipv6");
  return list;
}

const BLOCKED = blockedRanges();

export const PRIVATE_TARGET_RULE =
  "webhooks may not target private, loopback, link-local, unique-local or metadata addresses (TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows them, for local development)";

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** A delivery's refusal to connect: the name now resolves to a blocked address (DNS rebinding) or to nothing. */
export class RefusedTarget extends Error {
  override name = "RefusedTarget";
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true });

/** The host of a URL without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/**
 * Decides where a webhook may be sent. A registration is checked here, and each delivery connects only to an address
 * resolved and checked at that moment (`resolve`), so a name that later resolves to a private address is refused then.
 */
export class TargetGuard {
  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolver: Resolver = systemResolver,
  ) {}

  /** The URL as it will be stored, or a 400 naming `url` and the rule it broke. */
  async checkRegistration(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidArgument("url", "url must be an absolute http or https URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw invalidArgument("url", `url must use http or https, not ${url.protocol.replace(/:$/, "")}`);
    }
    if (url.username !== "" || url.password !== "") {
      throw invalidArgument("url", "url must not carry credentials; authenticate deliveries by their signature");
    }
    try {
      await this.resolve(url);
    } catch (error) {
      throw invalidArgument("url", (error as Error).message);
    }
    return url.toString();
  }

  /** The addresses to connect to for `url`, every one of them allowed; throws RefusedTarget otherwise. */
  async resolve(url: URL): Promise<LookupAddress[]> {
    const host = bareHost(url);
    const family = isIP(host);
    let addresses: LookupAddress[];
    if (family !== 0) addresses = [{ address: host, family }];
    else {
      try {
        addresses = await this.resolver(host);
      } catch {
        throw new RefusedTarget(`url's host ${host} does not resolve`);
      }
      if (addresses.length === 0) throw new RefusedTarget(`url's host ${host} does not resolve`);
    }
    if (this.allowPrivate) return addresses;
    const blocked = addresses.find((entry) => isBlockedAddress(entry.address));
    if (blocked !== undefined) {
      const resolved = family === 0 ? ` resolves to ${blocked.address}, which` : "";
      throw new RefusedTarget(`url's host ${host}${resolved} is a private or reserved address: ${PRIVATE_TARGET_RULE}`);
    }
    return addresses;
  }
}
