import { expect } from "chai";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { DataDirectory } from "../../../src/store/data-directory.js";
import { Kysely } from "kysely";

import { openStore } from "../../../src/store/open-store.js";
import { nodeSqliteDialect, openSqliteFile } from "../../../src/store/sqlite-dialect.js";
import { InProcessSenderLock } from "../../../src/chains/evm/sender-lock.js";
import { KyselyStore } from "../../../src/store/kysely-store.js";
import type { Database } from "../../../src/store/schema.js";
import { modesUnder, notPrivate, underUmask } from "../../helpers/file-modes.js";
import { operation } from "../../helpers/store-backends.js";

// The embedded store in its data directory: where it lives, its files' modes, its lock, and its unsynced leases.

describe("store on SQLite: the data directory", function () {
  let dataDir: string;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-store-dir-"));
  });

  afterEach(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("leases without waiting for an fsync, and every other write of the connection is synced again afterwards", async function () {
    const file = path.join(dataDir, "leases.sqlite");
    const raw = openSqliteFile(file);
    const store = new KyselyStore(new Kysely<Database>({ dialect: nodeSqliteDialect(raw) }), {
      kind: "sqlite",
      location: file,
      senderLock: new InProcessSenderLock(),
    });
    try {
      await store.migrate();
      const synchronous = () => (raw.prepare("pragma synchronous").get() as { synchronous: number }).synchronous;
      const FULL = 2;
      expect(synchronous()).to.equal(FULL);
      const record = operation(null);
      await store.insertOperation(record);
      const leased = await store.leaseDueOperations("tracker-a", 30_000, 10);
      expect(leased.map((due) => due.id)).to.deep.equal([record.id]);
      expect(await store.leaseDueOperations("tracker-b", 30_000, 10), "the lease holds").to.deep.equal([]);
      expect(synchronous(), "synced again after the lease").to.equal(FULL);
    } finally {
      await store.close();
    }
  });

  it("lives in <dataDir>/store.sqlite, private to its owner, describes itself, and never writes a key in the clear", async function () {
    const store = await openStore({ dataDir });
    let key: string;
    try {
      expect(store.kind).to.equal("sqlite");
      expect(store.location).to.equal(path.join(dataDir, "store.sqlite"));
      ({ key } = await store.createApiKey("disk"));
      await store.ping();
    } finally {
      await store.close();
    }
    expect((await stat(path.join(dataDir, "store.sqlite"))).mode & 0o777).to.equal(0o600);
    const secret = Buffer.from(key.slice(4));
    const files = await readdir(dataDir, { withFileTypes: true });
    let scanned = 0;
    for (const file of files) {
      if (!file.isFile()) continue;
      const content = await readFile(path.join(dataDir, file.name));
      expect(content.includes(secret), `${file.name} holds the API key`).to.equal(false);
      scanned++;
    }
    expect(scanned).to.be.greaterThan(0);
  });

  it("creates a fresh data directory 0700 and its files (database, -wal, -shm, lock, holder) 0600 under a 022 umask, which it leaves as it was", async function () {
    const fresh = path.join(dataDir, "fresh", "data");
    const owner = new DataDirectory(fresh, "hardhat serve");
    const { result: whileOpen, umaskAfter } = await underUmask(0o022, async () => {
      const store = await openStore({ dataDir: fresh, dataDirectory: owner });
      try {
        await store.createApiKey("modes");
        // Written while open: the write-ahead log and its index exist until the store closes.
        return await modesUnder(fresh);
      } finally {
        await store.close();
        owner.release();
      }
    });
    expect(umaskAfter, "the process umask").to.equal(0o022);
    expect(whileOpen).to.include.members([
      "store.sqlite 600",
      "store.sqlite-wal 600",
      "store.sqlite-shm 600",
      "owner.lock 600",
      "owner.json 600",
    ]);
    expect(whileOpen.filter((line) => !line.endsWith(" 700/") && !line.endsWith(" 600"))).to.deep.equal([]);
    expect(await notPrivate(path.join(dataDir, "fresh"))).to.deep.equal([]);
  });

  it("refuses a second service on the directory, and lets a store opened beside it (apikey:create) write what the service reads", async function () {
    const owner = new DataDirectory(dataDir, "hardhat serve");
    const service = await openStore({ dataDir, dataDirectory: owner });
    try {
      let refusal: unknown;
      await openStore({ dataDir, dataDirectory: new DataDirectory(dataDir, "hardhat serve") }).catch((error: unknown) => (refusal = error));
      expect((refusal as Error)?.message).to.match(/already open in this process/);
      const beside = await openStore({ dataDir });
      const { id, key } = await beside.createApiKey("beside");
      await beside.close();
      expect(await service.verifyApiKey(key)).to.equal(id);
    } finally {
      await service.close();
      owner.release();
    }
  });
});
