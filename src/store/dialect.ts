import { sql, type CreateTableBuilder, type RawBuilder } from "kysely";

export type DialectName = "sqlite" | "postgres";

/**
 * The few expressions the two databases spell differently; every query is otherwise the same builder
 * code. Times are integer milliseconds since the epoch in both, read from the database's clock so
 * that replicas with skewed clocks agree.
 */
export interface DialectSql {
  name: DialectName;
  /** Now, in milliseconds since the epoch, on the database's clock. */
  nowMs: RawBuilder<number>;
  /** A JSON column: jsonb on PostgreSQL, checked text on SQLite. */
  jsonType: "jsonb" | "text";
  /** A JSON column that keeps key order (a replayed response body): json on PostgreSQL. */
  orderedJsonType: "json" | "text";
  msType: "bigint" | "integer";
  /** Appends elements (each JSON text), in order, to a JSON array column. */
  appendToArray(column: string, ...elementsJson: string[]): RawBuilder<unknown>;
  /** SQLite tables are STRICT, so a column's type is enforced as on PostgreSQL. */
  strict<T extends string, C extends string>(builder: CreateTableBuilder<T, C>): CreateTableBuilder<T, C>;
  /** pg parses json and jsonb; SQLite returns the text. */
  readJson<T>(value: unknown): T | null;
  /** True where a JSON array column holds the string. */
  jsonArrayHas(column: string, value: string): RawBuilder<boolean>;
  /** A new random UUID (version 4), made by the database: one per row of an insert … select. */
  randomUuid: RawBuilder<string>;
}

export function dialectSql(name: DialectName): DialectSql {
  const postgres = name === "postgres";
  return {
    name,
    nowMs: postgres ? sql<number>`(extract(epoch from now()) * 1000)::bigint` : sql<number>`cast(unixepoch('subsec') * 1000 as integer)`,
    jsonType: postgres ? "jsonb" : "text",
    orderedJsonType: postgres ? "json" : "text",
    msType: postgres ? "bigint" : "integer",
    appendToArray: (column, ...elementsJson) =>
      postgres
        ? sql`${sql.ref(column)} || jsonb_build_array(${sql.join(elementsJson.map((element) => sql`${element}::jsonb`))})`
        : // Each '$[#]' is the array's end after the edits before it: the elements land in order.
          sql`json_insert(${sql.ref(column)}, ${sql.join(elementsJson.map((element) => sql`'$[#]', json(${element})`))})`,
    strict: (builder) => (postgres ? builder : builder.modifyEnd(sql`strict`)),
    readJson: <T>(value: unknown) => (value === null || value === undefined ? null : ((postgres ? value : JSON.parse(String(value))) as T)),
    jsonArrayHas: (column, value) =>
      postgres
        ? sql<boolean>`${sql.ref(column)} @> jsonb_build_array(${value}::text)`
        : sql<boolean>`exists (select 1 from json_each(${sql.ref(column)}) where value = ${value})`,
    randomUuid: postgres
      ? sql<string>`gen_random_uuid()::text`
      : // Per row: every function here is evaluated again for each row (an uncorrelated subquery would be computed once).
        sql<string>`lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`,
  };
}
