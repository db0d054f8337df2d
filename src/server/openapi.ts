import { z } from "zod";

import type { RouteDefinition } from "./route.js";
import { middlewareResponses } from "./routes/common.js";

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

/** OpenAPI 3.1, generated from the route table and the very schemas that validate requests. */
export function buildOpenApiDocument(routes: RouteDefinition[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.paths[0]!.replace(/:(\w+)/g, "{$1}");
    const documentedPath = route.auth ? `/api/v1${path}` : path;
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
    paths[documentedPath] ??= {};
    paths[documentedPath][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.auth ? {} : { security: [] }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(route.body, "input") } } } }
        : {}),
      responses: Object.fromEntries(
        Object.entries({ ...middlewareResponses(route), ...route.responses }).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema ? { content: { "application/json": { schema: toSchema(response.schema, "output") } } } : {}),
          },
        ]),
      ),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "hardhat-token-service",
      version,
      description:
        "Wallets, balances and token launches on Ethereum, BNB Smart Chain and Bitcoin. Every path also answers under /v1 (without /api).",
    },
    servers: [{ url: "/" }],
    security: [{ apiKeyQuery: [] }, { apiKeyHeader: [] }],
    components: {
      securitySchemes: {
        apiKeyQuery: { type: "apiKey", in: "query", name: "apiKey", description: "The API key as the `apiKey` query parameter" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "The API key as the `x-api-key` header" },
      },
    },
    paths,
  };
}
