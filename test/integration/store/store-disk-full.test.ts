import { randomUUID } from "node:crypto";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

import { expect } from "chai";

import { isTokenServiceError } from "../../../src/domain/errors.js";
import { openStore } from "../../../src/store/open-store.js";
import type { NewOperation, Store } from "../../../src/store/types.js";
import { smallDisk, type SmallDisk } from "../../helpers/tmpfs.js";

/** A record that is final as it is written: it and its webhook event go in one transaction (the outbox). */
function minedRecord(apiKeyId: string, index: number): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId,
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    // Large enough that a handful of records needs new pages of the write-ahead log.
    params: { name: `Token ${index}`, symbol: "TKN", padding: "x".repeat(3000) },
    sender: "0x1111111111111111111111111111111111111111",
    transactionHash: `0x${index.toString(16).padStart(64, "0")}`,
    contractAddress: null,
    status: "mined",
    error: null,
  };
}

describe("the embedded store on a disk that fills up (a real tmpfs)", function () {
  this.timeout(60_000);
  let disk: SmallDisk;
  let store: Store | undefined;

  before(async function () {
    disk = await smallDisk("8m");
  });

  after(async function () {
    await store?.close();
    await disk?.remove();
  });

  it("refuses a transaction's write with STORAGE_UNAVAILABLE (never SQLite's 'cannot rollback'), keeps no part of it, and writes again once there is room", async function () {
    store = await openStore({ dataDir: disk.path });
    const key = await store.createApiKey("outbox");
    await store.webhooks.createWebhook(key.id, { url: "https://example.com/hooks", events: ["operation.mined"], secret: "s" });
    const written: string[] = [];
    const refusals: unknown[] = [];
    for (const room of [256, 128, 64, 32, 16, 8, 4, 0]) {
      disk.fillLeaving(room * 1024);
      // One at a time: each its own transaction, so each write meets the disk as the one before left it.
      for (let index = 0; index < 20; index++) {
        const record = minedRecord(key.id, written.length + refusals.length);
        await store.insertOperation(record).then(
          () => written.push(record.id),
          (error: unknown) => refusals.push(error),
        );
      }
    }
    expect(refusals.length, "the disk filled up").to.be.greaterThan(0);
    for (const refusal of refusals) expect(isTokenServiceError(refusal, "STORAGE_UNAVAILABLE"), String(refusal)).to.equal(true);

    disk.unfill();
    const after = minedRecord(key.id, 10_000);
    await store.insertOperation(after);
    written.push(after.id);
    await store.close();
    store = undefined;

    // Every record written has its event, and nothing refused left a record or an event.
    const db = new DatabaseSync(path.join(disk.path, "store.sqlite"), { readOnly: true });
    try {
      const records = (db.prepare("select id from operations").all() as Array<{ id: string }>).map((row) => row.id);
      const events = (db.prepare("select operation_id from webhook_deliveries").all() as Array<{ operation_id: string }>).map(
        (row) => row.operation_id,
      );
      expect(records.sort()).to.deep.equal([...written].sort());
      expect(events.sort()).to.deep.equal([...written].sort());
    } finally {
      db.close();
    }
  });
});
