import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/types.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

describe("store on PostgreSQL: services in separate schemas of one database", function () {
  const cleanups: Array<() => Promise<void>> = [];

  after(async function () {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("migrates a new schema while another schema of the database already holds a store", async function () {
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-schemas-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await freshPostgresSchema(this, "hts_schemas");
    cleanups.push(() => first.drop());
    const firstStore: Store = await openStore({ dataDir, databaseUrl: first.url });
    cleanups.push(() => firstStore.close());

    // Kysely's migrator looks its tables up by name in every schema unless told which one is its own.
    const second = await freshPostgresSchema(this, "hts_schemas");
    cleanups.push(() => second.drop());
    const secondStore: Store = await openStore({ dataDir, databaseUrl: second.url });
    cleanups.push(() => secondStore.close());

    const { key } = await secondStore.createApiKey("second");
    expect(await secondStore.verifyApiKey(key)).to.be.a("string");
    expect(await firstStore.verifyApiKey(key)).to.equal(undefined);
  });
});
