import { parseEvmAddress } from "../addresses.js";
import { common, parseRole, type AdminCommand } from "../admin-commands.js";
import type { Unsigned } from "../requests.js";
import { counterparty } from "../write-fields.js";
import type { KindRequest, TokenCallKind } from "./token-call-kind.js";

// A token call's request parsed once, where it enters the core, by the types its kind gives its fields: every later
// step (the call's data, the record, the answer) reads these values, never the request's text again.

/** The token and the kind's fields, each checked (addresses checksummed; a role followed by its id), in the kind's order. */
export type TokenCallParams = { contractAddress: string; fields: Record<string, string> };
export type TokenCallCommand = AdminCommand<TokenCallParams>;

export function parseTokenCall<K extends TokenCallKind>(
  kind: K,
  request: Unsigned<KindRequest<K>>,
  chains: Parameters<typeof common>[1],
): TokenCallCommand {
  const { pair, sender, contractAddress } = common(request, chains, kind.what);
  const given = request as unknown as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const [name, field] of Object.entries(kind.fields)) {
    if (field.type === "role") {
      const { role, roleId } = parseRole(given[name]);
      fields[name] = role;
      fields[`${name}Id`] = roleId;
    } else
      fields[name] =
        field.type === "account" ? counterparty(given[name], name, field.zeroRefusal ?? "") : parseEvmAddress(given[name], name);
  }
  return { pair, sender, params: { contractAddress, fields } };
}
