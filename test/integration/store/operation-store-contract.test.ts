import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import type { PreparedTransaction } from "../../../src/chains/evm/write/signed-transaction.js";
import type { NewOperation, OperationStore } from "../../../src/core/operations/types.js";
import { MemoryOperationStore } from "../../../src/store/memory-store.js";
import { openStore } from "../../../src/store/open-store.js";
import { rawTransactionOf } from "../../../src/core/operations/stored-transactions.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

// The contract every OperationStore keeps, whichever holds the records: this process's memory (the programmatic API's
// default), the embedded SQLite file and a PostgreSQL server (`serve`). The same tests run on each.

interface Subject {
  store: OperationStore;
  /** Closes the store and opens it again on the same data (a restart); absent for the one in memory. */
  reopen?(): Promise<OperationStore>;
  close(): Promise<void>;
}

const subjects: Array<{ name: string; durable?: boolean; open(context: Mocha.Context): Promise<Subject> }> = [
  { name: "memory", open: async () => ({ store: new MemoryOperationStore(), close: async () => undefined }) },
  {
    name: "embedded SQLite",
    durable: true,
    async open() {
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-contract-"));
      let store = await openStore({ dataDir });
      return {
        store,
        async reopen() {
          await store.close();
          return (store = await openStore({ dataDir }));
        },
        close: async () => (await store.close(), await rm(dataDir, { recursive: true, force: true })),
      };
    },
  },
  {
    name: "PostgreSQL server",
    durable: true,
    async open(context) {
      const schema = await freshPostgresSchema(context, "hts_contract");
      const dataDir = await mkdtemp(path.join(tmpdir(), "hts-contract-unused-"));
      let store = await openStore({ dataDir, databaseUrl: schema.url });
      return {
        store,
        async reopen() {
          await store.close();
          return (store = await openStore({ dataDir, databaseUrl: schema.url }));
        },
        async close() {
          await store.close();
          await schema.drop();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

const hash = (byte: string) => `0x${byte.repeat(32)}`;

const signature = (bytes: string) => `0x${bytes.repeat(65)}`;

/**
 * A key-in-body send's transactions: the original, sent (its raw form is the record's); two replacements signed ahead,
 * kept as signatures; and the cancel signed ahead, kept whole.
 */
function ladder(prefix: string): NonNullable<NewOperation["transactions"]> {
  const step = (byte: string, role: "original" | "replacement" | "cancel", rung: number, broadcast: boolean) => ({
    transactionHash: hash(`${prefix}${byte}`),
    role,
    rung,
    nonce: 0,
    rawTransaction: role === "cancel" ? `0x02f8${prefix}${byte}` : null,
    signature: role === "replacement" ? signature(`${prefix}${byte}`) : null,
    maxFeePerGas: String(3_000_000_000 * (rung + 1)),
    maxPriorityFeePerGas: "1000000000",
    gasPrice: null,
    broadcast,
  });
  return [
    step("0", "original", 0, true),
    step("1", "replacement", 1, false),
    step("2", "replacement", 2, false),
    step("c", "cancel", 3, false),
  ];
}

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

    it("applies a pass's changes in order, several for one record, and ends its lease with the last", async function () {
      const network = `pass-${randomUUID().slice(0, 8)}`;
      const [first, other] = [launch({ network }), launch({ network })];
      await store.insertOperation(first);
      await store.insertOperation(other);
      expect(await store.leaseDueOperations("a", 60_000, 500)).to.have.length.of.at.least(2);
      const changed = await store.changeOperations(
        [
          { id: first.id, change: { status: "pending", reason: "accepted by the node", checkInMs: 0 } },
          { id: other.id, change: { status: "pending", reason: "accepted by the node", checkInMs: 0 } },
          { id: first.id, change: { status: "mined", reason: "included in block 4", blockNumber: 4, blockHash: "0xb4", checkInMs: null } },
        ],
        "a",
      );
      expect(changed.map((record) => record?.status)).to.deep.equal(["pending", "pending", "mined"]);
      const mined = await store.getOperation(first.id);
      expect(mined!.transitions.map(({ status }) => status)).to.deep.equal(["signed", "pending", "mined"]);
      expect(mined).to.deep.include({ blockNumber: 4, blockHash: "0xb4" });
      // Both leases ended: another owner takes the one still due.
      expect((await store.leaseDueOperations("b", 60_000, 500)).map(({ id }) => id))
        .to.include(other.id)
        .and.not.include(first.id);
    });

    it("writes a record's last two changes of a pass as one move (pending then mined), or one by one where the first does not apply", async function () {
      const network = `pair-${randomUUID().slice(0, 8)}`;
      const [fresh, seen] = [launch({ network }), launch({ network })];
      for (const record of [fresh, seen]) await store.insertOperation({ ...record, lease: { owner: "a", ms: 60_000 } });
      // Another writer already moved `seen` to pending: its first change does not apply, its second still does.
      await store.changeOperation(seen.id, { status: "pending", reason: "accepted elsewhere" });
      const accepted = { status: "pending", reason: "accepted by the node", checkInMs: 0, from: ["signed"] } as const;
      // Still watched (its confirmations): due again at once, to whoever holds no lease on it.
      const included = { status: "mined", reason: "included in block 9", blockNumber: 9, blockHash: "0xb9", checkInMs: 0 } as const;
      const changed = await store.changeOperations(
        [
          { id: fresh.id, change: accepted },
          { id: fresh.id, change: included },
          { id: seen.id, change: accepted },
          { id: seen.id, change: included },
        ],
        "a",
      );
      // Each record's last entry is the record its last change left; an earlier one is that record or the one before.
      expect(changed[1]).to.deep.include({ status: "mined", blockNumber: 9 });
      expect(["pending", "mined"]).to.include(changed[0]?.status);
      expect(changed[2], "signed → pending did not apply").to.equal(undefined);
      expect(changed[3]).to.deep.include({ status: "mined" });
      const [minedFresh, minedSeen] = [await store.getOperation(fresh.id), await store.getOperation(seen.id)];
      expect(minedFresh!.transitions.map(({ status, reason }) => [status, reason])).to.deep.equal([
        ["signed", "signed"],
        ["pending", "accepted by the node"],
        ["mined", "included in block 9"],
      ]);
      expect(minedFresh).to.deep.include({ blockNumber: 9, blockHash: "0xb9" });
      expect(minedSeen!.transitions.map(({ status }) => status)).to.deep.equal(["signed", "pending", "mined"]);
      // Both leases ended with the last change.
      expect((await store.leaseDueOperations("b", 60_000, 500)).map(({ id }) => id)).to.include.members([fresh.id, seen.id]);
    });

    it("leases records named early before their check time, if unfinished and not another owner's", async function () {
      const network = `early-${randomUUID().slice(0, 8)}`;
      const [soon, later, held] = [launch({ network }), launch({ network }), launch({ network })];
      for (const record of [soon, later]) await store.insertOperation({ ...record, checkInMs: 60_000, lease: { owner: "a", ms: 60_000 } });
      await store.insertOperation({ ...held, checkInMs: 60_000, lease: { owner: "b", ms: 60_000 } });
      const ids = (leased: Array<{ id: string }>) => leased.map(({ id }) => id);
      expect(ids(await store.leaseDueOperations("a", 60_000, 500)), "not due yet").to.not.include.members([soon.id, later.id]);
      const early = new Set([soon.id, held.id]);
      const taken = ids(await store.leaseDueOperations("a", 60_000, 500, { early }));
      expect(taken, "named, and this owner's").to.include(soon.id);
      expect(taken, "not named").to.not.include(later.id);
      expect(taken, "another owner's lease holds").to.not.include(held.id);
      await store.changeOperation(
        soon.id,
        { status: "failed", reason: "refused", error: { code: "X", message: "no" }, checkInMs: null },
        "a",
      );
      expect(ids(await store.leaseDueOperations("a", 60_000, 500, { early })), "finished: never due").to.not.include(soon.id);
    });

    it("leases records named early before records due long ago (a backlog of checks holds no first look back)", async function () {
      const network = `early-first-${randomUUID().slice(0, 8)}`;
      const backlog = Array.from({ length: 5 }, () => launch({ network }));
      for (const record of backlog) await store.insertOperation({ ...record, checkInMs: 0 });
      const ready = launch({ network });
      await store.insertOperation({ ...ready, checkInMs: 60_000, lease: { owner: "a", ms: 60_000 } });
      const taken = await store.leaseDueOperations("a", 60_000, 1, { early: new Set([ready.id]) });
      expect(taken.map(({ id }) => id)).to.deep.equal([ready.id]);
      const next = await store.leaseDueOperations("a", 60_000, 1);
      expect(
        next.map(({ id }) => id),
        "then the due records, as before",
      ).to.not.include(ready.id);
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

    it("keeps every transaction an operation was sent as, and those signed ahead, with the record", async function () {
      const prefix = randomUUID()
        .slice(0, 1)
        .replace(/[^0-9a-f]/, "a");
      const transactions = ladder(prefix);
      const record = launch({ transactionHash: transactions[0]!.transactionHash, transactions });
      await store.insertOperation(record);
      const read = await store.getOperation(record.id);
      expect(read?.stuck).to.equal(null);
      expect(read?.transactions.map(({ role, rung, broadcastAt }) => [role, rung, broadcastAt !== null])).to.deep.equal([
        ["original", 0, true],
        ["replacement", 1, false],
        ["replacement", 2, false],
        ["cancel", 3, false],
      ]);
      expect(read?.transactions[1]).to.deep.include({ transactionHash: hash(`${prefix}1`), maxFeePerGas: "6000000000", gasPrice: null });
      expect(read?.transactions[1]).to.not.have.property("rawTransaction");
      expect(read?.transactions[1]).to.not.have.property("signature");
      expect(await store.storedTransaction(record.id, hash(`${prefix}2`).toUpperCase().replace("0X", "0x"))).to.deep.equal({
        rawTransaction: null,
        signature: signature(`${prefix}2`),
      });
      // The first one is the record's own raw form, wherever the store keeps it.
      const first = await store.storedTransaction(record.id, hash(`${prefix}0`));
      expect(first?.signature).to.equal(null);
      expect(rawTransactionOf(read!.rawTransaction, read!.transactions[0]!, first!)).to.equal(record.rawTransaction);
      expect(await store.storedTransaction(record.id, hash(`${prefix}c`))).to.deep.equal({
        rawTransaction: `0x02f8${prefix}c`,
        signature: null,
      });
      expect(await store.storedTransaction(record.id, hash("9"))).to.equal(undefined);

      // A step only signed ahead is no hash the operation was sent under; once written as sent, it is.
      expect(await store.findByTransactionHash(record.chain, record.network, hash(`${prefix}1`))).to.equal(undefined);
      const marked = await store.recordTransaction(record.id, { ...transactions[1]!, broadcast: true });
      expect(marked?.transactions[1]?.broadcastAt).to.be.a("string");
      const sentAt = marked!.transactions[1]!.broadcastAt;
      expect((await store.findByTransactionHash(record.chain, record.network, hash(`${prefix}1`)))?.id).to.equal(record.id);
      // Written again (a retry), it keeps what it was.
      const again = await store.recordTransaction(record.id, { ...transactions[1]!, broadcast: true, rawTransaction: "0xother" });
      expect(again?.transactions[1]?.broadcastAt).to.equal(sentAt);
      expect(await store.storedTransaction(record.id, hash(`${prefix}1`))).to.deep.equal({
        rawTransaction: null,
        signature: signature(`${prefix}1`),
      });
      // A caller-signed replacement, not signed ahead: written as it is sent.
      const signed = {
        ...transactions[2]!,
        transactionHash: hash(`${prefix}d`),
        rung: 4,
        rawTransaction: `0x02f8${prefix}d`,
        signature: null,
        broadcast: true,
      };
      expect((await store.recordTransaction(record.id, signed))?.transactions.map(({ rung }) => rung)).to.deep.equal([0, 1, 2, 3, 4]);
    });

    it("finds the cancel a send signed ahead for a sender's nonce", async function () {
      const network = `cancels-${randomUUID().slice(0, 8)}`;
      const laddered = launch({ network, nonce: 3, transactions: ladder("7") });
      await store.insertOperation(laddered);
      // A later send that took the nonce again, without a ladder (a caller-signed one): the cancel found is still the one signed.
      await store.insertOperation(launch({ network, nonce: 3 }));
      await store.insertOperation(launch({ network, nonce: 4 }));
      expect(await store.signedCancelAt("ethereum", network, SENDER, 3)).to.deep.equal({
        operationId: laddered.id,
        rawTransaction: "0x02f87c",
      });
      expect(await store.signedCancelAt("ethereum", network, SENDER, 4), "a send without a ladder").to.equal(undefined);
      expect(await store.signedCancelAt("ethereum", network, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", 3)).to.equal(undefined);
    });

    it("follows the transaction the node took, counts blocks from its head, and sets the stuck notice once", async function () {
      const transactions = ladder("e");
      const record = launch({
        network: `follow-${randomUUID().slice(0, 8)}`,
        transactionHash: transactions[0]!.transactionHash,
        transactions,
      });
      await store.insertOperation(record);
      await store.changeOperation(record.id, { status: "pending", reason: "accepted by the node", broadcastBlock: 12 });
      const leased = (await store.leaseDueOperations(`follow-${record.id}`, 60_000, 500)).find(({ id }) => id === record.id);
      expect(leased).to.deep.include({ broadcastBlock: 12, stuck: null });
      expect(leased?.transactions).to.have.length(4);
      const replaced = await store.changeOperation(
        record.id,
        { status: "pending", reason: "replaced", transactionHash: hash("e1").toUpperCase().replace("0X", "0x"), broadcastBlock: 15 },
        `follow-${record.id}`,
      );
      expect(replaced?.transactionHash).to.equal(hash("e1"));
      const stuck = await store.changeOperation(record.id, { stuck: { transactionHash: hash("e1"), reason: "at the ceiling" } });
      expect(stuck?.stuck).to.deep.include({ transactionHash: hash("e1"), reason: "at the ceiling" });
      expect(stuck?.stuck?.at).to.be.a("string");
      expect((await store.findByTransactionHash(record.chain, record.network, hash("e1")))?.id, "the hash it follows").to.equal(record.id);
      expect((await store.changeOperation(record.id, { stuck: null }))?.stuck).to.equal(null);
    });

    it("ends a cancelled operation cancelled, watched like a mined one (a reorg takes it back to pending)", async function () {
      const network = `cancel-${randomUUID().slice(0, 8)}`;
      const record = launch({ network });
      await store.insertOperation(record);
      expect(await store.changeOperation(record.id, { status: "cancelled", reason: "early" }), "from signed: not a move").to.equal(
        undefined,
      );
      await store.changeOperation(record.id, { status: "pending", reason: "accepted by the node" });
      const cancelled = await store.changeOperation(record.id, {
        status: "cancelled",
        reason: "cancelled",
        blockNumber: 9,
        blockHash: "0xb9",
        checkInMs: null,
      });
      expect(cancelled).to.deep.include({ status: "cancelled", blockNumber: 9 });
      expect(await store.heldNonces("ethereum", network, SENDER), "a cancelled nonce is used").to.deep.equal([]);
      expect(await store.recheckMined("ethereum", network)).to.equal(1);
      expect(await store.changeOperation(record.id, { status: "pending", reason: "reorg" })).to.deep.include({ status: "pending" });
    });

    // The memory store lives as long as its process: a restart is for the stores on disk.
    if (subject.durable)
      it("keeps an operation's transactions, its stuck notice and its state across a restart", async function () {
        const transactions = ladder("f");
        const record = launch({
          network: `restart-${randomUUID().slice(0, 8)}`,
          transactionHash: transactions[0]!.transactionHash,
          transactions,
        });
        await store.insertOperation(record);
        await store.changeOperation(record.id, { status: "pending", reason: "accepted by the node", broadcastBlock: 4 });
        await store.recordTransaction(record.id, { ...transactions[3]!, broadcast: true });
        await store.changeOperation(record.id, { status: "pending", reason: "cancel sent", transactionHash: hash("fc") });
        await store.changeOperation(record.id, { stuck: { transactionHash: hash("fc"), reason: "the cancel waits" } });
        const before = await store.getOperation(record.id);
        store = await opened.reopen!();
        const after = await store.getOperation(record.id);
        expect(after).to.deep.equal(before);
        expect(after?.transactions.find(({ role }) => role === "cancel")?.broadcastAt).to.be.a("string");
        expect(await store.storedTransaction(record.id, hash("fc"))).to.deep.equal({ rawTransaction: "0x02f8fc", signature: null });
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
        { id: six!.id, nonce: 6, status: "pending", transactionHash: six!.transactionHash, rawTransaction: "0x026", followed: null },
        { id: nine!.id, nonce: 9, status: "signed", transactionHash: nine!.transactionHash, rawTransaction: "0x029", followed: null },
      ]);
      expect((await store.unfinishedOfSender("ethereum", network, SENDER, 0, 1)).map((record) => record.nonce)).to.deep.equal([4]);
      // A record that follows a replacement lists how the replacement is stored, with its fees: what rebuilds the raw
      // form the node must get to fill the nonce.
      const transactions = ladder("b");
      const replaced = launch({
        network,
        nonce: 12,
        rawTransaction: "0x02f8b0",
        transactionHash: transactions[0]!.transactionHash,
        transactions,
      });
      await store.insertOperation(replaced);
      await store.recordTransaction(replaced.id, { ...transactions[1]!, broadcast: true });
      await store.changeOperation(replaced.id, { status: "pending", reason: "replaced", transactionHash: hash("b1") });
      expect(await store.unfinishedOfSender("ethereum", network, SENDER, 12, 10)).to.deep.equal([
        {
          id: replaced.id,
          nonce: 12,
          status: "pending",
          transactionHash: hash("b1"),
          rawTransaction: "0x02f8b0",
          followed: {
            transactionHash: hash("b1"),
            rawTransaction: null,
            signature: signature("b1"),
            maxFeePerGas: "6000000000",
            maxPriorityFeePerGas: "1000000000",
            gasPrice: null,
          },
        },
      ]);
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
