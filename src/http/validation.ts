import type { z } from "zod/v4";

import { ErrorCode, TokenServiceError } from "../domain/errors.js";

function fieldOf(path: readonly PropertyKey[], prefix: string): string {
  const joined = path
    .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
    .join(".")
    .replace(/\.\[/g, "[");
  return [prefix, joined].filter(Boolean).join(".");
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number" && Number.isNaN(value)) return "not a number";
  return `a ${typeof value}`;
}

const EXPECTED: Record<string, string> = {
  object: "an object",
  array: "an array",
  int: "an integer",
  boolean: "true or false",
  nan: "a number",
};
const expectedKind = (expected: string) => EXPECTED[expected] ?? `a ${expected}`;

/** The expected kinds of a union's branches, as far as each branch failed on the value's type. */
function unionExpectations(issue: z.core.$ZodIssueInvalidUnion): string[] {
  // A branch of allowed values (votes: a boolean, "blocknumber" or "timestamp") names them.
  const kinds = issue.errors.flatMap((branch) =>
    branch
      .filter((inner) => (inner.code === "invalid_type" || inner.code === "invalid_value") && inner.path.length === 0)
      .flatMap((inner) =>
        inner.code === "invalid_value"
          ? inner.values.map((option) => JSON.stringify(option))
          : [expectedKind((inner as z.core.$ZodIssueInvalidType).expected)],
      ),
  );
  return [...new Set(kinds)];
}

/** "is required", "must be a string, not a number", or the rule the value broke. */
function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const value = valueAt(input, issue.path);
  if (value === undefined && (issue.code === "invalid_type" || issue.code === "invalid_union")) return "is required";
  // Query values are strings that a schema coerces; "not a string" would confuse there.
  if (issue.code === "invalid_type" && typeof value === "string" && issue.expected !== "string")
    return `must be ${expectedKind(issue.expected)}`;
  if (issue.code === "invalid_type") return `must be ${expectedKind(issue.expected)}, not ${kindOf(value)}`;
  if (issue.code === "invalid_union") {
    const kinds = unionExpectations(issue);
    if (kinds.length > 0) return `must be ${kinds.join(" or ")}, not ${kindOf(value)}`;
  }
  if (issue.code === "too_big" || issue.code === "too_small") return describeBound(issue, value);
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map((option) => JSON.stringify(option)).join(", ")}`;
  return issue.message.replace(/^Invalid input: /, "");
}

/** A bound in the house's words: "must be at most 36 (got 77)", "must have at most 100 characters (got 300)". */
function describeBound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, value: unknown): string {
  const big = issue.code === "too_big";
  const bound = big ? issue.maximum : issue.minimum;
  const inclusive = issue.inclusive !== false;
  if (issue.origin === "string" || issue.origin === "array") {
    const rule = issue.exact ? "exactly" : big ? "at most" : "at least";
    const got = typeof value === "string" || Array.isArray(value) ? ` (got ${value.length})` : "";
    return `must have ${rule} ${bound} ${issue.origin === "string" ? "characters" : "items"}${got}`;
  }
  const rule = big ? (inclusive ? "at most" : "less than") : inclusive ? "at least" : "more than";
  // A query value is the text the schema coerced: quoted back only while short.
  const shown = typeof value === "number" || typeof value === "bigint" || (typeof value === "string" && value.length <= 40);
  return `must be ${rule} ${bound}${shown ? ` (got ${String(value)})` : ""}`;
}

// A lone UTF-16 surrogate cannot be encoded as UTF-8, and PostgreSQL text cannot hold NUL.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (value or key) that no database or UTF-8 encoder can take; built only when one is found. */
function findUnstorableText(value: unknown, depth = 0): PropertyKey[] | undefined {
  if (typeof value === "string") return UNSTORABLE.test(value) ? [] : undefined;
  if (value === null || typeof value !== "object" || depth > 32) return undefined;
  const isArray = Array.isArray(value);
  for (const key of Object.keys(value)) {
    const at = isArray ? Number(key) : key;
    if (UNSTORABLE.test(key)) return [at];
    const found = findUnstorableText((value as Record<string, unknown>)[key], depth + 1);
    if (found) {
      found.unshift(at);
      return found;
    }
  }
  return undefined;
}

/** Parses a value with a schema; the first problem becomes a 400 that names the field and the rule it broke. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ""): z.infer<S> {
  const unstorable = findUnstorableText(value);
  if (unstorable !== undefined) {
    const field = fieldOf(unstorable, prefix) || prefix || "body";
    throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `${field}: must not contain NUL characters or unpaired UTF-16 surrogates`, {
      field,
    });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const fields = issue.keys.map((key) => fieldOf([...issue.path, key], prefix));
    throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `unknown field${fields.length > 1 ? "s" : ""}: ${fields.join(", ")}`, {
      field: fields[0]!,
      details: { unknownFields: fields },
    });
  }
  const field = fieldOf(issue.path, prefix) || prefix || "body";
  throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `${field}: ${describeIssue(issue, value)}`, { field });
}

/** Every route takes the API key in its query (the interface document's `apiKey`), whether or not it checks one. */
const API_KEY_PARAMETER = "apiKey";

/**
 * Refuses query parameters a route does not take, as unknown body fields are refused: a misspelt optional parameter
 * (`erc20TokenContractAddress`, `waitSecond`) would otherwise be dropped without a word, and the answer look right.
 * Built once per route from its query schema's fields.
 */
export function queryParameterCheck(schema: z.ZodType | undefined): (query: Record<string, unknown>) => void {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  // A query schema that is not an object of fields (none today) names no parameters to check against.
  if (schema !== undefined && shape === undefined) return () => {};
  const taken = Object.keys(shape ?? {});
  const allowed = new Set([...taken, API_KEY_PARAMETER]);
  const takes =
    taken.length > 0
      ? `this endpoint takes ${taken.join(", ")} (and ${API_KEY_PARAMETER})`
      : `this endpoint takes only ${API_KEY_PARAMETER}`;
  return (query) => {
    const unknown = Object.keys(query).filter((name) => !allowed.has(name));
    if (unknown.length === 0) return;
    // A hostile query may hold hundreds of long names: the answer names the first few, each cut short.
    const shown = unknown.slice(0, 10).map((name) => (name.length <= 64 ? name : `${name.slice(0, 64)}…`));
    const more = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : "";
    throw new TokenServiceError(
      ErrorCode.INVALID_ARGUMENT,
      `unknown query parameter${unknown.length > 1 ? "s" : ""}: ${shown.join(", ")}${more}; ${takes}`,
      { field: shown[0]!, details: { unknownParameters: shown, allowed: [...allowed] } },
    );
  };
}
