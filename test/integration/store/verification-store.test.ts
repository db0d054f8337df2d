import { randomUUID } from "node:crypto";

import { expect } from "chai";

import type { NewVerification } from "../../../src/core/verifications/types.js";
import type { Store } from "../../../src/store/types.js";
import { postgresBackend, sqliteBackend, type Backend } from "../../helpers/store-backends.js";

// The verifications table (migration 0013) on both databases: a pending record per key, contract and explorer; leases
// that two stores on one database never hold at once (PostgreSQL: SKIP LOCKED); a step written only under its lease, the
// explorer's reference kept before the record is asked about.

const ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

function verification(overrides: Partial<NewVerification> = {}): NewVerification {
  return {
    id: randomUUID(),
    apiKeyId: "key-a",
    explorer: "etherscan",
    chain: "ethereum",
    network: "sepolia",
    address: ADDRESS,
    operationId: randomUUID(),
    ...overrides,
  };
}

for (const open of [sqliteBackend, postgresBackend]) {
  describe(`verification records in the store (${open === sqliteBackend ? "embedded SQLite" : "PostgreSQL server"})`, function () {
    this.timeout(60_000);
    let backend: Backend;
    let store: Store;
    let replica: Store;

    before(async function () {
      backend = await open(this);
      store = await backend.open();
      replica = await backend.open();
    });

    after(async function () {
      await replica?.close();
      await store?.close();
      await backend?.cleanup();
    });

    it("writes a pending record due at once, answers it to its key only, and answers it again instead of a second one", async function () {
      const first = await store.verifications.createVerification(verification());
      expect(first.created).to.equal(true);
      expect(first.record).to.deep.include({ status: "pending", explorerReference: null, explorerMessage: null, url: null });
      const again = await store.verifications.createVerification(verification());
      expect(again).to.deep.include({ created: false });
      expect(again.record.id).to.equal(first.record.id);
      // Another explorer, or another key, is another record.
      expect((await store.verifications.createVerification(verification({ explorer: "sourcify" }))).created).to.equal(true);
      expect((await store.verifications.createVerification(verification({ apiKeyId: null }))).created).to.equal(true);
      expect(await store.verifications.getVerification(first.record.id, "key-b")).to.equal(undefined);
      expect((await replica.verifications.getVerification(first.record.id, "key-a"))?.id).to.equal(first.record.id);
      expect((await replica.verifications.getVerification(first.record.id))?.id).to.equal(first.record.id);
    });

    it("leases each due record to one owner at a time, across stores, and writes a step only under the lease", async function () {
      const [a, b] = await Promise.all([
        store.verifications.leaseDueVerifications("owner-a", 60_000, 100),
        replica.verifications.leaseDueVerifications("owner-b", 60_000, 100),
      ]);
      const ids = [...a, ...b].map((record) => record.id);
      expect(ids.length).to.equal(3);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(await store.verifications.leaseDueVerifications("owner-c", 60_000, 100)).to.deep.equal([]);

      const [mine] = a.length > 0 ? a : b;
      const owner = a.length > 0 ? "owner-a" : "owner-b";
      const step = { kind: "accepted", reference: "guid-1", message: "submitted", nextInMs: 60_000 } as const;
      expect(await store.verifications.stepVerification(mine!.id, "owner-c", step)).to.equal(false);
      expect(await store.verifications.stepVerification(mine!.id, owner, step)).to.equal(true);
      // The lease ended with the step: a second write under it is refused.
      expect(await store.verifications.stepVerification(mine!.id, owner, step)).to.equal(false);
      const accepted = await replica.verifications.getVerification(mine!.id);
      expect(accepted).to.deep.include({ status: "pending", explorerReference: "guid-1", explorerMessage: "submitted" });
      // Not due before its next check.
      expect((await store.verifications.leaseDueVerifications("owner-c", 60_000, 100)).map((record) => record.id)).to.not.include(mine!.id);
    });

    it("ends a record verified or failed, with the explorer's words and its page; a final record is never leased", async function () {
      const created = (await store.verifications.createVerification(verification({ explorer: "blockscout" }))).record;
      const [leased] = await store.verifications.leaseDueVerifications("owner-d", 60_000, 100);
      expect(leased?.id).to.equal(created.id);
      const url = `https://eth-sepolia.blockscout.com/address/${ADDRESS}#code`;
      expect(
        await store.verifications.stepVerification(created.id, "owner-d", {
          kind: "final",
          status: "verified",
          message: "Pass - Verified",
          url,
        }),
      ).to.equal(true);
      expect(await store.verifications.getVerification(created.id)).to.deep.include({
        status: "verified",
        explorerMessage: "Pass - Verified",
        url,
      });
      // A new request after the final one is a new record.
      expect((await store.verifications.createVerification(verification({ explorer: "blockscout" }))).created).to.equal(true);
    });

    it("frees an owner's leases for the others at once, and takes back an expired lease", async function () {
      const created = (await store.verifications.createVerification(verification({ explorer: "sourcify", network: "mainnet" }))).record;
      expect((await store.verifications.leaseDueVerifications("owner-e", 60_000, 100)).map((record) => record.id)).to.include(created.id);
      expect(await replica.verifications.leaseDueVerifications("owner-f", 60_000, 100)).to.deep.equal([]);
      await store.verifications.releaseVerificationLeases("owner-e");
      const taken = await replica.verifications.leaseDueVerifications("owner-f", 1, 100);
      expect(taken.map((record) => record.id)).to.include(created.id);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await store.verifications.leaseDueVerifications("owner-g", 60_000, 100)).map((record) => record.id)).to.include(created.id);
    });
  });
}
