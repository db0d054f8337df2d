import { Interface, type FunctionFragment } from "ethers";

import type { EvmChain } from "../../chains/evm/chain.js";
import { preflightOwnership, preflightRequiredFunctions, preflightRole } from "../../chains/evm/write/admin.js";
import { parseRole } from "../../domain/admin-commands.js";
import type { ChainRegistry } from "../../domain/chains.js";
import { TOKEN_CALL_KINDS, type TokenCallKindOf } from "../../domain/kinds/index.js";
import { parseTokenCall, type TokenCallCommand } from "../../domain/kinds/parse-token-call.js";
import type { KindRequest, KindResult, TokenCallCheck, TokenCallKind } from "../../domain/kinds/token-call-kind.js";
import type { Unsigned } from "../../domain/requests.js";
import { tokenCall } from "./admin-intents.js";
import type { WriteIntent } from "./intents.js";

// The write kinds of domain/kinds/ as write intents: each kind's description gives the call, what the token must have
// and the fields its record and answer hold; the one pipeline records, signs, sends and tracks them as every write.

/** Each kind's function, encoded by ethers from its human-readable ABI fragment (parsed once). */
const interfaces = new Map<string, Interface>(TOKEN_CALL_KINDS.map((kind) => [kind.name, new Interface([kind.call])]));

/** The refusals a kind names beyond a missing function (token-call-kind.ts `requires.check`), each written once. */
const CHECKS: Record<
  TokenCallCheck,
  (chain: EvmChain, contractAddress: string, fields: Record<string, string>, call: string) => Promise<void>
> = {
  ownable: (chain, contractAddress) => preflightOwnership(chain, { contractAddress }),
  // The field `role` as parsed (its name or id, and whether it is a name the token must define).
  role: (chain, contractAddress, fields, call) => preflightRole(chain, { contractAddress, ...parseRole(fields.role) }, call),
};

export function tokenCallIntent<K extends TokenCallKind>(kind: K, command: TokenCallCommand): WriteIntent<KindResult<K>> {
  const { contractAddress, fields } = command.params;
  const iface = interfaces.get(kind.name) ?? new Interface([kind.call]);
  const data = iface.encodeFunctionData(
    iface.fragments[0] as FunctionFragment,
    // A role's argument is its id.
    Object.entries(kind.fields).map(([name, field]) => fields[field.type === "role" ? `${name}Id` : name]),
  );
  return tokenCall(kind.name as WriteIntent<unknown>["kind"], command, {
    data,
    tokenType: null,
    fields,
    preflight: (chain) => {
      const { check, functions } = kind.requires as TokenCallKind["requires"];
      return check !== undefined
        ? CHECKS[check](chain, contractAddress, fields, functions[0]!)
        : preflightRequiredFunctions(chain, contractAddress, kind.requires);
    },
  }) as unknown as WriteIntent<KindResult<K>>;
}

/** The write commands of every kind of domain/kinds/, by name: write-commands.ts adds them to the built-in ones. */
export type TokenCallCommands = {
  [K in TokenCallKindOf as K["name"]]: {
    intent(request: Unsigned<KindRequest<K>>, chains: ChainRegistry): WriteIntent<KindResult<K>>;
  };
};

export const TOKEN_CALL_COMMANDS = Object.fromEntries(
  TOKEN_CALL_KINDS.map((kind) => [
    kind.name,
    {
      intent: (request: Unsigned<KindRequest<typeof kind>>, chains: ChainRegistry) =>
        tokenCallIntent(kind, parseTokenCall(kind, request, chains)),
    },
  ]),
) as unknown as TokenCallCommands;
