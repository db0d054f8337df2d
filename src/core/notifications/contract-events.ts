import { EventFragment, Interface, Result } from "ethers";

import type { SubscribedEvent } from "../../domain/subscriptions.js";
import type { ChainLog } from "./transfer-logs.js";

// Decodes a subscribed contract event's log into its arguments. A signature that names its indexed parameters is
// decoded as written. A plain one (`Transfer(address,address,uint256)`) does not say which parameters are topics: the
// log's topic count tells how many, and the leading ones are taken as indexed, which is how nearly every standard
// event is declared; when that does not decode, the event carries its topics and data only.

/** JSON of a decoded value: integers as decimal strings, bytes and addresses as hex, tuples and arrays as arrays. */
export type DecodedValue = string | boolean | DecodedValue[];

const interfaces = new Map<string, Interface>();

/** The log's arguments by name (or by position, for unnamed parameters); null when they cannot be decoded. */
export function decodeEvent(event: SubscribedEvent, log: ChainLog): Record<string, DecodedValue> | null {
  const fragment = event.fragment ?? withLeadingIndexed(event.signature, log.topics.length - 1);
  if (fragment === null) return null;
  try {
    const abi = interfaceOf(fragment);
    const parsed = abi.parseLog({ topics: [...log.topics], data: log.data });
    if (parsed === null) return null;
    const args: Record<string, DecodedValue> = {};
    parsed.fragment.inputs.forEach((input, index) => {
      args[input.name === "" ? String(index) : input.name] = toJson(parsed.args[index]);
    });
    return args;
  } catch {
    return null;
  }
}

/** The plain signature with its first `indexed` parameters marked indexed; null when there are fewer parameters. */
function withLeadingIndexed(signature: string, indexed: number): string | null {
  const fragment = EventFragment.from(`event ${signature}`);
  if (indexed < 0 || indexed > fragment.inputs.length) return null;
  const params = fragment.inputs.map((input, index) => `${input.format("sighash")}${index < indexed ? " indexed" : ""}`);
  return `event ${fragment.name}(${params.join(", ")})`;
}

function interfaceOf(fragment: string): Interface {
  let abi = interfaces.get(fragment);
  if (abi === undefined) {
    abi = new Interface([fragment.startsWith("event ") ? fragment : `event ${fragment}`]);
    // A handful of events per subscription: bounded by what subscriptions name, but cap it all the same.
    if (interfaces.size >= 1_000) interfaces.delete(interfaces.keys().next().value!);
    interfaces.set(fragment, abi);
  }
  return abi;
}

function toJson(value: unknown): DecodedValue {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (value instanceof Result || Array.isArray(value)) return [...value].map(toJson);
  // An indexed dynamic value (string, bytes, array) is kept as its topic: ethers gives an Indexed with its hash.
  if (typeof value === "object" && value !== null && "hash" in value) return String((value as { hash: unknown }).hash);
  return String(value);
}
