import { sql, type Kysely } from "kysely";

import type { DialectName } from "./dialect.js";

// The checks on the operations table's columns, changed by migrations (migrations.ts). SQLite cannot alter or drop a
// check: the table is rebuilt from its own definition (SQLite's documented procedure: make the new table, copy the rows,
// drop the old, rename, make the indexes again), so columns later migrations add are kept.

type CheckedColumn = "kind" | "status";

/** Replaces the check on operations.`column` with one admitting `values`. PostgreSQL alters the constraint. */
export async function replaceOperationsCheck(
  db: Kysely<unknown>,
  dialect: DialectName,
  column: CheckedColumn,
  values: readonly string[],
): Promise<void> {
  const check = `check (${column} in (${values.map((value) => `'${value}'`).join(", ")}))`;
  if (dialect === "postgres") {
    await sql`alter table operations drop constraint ${sql.raw(`operations_${column}_check`)}`.execute(db);
    await sql`alter table operations add constraint ${sql.raw(`operations_${column}_check`)} ${sql.raw(check)}`.execute(db);
    return;
  }
  await rebuildSqliteOperations(db, column, check);
}

/** Drops the check on operations.`column`: the values are then checked in code where a record is written. */
export async function dropOperationsCheck(db: Kysely<unknown>, dialect: DialectName, column: CheckedColumn): Promise<void> {
  if (dialect === "postgres") {
    await sql`alter table operations drop constraint ${sql.raw(`operations_${column}_check`)}`.execute(db);
    return;
  }
  await rebuildSqliteOperations(db, column, "");
}

/** SQLite: the operations table made again from its own definition, its check on `column` replaced by `check`. */
async function rebuildSqliteOperations(db: Kysely<unknown>, column: CheckedColumn, check: string): Promise<void> {
  const definitions = await sql<{ type: string; sql: string | null }>`
    select type, sql from sqlite_master where tbl_name = 'operations' and sql is not null`.execute(db);
  const table = definitions.rows.find((row) => row.type === "table")?.sql ?? "";
  const existing = new RegExp(`check \\(${column} in \\([^)]*\\)\\)`);
  if (!/^CREATE TABLE "operations" \(/.test(table) || !existing.test(table))
    throw new Error(`operations table definition not as expected: cannot replace its ${column} check`);
  const rebuilt = table.replace(/^CREATE TABLE "operations"/, 'CREATE TABLE "operations_rebuilt"').replace(existing, check);
  await sql.raw(rebuilt).execute(db);
  await sql`insert into operations_rebuilt select * from operations`.execute(db);
  await sql`drop table operations`.execute(db);
  await sql`alter table operations_rebuilt rename to operations`.execute(db);
  for (const index of definitions.rows.filter((row) => row.type === "index")) await sql.raw(index.sql!).execute(db);
}
