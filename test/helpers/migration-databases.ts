import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { Kysely, Migrator, PostgresDialect } from "kysely";

import { InProcessSenderLock } from "../../src/chains/evm/sender-lock.js";
import { KyselyStore } from "../../src/store/kysely-store.js";
import { migrations } from "../../src/store/migrations.js";
import type { Database } from "../../src/store/schema.js";
import { nodeSqliteDialect, openSqliteFile } from "../../src/store/sqlite-dialect.js";
import { freshPostgresSchema } from "./postgres-schema.js";

/** An empty database of one dialect for a migration test, dropped by `cleanup`. */
export interface MigrationDatabase {
  name: string;
  dialect: "sqlite" | "postgres";
  open(context: Mocha.Context): Promise<OpenedMigrationDatabase>;
}

/** The database, the project's migrations over it (to migrate to any of them), and a store reading and writing it. */
export interface OpenedMigrationDatabase {
  db: Kysely<Database>;
  migrator: Migrator;
  store: KyselyStore;
  cleanup: () => Promise<unknown>;
}

function opened(db: Kysely<Database>, dialect: "sqlite" | "postgres", cleanup: () => Promise<unknown>): OpenedMigrationDatabase {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider: { getMigrations: async () => migrations(dialect) } });
  const store = new KyselyStore(db, { kind: dialect, location: "test", senderLock: new InProcessSenderLock() });
  return { db, migrator, store, cleanup };
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
        return opened(db, "sqlite", () => rm(directory, { recursive: true, force: true }));
      },
    },
    {
      name: "PostgreSQL server",
      dialect: "postgres",
      async open(context) {
        const schema = await freshPostgresSchema(context, `hts_${label}`);
        const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
        return opened(db, "postgres", () => schema.drop());
      },
    },
  ];
}
