import type { z } from "zod";

import { ErrorCode, TokenServiceError } from "../errors.js";

function fieldOf(path: PropertyKey[], prefix: string): string {
  const joined = path.map((part) => (typeof part === "number" ? `[${part}]` : String(part))).join(".").replace(/\.\[/g, "[");
  return [prefix, joined].filter(Boolean).join(".");
}

/** Parses a value with a schema; the first problem becomes a 400 that names the field and the rule it broke. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ""): z.infer<S> {
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
  const received = issue.code === "invalid_type" && issue.input === undefined ? "is required" : issue.message.replace(/^Invalid input: /, "");
  throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `${field}: ${received}`, { field });
}
