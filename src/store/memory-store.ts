import type { ReservationFiller } from "../chains/evm/write/reservation-fillers.js";
import type {
  ExpiredReservationFiller,
  LeaseFilter,
  LeasedOperation,
  NewNonceReservation,
  NewOperation,
  NewOperationTransaction,
  NonceReservation,
  OperationChange,
  OperationRecord,
  OperationStore,
  StoredTransaction,
  UnfinishedTransaction,
} from "../core/operations/types.js";
import { allowedSources, lastIndexById } from "./transition-guard.js";
import { requireOperationKind } from "../domain/lifecycle.js";

interface Entry {
  record: LeasedOperation;
  /** Its transactions with their raw forms, lowest step first. */
  transactions: Array<NewOperationTransaction & { broadcastAt: string | null }>;
  nextCheckAt: number | null;
  leaseOwner: string | null;
  leaseUntil: number;
}

/**
 * Operation records in this process's memory: for the tasks and the programmatic API, whose
 * operations live as long as the process that waits for them. The HTTP service uses its database.
 */
export class MemoryOperationStore implements OperationStore {
  private readonly entries = new Map<string, Entry>();
  private readonly reservations = new Map<string, { reservation: NewNonceReservation; expiresAt: number; filler?: string }>();

  async insertOperation(operation: NewOperation): Promise<void> {
    if (this.entries.has(operation.id)) throw new Error(`operation ${operation.id} exists`);
    requireOperationKind(operation.kind);
    const now = new Date().toISOString();
    const { reason, checkInMs, lease, transactions = [], ...fields } = operation;
    const unfinished = operation.status === "signed" || operation.status === "pending";
    this.entries.set(operation.id, {
      record: {
        nonce: null,
        rawTransaction: null,
        blockNumber: null,
        blockHash: null,
        result: null,
        ...fields,
        transitions: [{ status: operation.status, at: now, reason: reason ?? "recorded" }],
        stuck: null,
        transactions: [],
        createdAt: now,
        updatedAt: now,
        missingSince: null,
        minedAt: operation.status === "mined" ? now : null,
        broadcastBlock: null,
      },
      transactions: transactions.map((transaction) => ({
        ...structuredClone(transaction),
        transactionHash: transaction.transactionHash.toLowerCase(),
        broadcastAt: transaction.broadcast ? now : null,
      })),
      nextCheckAt: unfinished ? Date.now() + (checkInMs ?? 0) : null,
      leaseOwner: lease?.owner ?? null,
      leaseUntil: lease === undefined ? 0 : Date.now() + lease.ms,
    });
  }

  async getOperation(id: string): Promise<OperationRecord | undefined> {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : this.read(entry);
  }

  /** The record as a reader gets it: a copy, with its transactions (no raw forms), lowest step first. */
  private read(entry: Entry): LeasedOperation {
    const record = structuredClone(entry.record);
    record.transactions = entry.transactions
      .map(({ nonce: _nonce, rawTransaction: _raw, signature: _signature, broadcast: _broadcast, ...transaction }) => ({ ...transaction }))
      .sort((a, b) => a.rung - b.rung);
    return record;
  }

  async recordTransaction(operationId: string, transaction: NewOperationTransaction): Promise<OperationRecord | undefined> {
    const entry = this.entries.get(operationId);
    if (entry === undefined) return undefined;
    const hash = transaction.transactionHash.toLowerCase();
    const now = new Date().toISOString();
    const existing = entry.transactions.find((stored) => stored.transactionHash === hash);
    if (existing === undefined)
      entry.transactions.push({ ...structuredClone(transaction), transactionHash: hash, broadcastAt: transaction.broadcast ? now : null });
    else if (transaction.broadcast) existing.broadcastAt ??= now;
    return this.read(entry);
  }

  async signedCancelAt(
    chain: string,
    network: string,
    sender: string,
    nonce: number,
  ): Promise<{ operationId: string; rawTransaction: string } | undefined> {
    let found: { operationId: string; rawTransaction: string; createdAt: string } | undefined;
    for (const { record, transactions } of this.entries.values()) {
      if (record.chain !== chain || record.network !== network || record.sender !== sender || record.nonce !== nonce) continue;
      const cancel = transactions.find((transaction) => transaction.role === "cancel");
      // A cancel is always stored whole.
      if (cancel?.rawTransaction != null && (found === undefined || record.createdAt >= found.createdAt))
        found = { operationId: record.id, rawTransaction: cancel.rawTransaction, createdAt: record.createdAt };
    }
    return found === undefined ? undefined : { operationId: found.operationId, rawTransaction: found.rawTransaction };
  }

  async storedTransaction(operationId: string, transactionHash: string): Promise<StoredTransaction | undefined> {
    const hash = transactionHash.toLowerCase();
    const stored = this.entries.get(operationId)?.transactions.find((each) => each.transactionHash === hash);
    return stored === undefined ? undefined : { rawTransaction: stored.rawTransaction, signature: stored.signature };
  }

