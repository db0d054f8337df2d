import { sql } from "kysely";

import { invalidArgument } from "../domain/errors.js";

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

/** The rows after `cursor` in newest-first order (`created_at desc, id desc`), as a condition for `where`. */
export function afterCursor(cursor: OperationCursor) {
  const createdAt = Number(cursor.createdAtMillis);
  return sql<boolean>`(created_at < ${createdAt} or (created_at = ${createdAt} and id < ${cursor.id}))`;
}

/** A page of `limit` items from rows fetched newest first with `limit + 1`; the extra row says a next page exists. */
export function newestFirstPage<Row extends { created_at: number | string | bigint; id: string }, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
): { items: Item[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toItem),
    nextCursor: rows.length > limit && last ? encodeOperationCursor({ createdAtMillis: String(last.created_at), id: last.id }) : null,
  };
}
