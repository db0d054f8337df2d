import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

import ipaddr from "ipaddr.js";

import { invalidArgument } from "../domain/errors.js";

/**
 * Addresses a webhook may not reach (server-side request forgery): this network, private, shared (carrier-grade NAT),
 * loopback, link-local (cloud metadata at 169.254.169.254), documentation, benchmarking, multicast and reserved
 * ranges; in IPv6 the unspecified and loopback addresses, unique-local (fd00:ec2::254 metadata), link- and site-local,
 * documentation and multicast. An IPv6 address that carries an IPv4 one (mapped, translated, compatible, NAT64,
 * 6to4, Teredo) is also checked as the IPv4 address it carries.
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

/**
 * The IPv4 address an IPv6 address carries, where its form says it carries one: IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96, and the local-use 64:ff9b:1::/48,
 * whose last 32 bits are the address), 6to4 (2002::/16, bits 16–47) and Teredo (2001::/32, the client's address in the
 * last 32 bits, inverted). Parsed by ipaddr.js, never by hand.
 */
export function embeddedIpv4(address: string): string | undefined {
  if (!ipaddr.IPv6.isValid(address)) return undefined;
  const v6 = ipaddr.IPv6.parse(address);
  const parts = v6.parts;
  const fromWords = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString();
  const zeros = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0);
  switch (v6.range()) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
      return fromWords(parts[6]!, parts[7]!);
    case "6to4":
      return fromWords(parts[1]!, parts[2]!);
    case "teredo":
      return fromWords(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff);
  }
  // The local-use NAT64 prefix (RFC 8215) and the deprecated IPv4-compatible form, which ipaddr.js does not name.
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts[2] === 1) return fromWords(parts[6]!, parts[7]!);
  if (zeros(0, 6) && (parts[6] !== 0 || parts[7]! > 1)) return fromWords(parts[6]!, parts[7]!);
  return undefined;
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (BLOCKED.check(address, family === 6 ? "ipv6" : "ipv4")) return true;
  // An IPv6 form that carries an IPv4 address reaches that address: judged as it.
  const carried = family === 6 ? embeddedIpv4(address) : undefined;
  return carried !== undefined && BLOCKED.check(carried, "ipv4");
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
