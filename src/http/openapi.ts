import { z } from "zod/v4";

import type { ChainRegistry } from "../domain/chains.js";
import { chainFieldDescription, networkFieldDescription, networkFieldValues } from "./chain-fields.js";
import type { RouteDefinition } from "./route.js";
import { errorResponses, middlewareResponses } from "./routes/common.js";
import { WEBHOOK_EVENTS, type WebhookEvent } from "../webhooks/events.js";
import { SIGNATURE_HEADER } from "../webhooks/signature.js";
import { CHAIN_DESCRIPTION, NETWORK_DESCRIPTION } from "./schemas.js";
import { Health, Readiness } from "./service-schemas.js";
import { WebhookEventBody } from "./webhook-schemas.js";
import { ChainEventWebhookBody } from "./subscription-schemas.js";
import { API_TAGS } from "./tags.js";

const toSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" });

function queryParameters(route: RouteDefinition) {
  if (route.query === undefined) return [];
  const schema = toSchema(route.query, "input") as { properties?: Record<string, object>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    schema: property,
    ...((property as { description?: string }).description ? { description: (property as { description?: string }).description } : {}),
  }));
}

function documentedResponses(responses: RouteDefinition["responses"]) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        description: response.description,
        ...(response.schema ? { content: { "application/json": { schema: toSchema(response.schema, "output") } } } : {}),
      },
    ]),
  );
}

/** /health is served beside the versioned routes (src/http/app.ts); documented so the reference and the tests' response checks know it. */
const healthOperation = () => ({
  operationId: "health",
  tags: ["service"],
  summary: "Liveness and per-backend readiness: the database, the data directory's storage, live nodes, bitcoind",
  description:
    "No key needed: without one, each backend's readiness only. With an API key (x-api-key or ?apiKey=), also where each backend is and what its probe found (hosts, the store's location, block heights). 503 while the database, the storage or a live EVM node is down; Bitcoin backends are reported but do not degrade the status. Probes are cached briefly.",
  security: [],
  responses: documentedResponses({
    200: { description: "Ready", schema: Health },
    503: { description: "Degraded: the database, the storage or a live EVM node is down", schema: Health },
    ...errorResponses(400, 401, 408, 421, 429, 431),
  }),
});

/** The liveness probe (docs/operations.md#probes): the process answers; nothing is asked of a backend. */
const livenessOperation = () => ({
  operationId: "healthLive",
  tags: ["service"],
  summary: "Liveness: 200 whenever the process can answer",
  description:
    "For a liveness probe (Kubernetes' livenessProbe): no key, no rate limit, no backend asked, and answered even on a connection past the per-client connection bound. Readiness is `/health`.",
  security: [],
  responses: documentedResponses({
    200: { description: "The process answers", schema: z.object({ status: z.literal("live") }) },
    ...errorResponses(400, 408, 421, 431),
  }),
});

/** The readiness probe (docs/operations.md#probes). */
const readinessOperation = () => ({
  operationId: "healthReady",
  tags: ["service"],
  summary: "Readiness: whether writes can be accepted now, with the reasons when not",
  description:
    "503 while the database or the data directory's storage is down, the keystore is locked, or a live EVM pair with unfinished records has no endpoint answering; `reasons` names each (keyless: the backend only). A live pair without work being down is reported in `backends` and keeps the instance ready. For a load balancer's check and Kubernetes' readinessProbe.",
  security: [],
  responses: documentedResponses({
    200: { description: "Ready", schema: Readiness },
    503: { description: "Not ready: `reasons` says why", schema: Readiness },
    ...errorResponses(400, 401, 408, 421, 429, 431),
  }),
});

const EVENT_SUMMARIES: Record<WebhookEvent, string> = {
  "operation.pending": "The node accepted the operation's transaction",
  "operation.mined": "The operation's transaction is in a block",
  "operation.failed": "The operation failed (reverted, refused, or could not be sent)",
  "operation.dropped": "The operation's transaction left the node and was not mined in time",
  "operation.reorged": "A reorganization took the mined transaction back out of the chain: pending again",
  "operation.cancelled": "The cancel took the operation's nonce: the call it was will never be made",
  "operation.stuck":
    "Pending with no higher fee the service can send on its own (the ceiling reached, or a caller-signed send): still pending",
  "chain.activity": "Value moved to or from an address a subscription watches (native currency, ERC-20, ERC-721, ERC-1155), confirmed",
  "chain.event": "A watched contract emitted an event, confirmed",
  "chain.activity.removed": "A reorg took away the block of a chain.activity delivered before: the same data.id",
  "chain.event.removed": "A reorg took away the block of a chain.event delivered before: the same data.id",
};

/** What the service POSTs to a subscribed URL for each event (OpenAPI 3.1 `webhooks`). */
function webhookOperations() {
  const header = (name: string, description: string) => ({ name, in: "header", required: true, description, schema: { type: "string" } });
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `${event.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase())}Event`,
          tags: ["webhook events"],
          summary: EVENT_SUMMARIES[event],
          security: [],
          parameters: [
            header("Webhook-Id", "The event id, as `id` in the body: de-duplicate by it"),
            header(SIGNATURE_HEADER, '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook\'s secret>`'),
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: toSchema(event.startsWith("chain.") ? ChainEventWebhookBody : WebhookEventBody, "output") },
            },
          },
          responses: {
            "2XX": { description: "Received. Anything else, or no answer within the timeout, is retried with backoff" },
          },
        },
      },
    ]),
  );
}

/** The versioned prefix every authenticated route is documented under, and its alias (src/http/app.ts serves both). */
export const API_PREFIX = "/api/v1";
export const ALIAS_PREFIX = "/v1";

