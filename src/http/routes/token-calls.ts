import { z } from "zod/v4";

import { TOKEN_CALL_KINDS } from "../../domain/kinds/index.js";
import type { KindField, TokenCallKind } from "../../domain/kinds/token-call-kind.js";
import { PreparedTokenCall, written } from "../admin-schemas.js";
import { EXAMPLE_LAUNCHED_CONTRACTS, EXAMPLE_PAIR, EXAMPLE_TOKEN_CONTRACT } from "../examples.js";
import type { RouteDefinition } from "../route.js";
import { address, chain, network, signedWrite } from "../schemas.js";
import { tokenContract } from "../transfer-schemas.js";
import { NOT_SUPPORTED, RECORDED, prepare, signedByService } from "./admin.js";
import { defineWriteRoute } from "./write-route.js";

// The route of every write kind of domain/kinds/, made from its description: the body's shape (checked here; its
// meaning is the core's), the answer, the documented examples, and what every token call shares (recorded, signed
// locally or by the service, tracked). A kind declares no route of its own.

/** A field's shape in the body, by its type. */
function bodyField(field: KindField) {
  if (field.type === "role")
    return z
      .string()
      .describe(field.description)
      .meta({ examples: [field.example] });
  return address.describe(field.type === "account" ? `${field.description}; not the zero address` : field.description);
}

/** A field's shape in the answer: as the record holds it, a role followed by its id. */
function answerFields([name, field]: [string, KindField]): Array<[string, z.ZodType]> {
  if (field.type !== "role") return [[name, z.string()]];
  return [
    [name, z.string().describe("As the request named it")],
    [`${name}Id`, z.string().describe("The bytes32 id: keccak-256 of the name; DEFAULT_ADMIN_ROLE is 0x00…00")],
  ];
}

function routeOf(kind: TokenCallKind): RouteDefinition {
  const fields = Object.entries(kind.fields);
  const own = Object.fromEntries(fields.map(([name, field]) => [name, bodyField(field)]));
  // The token of the launch example the kind names (examples.ts), else the example account's first launch.
  const launched = kind.http.example.launch;
  const contractAddress = (launched !== undefined ? EXAMPLE_LAUNCHED_CONTRACTS[launched] : undefined) ?? EXAMPLE_TOKEN_CONTRACT;
  const example = {
    ...EXAMPLE_PAIR,
    contractAddress,
    ...Object.fromEntries(fields.map(([name, field]) => [name, field.example])),
  };
  const spec = {
    path: kind.http.path,
    operationId: kind.http.operationId,
    tag: "tokens" as const,
    summary: kind.http.summary,
    description: kind.http.description.replace("{NOT_SUPPORTED}", NOT_SUPPORTED).replace("{RECORDED}", RECORDED),
    write: signedWrite({
      chain,
      network,
      contractAddress: tokenContract.describe(kind.contract).meta({ examples: [contractAddress] }),
      ...own,
      sender: address.describe(kind.sender),
    }),
    bodyExamples: {
      [kind.http.example.name]: { summary: kind.http.example.summary, value: { ...example, ...signedByService } },
      prepare: prepare(example),
    },
    // Answers only, documented: built on the first /openapi.json, not at start-up (http/operation-schemas.ts).
    answer: z.lazy(() => z.object({ ...written, ...Object.fromEntries(fields.flatMap(answerFields)) })),
    prepared: PreparedTokenCall,
    command: kind.name,
  };
  // The body's type is made at run time from the description; the command's request type is the description's too.
  return defineWriteRoute(spec as unknown as Parameters<typeof defineWriteRoute>[0]);
}

/** One route per kind, in the registry's order. */
export const TOKEN_CALL_ROUTES: RouteDefinition[] = TOKEN_CALL_KINDS.map(routeOf);
