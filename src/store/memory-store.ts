import type {
  LeaseFilter,
  LeasedOperation,
  NewNonceReservation,
  NewOperation,
  NonceReservation,
  OperationChange,
  OperationRecord,
  OperationStore,
  UnfinishedTransaction,
} from "../core/operations/types.js";
import { allowedSources } from "./transition-guard.js";

interface Entry {
  record: LeasedOperation;
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
  private readonly reservations = new Map<string, { reservation: NewNonceReservation; expiresAt: number }>();

  async insertOperation(operation: NewOperation): Promise<void> {
    if (this.entries.has(operation.id)) throw new Error(`operation ${operation.id} exists`);
    const now = new Date().toISOString();
    const { reason, checkInMs, lease, ...fields } = operation;
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
        createdAt: now,
        updatedAt: now,
        missingSince: null,
        minedAt: operation.status === "mined" ? now : null,
      },
      nextCheckAt: unfinished ? Date.now() + (checkInMs ?? 0) : null,
      leaseOwner: lease?.owner ?? null,
      leaseUntil: lease === undefined ? 0 : Date.now() + lease.ms,
    });
  }

  async getOperation(id: string): Promise<OperationRecord | undefined> {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : structuredClone(entry.record);
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
      if (change.status === "mined") record.minedAt = now;
      record.status = change.status;
    }
    if (change.reason !== undefined) record.transitions.push({ status: record.status, at: now, reason: change.reason });
    if (change.blockNumber !== undefined) record.blockNumber = change.blockNumber;
    if (change.blockHash !== undefined) record.blockHash = change.blockHash;
    if (change.result !== undefined) record.result = change.result;
    if (change.error !== undefined) record.error = change.error;
    if (change.missingSince !== undefined) record.missingSince = change.missingSince?.toISOString() ?? null;
    if (change.checkInMs !== undefined) entry.nextCheckAt = change.checkInMs === null ? null : Date.now() + change.checkInMs;
    if (leaseOwner !== undefined) entry.leaseOwner = null;
    record.updatedAt = now;
    return structuredClone(record);
  }

  async changeOperations(
    changes: ReadonlyArray<{ id: string; change: OperationChange }>,
    leaseOwner: string,
  ): Promise<Array<OperationRecord | undefined>> {
    return Promise.all(changes.map(({ id, change }) => this.changeOperation(id, change, leaseOwner)));
  }

  async releaseLeases(owner: string): Promise<void> {
    for (const entry of this.entries.values()) if (entry.leaseOwner === owner) entry.leaseOwner = null;
  }

  async recheckMined(chain: string, network: string, fromBlock?: number): Promise<number> {
    let count = 0;
    for (const entry of this.entries.values()) {
      if (entry.record.chain !== chain || entry.record.network !== network || entry.record.status !== "mined") continue;
      if (fromBlock !== undefined && (entry.record.blockNumber === null || entry.record.blockNumber < fromBlock)) continue;
      entry.nextCheckAt = Date.now();
      count++;
    }
    return count;
  }

  async findByTransactionHash(chain: string, network: string, transactionHash: string): Promise<OperationRecord | undefined> {
    for (const { record } of this.entries.values()) {
      if (record.chain === chain && record.network === network && record.transactionHash?.toLowerCase() === transactionHash.toLowerCase()) {
        return structuredClone(record);
      }
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
    for (const { record } of this.entries.values()) {
      if (record.chain !== chain || record.network !== network || record.sender !== sender) continue;
      if (record.nonce === null || record.nonce < fromNonce || (record.status !== "signed" && record.status !== "pending")) continue;
      const { id, nonce, status, transactionHash, rawTransaction } = record;
      found.push({ id, nonce, status, transactionHash, rawTransaction });
    }
    return found.sort((a, b) => a.nonce - b.nonce).slice(0, limit);
  }

  async reserveNonce(reservation: NewNonceReservation): Promise<string | undefined> {
    const key = reservationKey(reservation.chain, reservation.network, reservation.sender, reservation.nonce);
    const now = Date.now();
    if ((this.reservations.get(key)?.expiresAt ?? 0) > now) return undefined;
    const expiresAt = now + reservation.ttlMs;
    this.reservations.set(key, { reservation: structuredClone(reservation), expiresAt });
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

  async leaseDueOperations(owner: string, leaseMs: number, limit: number, filter: LeaseFilter = {}): Promise<LeasedOperation[]> {
    const now = Date.now();
    const free = (entry: Entry) => entry.leaseOwner === null || entry.leaseOwner === owner || entry.leaseUntil < now;
    const due = [...this.entries.values()]
      .filter(
        (entry) =>
          entry.nextCheckAt !== null &&
          entry.nextCheckAt <= now &&
          free(entry) &&
          !filter.skip?.has(entry.record.id) &&
          (filter.only?.has(entry.record.id) ?? true),
      )
      .sort((a, b) => a.nextCheckAt! - b.nextCheckAt!)
      .slice(0, limit);
    for (const entry of due) {
      entry.leaseOwner = owner;
      entry.leaseUntil = now + leaseMs;
    }
    return due.map((entry) => structuredClone(entry.record));
  }
}

const RESERVATION_MEMORY_MS = 24 * 3_600_000;

const reservationKey = (chain: string, network: string, sender: string, nonce: number) => `${chain}/${network}/${sender}/${nonce}`;
