import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import type { NewOperation, OperationStore, PreparedTransaction } from "../../../src/core/operations/types.js";
import { MemoryOperationStore } from "../../../src/store/memory-store.js";
import { openStore } from "../../../src/store/open-store.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

// The contract every OperationStore keeps, whichever holds the records: this process's memory (the programmatic API's
// default), the embedded SQLite file and a PostgreSQL server (`serve`). The same tests run on each.

interface Subject {
  store: OperationStore;
  close(): Promise<void>;
}

const subjects: Array<{ name: string; open(context: Mocha.Context): Promise<Subject> }> = [
  { name: "memory", open: async () => ({ store: new MemoryOperationStore(), close: async () => undefined }) },
  {
    name: "embedded SQLite",
    async open() {
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-contract-"));
      const store = await openStore({ dataDir });
      return { store, close: async () => (await store.close(), await rm(dataDir, { recursive: true, force: true })) };
    },
  },
  {
    name: "PostgreSQL server",
    async open(context) {
      const schema = await freshPostgresSchema(context, "hts_contract");
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-contract-unused-"));
      const store = await openStore({ dataDir, databaseUrl: schema.url });
      return {
        store,
        async close() {
          await store.close();
          await schema.drop();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

const SENDER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

function launch(overrides: Partial<NewOperation> = {}): NewOperation {
  return {
    id: randomUUID(),
    apiKeyId: null,
    kind: "launch",
    chain: "ethereum",
    network: "sepolia",
    tokenType: "ERC20",
    params: { name: "Token", symbol: "TKN" },
    sender: SENDER,
    transactionHash: `0x${randomUUID().replaceAll("-", "").padEnd(64, "0")}`,
    contractAddress: null,
    nonce: 0,
    rawTransaction: "0x02f0",
    status: "signed",
    error: null,
    reason: "signed",
    ...overrides,
  };
}

const PREPARED: PreparedTransaction = { chainId: 11155111, type: 2, nonce: 7, gasLimit: "21000", to: null, data: "0x", value: "0" };

for (const subject of subjects) {
  describe(`operation store contract: ${subject.name}`, function () {
    let opened: Subject;
    let store: OperationStore;

    before(async function () {
      opened = await subject.open(this);
      store = opened.store;
    });

    after(async function () {
      await opened?.close();
    });

    it("keeps a record as inserted and every transition it went through, in order", async function () {
      const record = launch();
      await store.insertOperation(record);
      expect(await store.getOperation(record.id)).to.deep.include({ id: record.id, status: "signed", nonce: 0, rawTransaction: "0x02f0" });
      await store.changeOperation(record.id, { status: "pending", reason: "accepted by the node" });
      const mined = await store.changeOperation(record.id, { status: "mined", reason: "included", blockNumber: 3, blockHash: "0xb3" });
      expect(mined).to.deep.include({ status: "mined", blockNumber: 3, blockHash: "0xb3" });
      expect(mined!.transitions.map(({ status, reason }) => [status, reason])).to.deep.equal([
        ["signed", "signed"],
        ["pending", "accepted by the node"],
        ["mined", "included"],
      ]);
    });

    it("refuses a move the lifecycle table lacks, and one from a state the writer did not expect", async function () {
      const record = launch();
      await store.insertOperation(record);
      expect(await store.changeOperation(record.id, { status: "signed", reason: "back" }), "nothing returns to signed").to.equal(undefined);
      expect(await store.changeOperation(record.id, { status: "mined", reason: "late", from: ["pending"] })).to.equal(undefined);
      await store.changeOperation(record.id, { status: "failed", reason: "refused", error: { code: "X", message: "no" } });
      expect(await store.changeOperation(record.id, { status: "pending", reason: "again" }), "failed is final").to.equal(undefined);
      expect(await store.getOperation(record.id)).to.deep.include({ status: "failed" });
      expect(await store.changeOperation(randomUUID(), { status: "mined", reason: "unknown id" })).to.equal(undefined);
    });

    it("leases a due record to one owner at a time, ends the lease on a change, and releases an owner's leases", async function () {
      const record = launch({ chain: "ethereum", network: `lease-${randomUUID().slice(0, 8)}` });
      await store.insertOperation(record);
      const mine = (leased: Array<{ id: string }>) => leased.filter(({ id }) => id === record.id);
      expect(mine(await store.leaseDueOperations("a", 60_000, 500))).to.have.length(1);
      expect(mine(await store.leaseDueOperations("b", 60_000, 500)), "held by a").to.have.length(0);
      expect(await store.changeOperation(record.id, { checkInMs: 0 }, "b"), "only the lease holder may write").to.equal(undefined);
      await store.releaseLeases("a");
      expect(mine(await store.leaseDueOperations("b", 60_000, 500)), "released").to.have.length(1);
      expect(await store.changeOperation(record.id, { status: "pending", reason: "seen", checkInMs: null }, "b")).to.deep.include({
        status: "pending",
      });
      expect(mine(await store.leaseDueOperations("c", 60_000, 500)), "no next check: not due").to.have.length(0);
    });

    it("makes a pair's mined records due again: all of them, or those mined from a block on (a reorg fault)", async function () {
      const network = `recheck-${randomUUID().slice(0, 8)}`;
      const minedAt = async (blockNumber: number) => {
        const record = launch({ network });
        await store.insertOperation(record);
        await store.changeOperation(record.id, { status: "pending", reason: "accepted" });
        await store.changeOperation(record.id, {
          status: "mined",
          reason: "included",
          blockNumber,
          blockHash: `0x${blockNumber}`,
          checkInMs: null,
        });
        return record.id;
      };
      const [low, high] = [await minedAt(3), await minedAt(7)];
      const due = async () =>
        (await store.leaseDueOperations(`recheck-${network}`, 60_000, 500)).map(({ id }) => id).filter((id) => id === low || id === high);
      expect(await due(), "mined, not watched: not due").to.deep.equal([]);
      expect(await store.recheckMined("ethereum", network, 5)).to.equal(1);
      expect(await due()).to.deep.equal([high]);
      expect(await store.recheckMined("ethereum", network)).to.equal(2);
      expect((await due()).sort()).to.deep.equal([low, high].sort());
    });

    it("finds a record by its transaction hash, whatever its case", async function () {
      const record = launch();
      await store.insertOperation(record);
      const found = await store.findByTransactionHash(
        record.chain,
        record.network,
        record.transactionHash!.toUpperCase().replace("0X", "0x"),
      );
      expect(found?.id).to.equal(record.id);
      expect(await store.findByTransactionHash(record.chain, "other", record.transactionHash!)).to.equal(undefined);
    });

    it("lists a sender's unfinished records from a nonce up, in nonce order, with their raw transactions", async function () {
      const network = `unfinished-${randomUUID().slice(0, 8)}`;
      const [six, four, five, nine] = [6, 4, 5, 9].map((nonce) => launch({ network, nonce, rawTransaction: `0x02${nonce}` }));
      for (const record of [six, four, five, nine]) await store.insertOperation(record!);
      await store.changeOperation(six!.id, { status: "pending", reason: "accepted" });
      await store.changeOperation(five!.id, { status: "failed", reason: "refused", error: { code: "X", message: "no" } });
      await store.insertOperation(launch({ network, nonce: 7, sender: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }));
      const listed = await store.unfinishedOfSender("ethereum", network, SENDER, 5, 10);
      expect(listed).to.deep.equal([
        { id: six!.id, nonce: 6, status: "pending", transactionHash: six!.transactionHash, rawTransaction: "0x026" },
        { id: nine!.id, nonce: 9, status: "signed", transactionHash: nine!.transactionHash, rawTransaction: "0x029" },
      ]);
      expect((await store.unfinishedOfSender("ethereum", network, SENDER, 0, 1)).map((record) => record.nonce)).to.deep.equal([4]);
    });

    it("holds the nonces of unfinished records and live reservations, and lets an expired reservation be taken again", async function () {
      const network = `nonces-${randomUUID().slice(0, 8)}`;
      await store.insertOperation(launch({ network, nonce: 4 }));
      const done = launch({ network, nonce: 5 });
      await store.insertOperation(done);
      await store.changeOperation(done.id, { status: "failed", reason: "refused", error: { code: "X", message: "no" } });
      const reservation = { chain: "ethereum", network, sender: SENDER, nonce: 7, transaction: PREPARED, ttlMs: 60_000 };
      expect(await store.reserveNonce(reservation)).to.be.a("string");
      expect(await store.reserveNonce(reservation), "a live reservation holds its nonce").to.equal(undefined);
      expect(await store.heldNonces("ethereum", network, SENDER)).to.deep.equal([4, 7]);
      expect(await store.getNonceReservation("ethereum", network, SENDER, 7)).to.deep.include({
        nonce: 7,
        live: true,
        transaction: PREPARED,
      });
      const expired = { ...reservation, nonce: 8, ttlMs: -1_000 };
      expect(await store.reserveNonce(expired)).to.be.a("string");
      expect((await store.getNonceReservation("ethereum", network, SENDER, 8))?.live).to.equal(false);
      expect(await store.heldNonces("ethereum", network, SENDER), "an expired reservation holds nothing").to.deep.equal([4, 7]);
      expect(await store.reserveNonce({ ...reservation, nonce: 8 }), "taken again").to.be.a("string");
    });
  });
}