export interface OpenApiOptions {
  /** Document the /v1 alias of every /api/v1 path (default true; the typed client leaves them out). */
  aliases?: boolean;
  /**
   * The chains of the service serving the document: its requests' `chain` and `network` list them (enums, which /docs
   * offers to pick from). Without it (the typed client's document), they are strings described with the built-in chains.
   */
  chains?: ChainRegistry;
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The `chain` and `network` of every request (query parameters, body fields) as the service's chains make them. */
function withServiceChains(paths: Record<string, Record<string, unknown>>, chains: ChainRegistry): void {
  const fields: Record<string, { values: string[]; generic: string; description: string }> = {
    chain: { values: [...chains.names], generic: CHAIN_DESCRIPTION, description: chainFieldDescription(chains, false) },
    network: { values: networkFieldValues(chains), generic: NETWORK_DESCRIPTION, description: networkFieldDescription(chains) },
  };
  const patch = (schema: unknown, field: keyof typeof fields) => {
    if (!isObject(schema) || schema.type !== "string") return;
    const { values, generic, description } = fields[field]!;
    schema.enum = values;
    if (schema.description === generic) schema.description = description;
  };
  /** Every object schema in a request body, through unions, with the chain fields patched. */
  const walk = (schema: unknown): void => {
    if (Array.isArray(schema)) return schema.forEach(walk);
    if (!isObject(schema)) return;
    if (isObject(schema.properties)) for (const field of ["chain", "network"] as const) patch(schema.properties[field], field);
    for (const key of ["anyOf", "oneOf", "allOf"]) walk(schema[key]);
  };
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    if (!isObject(operation)) continue;
    for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
      if (isObject(parameter) && parameter.in === "query" && (parameter.name === "chain" || parameter.name === "network")) {
        patch(parameter.schema, parameter.name);
        if (parameter.description === fields[parameter.name]!.generic) parameter.description = fields[parameter.name]!.description;
      }
    }
    const body = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.["application/json"];
    walk(body?.schema);
  }
}

/** The /v1 twin of a documented /api/v1 operation: the same operation under its own id, saying what it aliases. */
function aliasOperation(method: string, path: string, operation: Record<string, unknown> & { operationId: string; summary: string }) {
  const canonical = `${method.toUpperCase()} ${API_PREFIX}${path}`;
  return {
    ...operation,
    operationId: `${operation.operationId}V1Alias`,
    tags: ["v1 aliases"],
    summary: `${operation.summary} (alias of ${canonical})`,
    description: `Alias of \`${canonical}\`: the same operation, parameters and answers under ${ALIAS_PREFIX}.${operation.description ? `\n\n${String(operation.description)}` : ""}`,
  };
}

/** OpenAPI 3.1, generated from the route table and the very schemas that validate requests. */
export function buildOpenApiDocument(routes: RouteDefinition[], version: string, options: OpenApiOptions = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  const aliases: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.paths[0]!.replace(/:(\w+)/g, "{$1}");
    const documentedPath = route.auth ? `${API_PREFIX}${path}` : path;
    const parameters = [
      ...Object.entries(route.pathParams ?? {}).map(([name, description]) => ({
        name,
        in: "path",
        required: true,
        description,
        schema: { type: "string" },
      })),
      ...queryParameters(route),
      ...(route.idempotent
        ? [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description: "Retry safely: the same key and body return the first response and send nothing",
              schema: { type: "string", maxLength: 255 },
            },
          ]
        : []),
    ];
    const examples = Object.entries(route.bodyExamples ?? {});
    const operation = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.auth ? {} : { security: [] }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: toSchema(route.body, "input"),
                  // The first example is what /docs' "Try it out" fills in.
                  ...(examples.length > 0 ? { examples: Object.fromEntries(examples) } : {}),
                },
              },
            },
          }
        : {}),
      responses: documentedResponses({ ...middlewareResponses(route), ...route.responses }),
    };
    paths[documentedPath] ??= {};
    paths[documentedPath][route.method] = operation;
    if (route.auth && options.aliases !== false) {
      aliases[`${ALIAS_PREFIX}${path}`] ??= {};
      aliases[`${ALIAS_PREFIX}${path}`]![route.method] = aliasOperation(route.method, path, operation);
    }
  }
  paths["/health"] = { get: healthOperation() };
  paths["/health/live"] = { get: livenessOperation() };
  paths["/health/ready"] = { get: readinessOperation() };
  Object.assign(paths, aliases);
  if (options.chains !== undefined) withServiceChains(paths, options.chains);
  return {
    openapi: "3.1.0",
    info: {
      title: "hardhat-token-service",
      version,
      description:
        "Wallets, balances and token launches on EVM chains (Ethereum, BNB Smart Chain, Base, Arbitrum, Optimism, Polygon, Avalanche, and any the service declares) and wallets and balances on Bitcoin. Every /api/v1 path also answers under /v1 (without /api): see the `v1 aliases` group. A body field or a query parameter an operation does not list is refused (400 INVALID_ARGUMENT naming it); `apiKey` is every operation's. Errors: docs/reference/errors.md.",
    },
    tags: API_TAGS.map((tag) => ({ ...tag })),
    servers: [{ url: "/" }],
    security: [{ apiKeyQuery: [] }, { apiKeyHeader: [] }],
    components: {
      securitySchemes: {
        apiKeyQuery: { type: "apiKey", in: "query", name: "apiKey", description: "The API key as the `apiKey` query parameter" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "The API key as the `x-api-key` header" },
      },
    },
    paths,
    webhooks: webhookOperations(),
  };
}
