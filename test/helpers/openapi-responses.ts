import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

import { buildOpenApiDocument } from "../../src/http/openapi.js";
import { API_ROUTES } from "../../src/http/routes/index.js";

/**
 * Every response the suites receive through the shared HTTP helpers is checked against /openapi.json: the status must
 * be one the operation documents, and the body must match that status's schema. The document is the one the service
 * serves, built by the same function from the same routes.
 */

interface DocumentedResponse {
  content?: { "application/json"?: { schema: object } };
}

interface DocumentedOperation {
  method: string;
  path: string;
  pattern: RegExp;
  responses: Record<string, DocumentedResponse>;
}

type OpenApiDocument = {
  paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>;
  webhooks: Record<string, { post: { requestBody: { content: { "application/json": { schema: object } } } } }>;
};

let cached:
  { document: OpenApiDocument; operations: DocumentedOperation[]; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function documented() {
  if (cached !== undefined) return cached;
  const document = buildOpenApiDocument(API_ROUTES, "test") as OpenApiDocument;
  const operations: DocumentedOperation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    // A path parameter is one segment; Express matches paths case-insensitively and ignores a trailing slash.
    const source = path
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
      .join("[^/]+");
    for (const [method, operation] of Object.entries(methods)) {
      operations.push({ method, path, pattern: new RegExp(`^${source}/?$`, "i"), responses: operation.responses });
    }
  }
  cached = { document, operations, ajv: new Ajv2020({ allErrors: true, strict: true }), validators: new Map() };
  return cached;
}

/** The path as the server receives it: a full URL's pathname, or a request target up to its query. */
const pathnameOf = (url: string) => (/^https?:\/\//i.test(url) ? new URL(url).pathname : url.split(/[?#]/)[0]!);

/** The documented operation a request reaches: `/v1/...` is the same route as `/api/v1/...`. */
export function documentedOperation(method: string, url: string): DocumentedOperation | undefined {
  const pathname = pathnameOf(url).replace(/^\/v1(?=\/|$)/i, "/api/v1");
  return documented().operations.find((operation) => operation.method === method.toLowerCase() && operation.pattern.test(pathname));
}

/** A JSON pointer fragment, as `#/paths/~1api~1v1~1wallets/...`. */
const pointer = (...segments: string[]) => `#/${segments.map((segment) => segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

function describeErrors(errors: ErrorObject[], schemaPointer: string): string {
  return errors
    .map((error) => {
      const extra = "additionalProperty" in error.params ? ` "${String(error.params.additionalProperty)}"` : "";
      return `body${error.instancePath} ${error.message ?? "is invalid"}${extra} (schema ${schemaPointer}${error.schemaPath.slice(1)})`;
    })
    .join("; ");
}

export class ResponseSchemaMismatch extends Error {
  override name = "ResponseSchemaMismatch";
}

/**
 * Throws unless a response to `method url` is what /openapi.json documents. Requests no operation documents (/health,
 * /metrics, /docs, an unknown path) are not checked here.
 */
export function checkResponseAgainstOpenApi(
  method: string,
  url: string,
  response: { status: number; contentType: string | null; body: unknown },
): void {
  const operation = documentedOperation(method, url);
  if (operation === undefined) return;
  const route = `${method.toUpperCase()} ${pathnameOf(url).slice(0, 200)} (${operation.method.toUpperCase()} ${operation.path})`;
  const statuses = Object.keys(operation.responses);
  const key = String(response.status) in operation.responses ? String(response.status) : "default";
  const documentedResponse = operation.responses[key];
  if (documentedResponse === undefined) {
    throw new ResponseSchemaMismatch(
      `${route} answered ${response.status}, a status /openapi.json does not document for it (documented: ${statuses.join(", ")}); ` +
        `body: ${JSON.stringify(response.body).slice(0, 300)}`,
    );
  }
  const schema = documentedResponse.content?.["application/json"]?.schema;
  if (schema === undefined) return;
  const schemaPointer = pointer("paths", operation.path, operation.method, "responses", key, "content", "application/json", "schema");
  if (!response.contentType?.startsWith("application/json")) {
    throw new ResponseSchemaMismatch(
      `${route} answered ${response.status} as ${response.contentType ?? "no content type"}, but ${schemaPointer} documents JSON`,
    );
  }
  const { ajv, validators } = documented();
  let validate = validators.get(schemaPointer);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    validators.set(schemaPointer, validate);
  }
  if (!validate(response.body)) {
    throw new ResponseSchemaMismatch(
      `${route} answered ${response.status} with a body that does not match ${schemaPointer}: ${describeErrors(validate.errors ?? [], schemaPointer)}; ` +
        `body: ${JSON.stringify(response.body).slice(0, 500)}`,
    );
  }
}

/** Throws unless `event`, as a webhook receiver got it, is what /openapi.json's `webhooks` documents for its type. */
export function checkWebhookEventAgainstOpenApi(event: { type?: unknown }): void {
  const { document, ajv, validators } = documented();
  const type = String(event.type);
  const schema = document.webhooks[type]?.post.requestBody.content["application/json"].schema;
  if (schema === undefined) throw new ResponseSchemaMismatch(`a webhook event of type ${type}, which /openapi.json does not document`);
  const schemaPointer = pointer("webhooks", type, "post", "requestBody", "content", "application/json", "schema");
  let validate = validators.get(schemaPointer);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    validators.set(schemaPointer, validate);
  }
  if (!validate(event)) {
    throw new ResponseSchemaMismatch(
      `a ${type} event that does not match ${schemaPointer}: ${describeErrors(validate.errors ?? [], schemaPointer)}; ` +
        `body: ${JSON.stringify(event).slice(0, 500)}`,
    );
  }
}

/** JSON when the text is JSON, else the text itself (the helpers' convention). */
export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** fetch, with the response checked against /openapi.json before it is handed back. */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.clone().text();
  checkResponseAgainstOpenApi(init.method ?? "GET", url, {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: parseBody(text),
  });
  return response;
}
