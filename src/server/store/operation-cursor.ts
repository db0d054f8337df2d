import { invalidArgument } from "../../errors.js";

/** Where a page of operations ends: the last row's creation time (milliseconds since the epoch) and id. */
export interface OperationCursor {
  createdAtMillis: string;
  id: string;
}

export function encodeOperationCursor(cursor: OperationCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAtMillis, cursor.id]), "utf8").toString("base64url");
}

export function decodeOperationCursor(cursor: string): OperationCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    typeof decoded[0] !== "string" ||
    !/^\d{1,15}$/.test(decoded[0]) ||
    typeof decoded[1] !== "string" ||
    !/^[0-9a-f-]{36}$/.test(decoded[1])
  ) {
    throw invalidArgument("cursor", "cursor is not one this service returned");
  }
  return { createdAtMillis: decoded[0], id: decoded[1] };
}
