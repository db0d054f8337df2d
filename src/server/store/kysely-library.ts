import { createRequire } from "node:module";
import type * as KyselyModule from "kysely";

// Kysely's ES-module build is some 260 files. Imported, each one makes a round trip through the
// module hooks Hardhat registers (tsx) on every `hardhat` run: about 260 ms of CPU at `serve` start-up
// on this project's reference machine. Its CommonJS build is the same code and loads in half that.
// Every value the store uses comes from here, so the process holds one copy of Kysely.
const kysely = createRequire(import.meta.url)("kysely") as typeof KyselyModule;

export const { CompiledQuery, Migrator, PostgresDialect, SqliteAdapter, SqliteDriver, SqliteIntrospector, SqliteQueryCompiler, sql } =
  kysely;
export const Kysely = kysely.Kysely;
export type Kysely<DB> = KyselyModule.Kysely<DB>;