  async changeOperation(id: string, change: OperationChange, leaseOwner?: string): Promise<OperationRecord | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const allowed = allowedSources(change);
    if (allowed !== undefined && !allowed.includes(entry.record.status)) return undefined;
    if (leaseOwner !== undefined && entry.leaseOwner !== leaseOwner) return undefined;
    const now = new Date().toISOString();
    const record = entry.record;
    if (change.status !== undefined) {
      if (change.status === "mined" || change.status === "cancelled") record.minedAt = now;
      record.status = change.status;
    }
    if (change.transactionHash !== undefined) record.transactionHash = change.transactionHash.toLowerCase();
    if (change.broadcastBlock !== undefined) record.broadcastBlock = change.broadcastBlock;
    if (change.stuck !== undefined) record.stuck = change.stuck === null ? null : { at: now, ...change.stuck };
    if (change.reason !== undefined) record.transitions.push({ status: record.status, at: now, reason: change.reason });
    if (change.blockNumber !== undefined) record.blockNumber = change.blockNumber;
    if (change.blockHash !== undefined) record.blockHash = change.blockHash;
    if (change.result !== undefined) record.result = change.result;
    if (change.error !== undefined) record.error = change.error;
    if (change.missingSince !== undefined) record.missingSince = change.missingSince?.toISOString() ?? null;
    if (change.checkInMs !== undefined) entry.nextCheckAt = change.checkInMs === null ? null : Date.now() + change.checkInMs;
    if (leaseOwner !== undefined) entry.leaseOwner = null;
    record.updatedAt = now;
    return { ...structuredClone(record), transactions: [] };
  }

  async changeOperations(
    changes: ReadonlyArray<{ id: string; change: OperationChange }>,
    leaseOwner: string,
  ): Promise<Array<OperationRecord | undefined>> {
    const last = lastIndexById(changes);
    const changed: Array<OperationRecord | undefined> = [];
    for (const [index, { id, change }] of changes.entries()) {
      changed.push(await this.changeOperation(id, change, leaseOwner));
      // Another change of the record follows: the lease holds until that one.
      const entry = this.entries.get(id);
      if (last.get(id) !== index && entry !== undefined && changed[index] !== undefined) entry.leaseOwner = leaseOwner;
    }
    return changed;
  }

  async releaseLeases(owner: string): Promise<void> {
    for (const entry of this.entries.values()) if (entry.leaseOwner === owner) entry.leaseOwner = null;
  }

  async recheckMined(chain: string, network: string, fromBlock?: number): Promise<number> {
    let count = 0;
    for (const entry of this.entries.values()) {
      if (entry.record.chain !== chain || entry.record.network !== network) continue;
      if (entry.record.status !== "mined" && entry.record.status !== "cancelled") continue;
      if (fromBlock !== undefined && (entry.record.blockNumber === null || entry.record.blockNumber < fromBlock)) continue;
      entry.nextCheckAt = Date.now();
      count++;
    }
    return count;
  }

  async recheckWatched(): Promise<number> {
    let count = 0;
    const now = Date.now();
    for (const entry of this.entries.values()) {
      if (entry.record.status !== "mined" && entry.record.status !== "cancelled") continue;
      if (entry.nextCheckAt === null || entry.nextCheckAt <= now) continue;
      entry.nextCheckAt = now;
      count++;
    }
    return count;
  }

  async findByTransactionHash(chain: string, network: string, transactionHash: string): Promise<OperationRecord | undefined> {
    const hash = transactionHash.toLowerCase();
    for (const entry of this.entries.values()) {
      const { record } = entry;
      if (record.chain !== chain || record.network !== network) continue;
      const sent =
        record.transactionHash?.toLowerCase() === hash || entry.transactions.some((tx) => tx.transactionHash === hash && tx.broadcastAt);
      if (sent) return this.read(entry);
    }
    return undefined;
  }

  async heldNonces(chain: string, network: string, sender: string): Promise<number[]> {
    const held = new Set<number>();
    for (const { record } of this.entries.values()) {
      if (record.chain !== chain || record.network !== network || record.sender !== sender || record.nonce === null) continue;
      if (record.status === "signed" || record.status === "pending") held.add(record.nonce);
    }
    const now = Date.now();
    for (const { reservation, expiresAt } of this.reservations.values()) {
      if (reservation.chain === chain && reservation.network === network && reservation.sender === sender && expiresAt > now)
        held.add(reservation.nonce);
    }
    return [...held].sort((a, b) => a - b);
  }

  async unfinishedOfSender(
    chain: string,
    network: string,
    sender: string,
    fromNonce: number,
    limit: number,
  ): Promise<UnfinishedTransaction[]> {
    const found: UnfinishedTransaction[] = [];
    for (const { record, transactions } of this.entries.values()) {
      if (record.chain !== chain || record.network !== network || record.sender !== sender) continue;
      if (record.nonce === null || record.nonce < fromNonce || (record.status !== "signed" && record.status !== "pending")) continue;
      const { id, nonce, status, transactionHash } = record;
      // The raw form of the transaction the record follows: a replacement's is with its stored transactions.
      const followed = transactions.find((transaction) => transaction.transactionHash === transactionHash?.toLowerCase());
      found.push({
        id,
        nonce,
        status,
        transactionHash,
        rawTransaction: record.rawTransaction,
        followed:
          followed === undefined || followed.role === "original"
            ? null
            : {
                transactionHash: followed.transactionHash,
                rawTransaction: followed.rawTransaction,
                signature: followed.signature,
                maxFeePerGas: followed.maxFeePerGas,
                maxPriorityFeePerGas: followed.maxPriorityFeePerGas,
                gasPrice: followed.gasPrice,
              },
      });
    }
    return found.sort((a, b) => a.nonce - b.nonce).slice(0, limit);
  }

  async reserveNonce(reservation: NewNonceReservation): Promise<string | undefined> {
    const key = reservationKey(reservation.chain, reservation.network, reservation.sender, reservation.nonce);
    const now = Date.now();
    if ((this.reservations.get(key)?.expiresAt ?? 0) > now) return undefined;
    const expiresAt = now + reservation.ttlMs;
    // A filler kept beside the expired reservation of this nonce still fills it.
    const filler = this.reservations.get(key)?.filler;
    this.reservations.set(key, { reservation: structuredClone(reservation), expiresAt, ...(filler !== undefined ? { filler } : {}) });
    // As the SQL store does: reservations long past their expiry can no longer be submitted against.
    for (const [other, entry] of this.reservations) if (entry.expiresAt < now - RESERVATION_MEMORY_MS) this.reservations.delete(other);
    return new Date(expiresAt).toISOString();
  }

  async getNonceReservation(chain: string, network: string, sender: string, nonce: number): Promise<NonceReservation | undefined> {
    const entry = this.reservations.get(reservationKey(chain, network, sender, nonce));
    if (entry === undefined) return undefined;
    const { ttlMs: _ttl, ...reservation } = structuredClone(entry.reservation);
    return { ...reservation, expiresAt: new Date(entry.expiresAt).toISOString(), live: entry.expiresAt > Date.now() };
  }

  async unfilledReservations(chain: string, network: string, sender: string): Promise<number[]> {
    const now = Date.now();
    return [...this.reservations.values()]
      .filter(({ reservation: r }) => r.chain === chain && r.network === network && r.sender === sender)
      .filter(({ expiresAt, filler }) => expiresAt > now && filler === undefined)
      .map(({ reservation }) => reservation.nonce)
      .sort((a, b) => a - b);
  }

  async keepReservationFillers(chain: string, network: string, sender: string, fillers: readonly ReservationFiller[]): Promise<void> {
    for (const { nonce, rawTransaction } of fillers) {
      const entry = this.reservations.get(reservationKey(chain, network, sender, nonce));
      if (entry !== undefined) entry.filler ??= rawTransaction;
    }
  }

  async reservationFillerAt(chain: string, network: string, sender: string, nonce: number): Promise<ExpiredReservationFiller | undefined> {
    const entry = this.reservations.get(reservationKey(chain, network, sender, nonce));
    if (entry?.filler === undefined || entry.expiresAt > Date.now()) return undefined;
    return { rawTransaction: entry.filler, expiresAt: new Date(entry.expiresAt).toISOString() };
  }

  async leaseDueOperations(owner: string, leaseMs: number, limit: number, filter: LeaseFilter = {}): Promise<LeasedOperation[]> {
    const now = Date.now();
    const free = (entry: Entry) => entry.leaseOwner === null || entry.leaseOwner === owner || entry.leaseUntil < now;
    const earlyFirst = (entry: Entry) => (filter.early?.has(entry.record.id) === true ? 0 : 1);
    const due = [...this.entries.values()]
      .filter(
        (entry) =>
          entry.nextCheckAt !== null &&
          (entry.nextCheckAt <= now || filter.early?.has(entry.record.id) === true) &&
          free(entry) &&
          !filter.skip?.has(entry.record.id) &&
          (filter.only?.has(entry.record.id) ?? true),
      )
      // The records the tracker knows are ready first (see LeaseFilter.early), then by check time.
      .sort((a, b) => earlyFirst(a) - earlyFirst(b) || a.nextCheckAt! - b.nextCheckAt!)
      .slice(0, limit);
    for (const entry of due) {
      entry.leaseOwner = owner;
      entry.leaseUntil = now + leaseMs;
    }
    return due.map((entry) => this.read(entry));
  }
}

const RESERVATION_MEMORY_MS = 24 * 3_600_000;

const reservationKey = (chain: string, network: string, sender: string, nonce: number) => `${chain}/${network}/${sender}/${nonce}`;
