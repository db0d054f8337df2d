import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { Kysely, PostgresDialect } from "kysely";

import type { Database } from "../../src/store/schema.js";
import { nodeSqliteDialect, openSqliteFile } from "../../src/store/sqlite-dialect.js";
import { freshPostgresSchema } from "./postgres-schema.js";

/** An empty database of one dialect for a migration test, dropped by `cleanup`. */
export interface MigrationDatabase {
  name: string;
  dialect: "sqlite" | "postgres";
  open(context: Mocha.Context): Promise<{ db: Kysely<Database>; cleanup: () => Promise<unknown> }>;
}

/** The embedded SQLite file and a fresh schema on the PostgreSQL server, named after `label` (letters and underscores). */
export function migrationDatabases(label: string): MigrationDatabase[] {
  return [
    {
      name: "SQLite (embedded)",
      dialect: "sqlite",
      async open() {
        const directory = await mkdtemp(path.join(tmpdir(), `hts-${label}-`));
        const db = new Kysely<Database>({ dialect: nodeSqliteDialect(openSqliteFile(path.join(directory, "store.sqlite"))) });
        return { db, cleanup: () => rm(directory, { recursive: true, force: true }) };
      },
    },
    {
      name: "PostgreSQL server",
      dialect: "postgres",
      async open(context) {
        const schema = await freshPostgresSchema(context, `hts_${label}`);
        const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
        return { db, cleanup: () => schema.drop() };
      },
    },
  ];
}
