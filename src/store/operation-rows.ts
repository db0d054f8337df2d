import { sql, type Kysely, type Selectable } from "kysely";

import type {
  NewOperationTransaction,
  OperationStatus,
  OperationTransaction,
  OperationTransition,
  StuckNotice,
} from "../core/operations/types.js";
import { requireOperationKind, type BitcoinSpend } from "../domain/lifecycle.js";
import type { DialectSql } from "./dialect.js";
import type { Database } from "./schema.js";
import type { NewOperation, OperationRecord } from "./types.js";

// How an operation record is written as rows of `operations` and `operation_transactions`, and read back from them.

export type OperationRow = Selectable<Database["operations"]>;
type TransactionRow = Omit<Selectable<Database["operation_transactions"]>, "raw_transaction" | "signature" | "nonce" | "created_at">;

/** The columns of an operation's transactions a reader gets (the raw forms are read one at a time, to broadcast). */
const TRANSACTION_COLUMNS = [
  "operation_id",
  "transaction_hash",
  "role",
  "rung",
  "max_fee_per_gas",
  "max_priority_fee_per_gas",
  "gas_price",
  "broadcast_at",
  "bitcoin_spend",
] as const;

/** JSON parameters go in as text: PostgreSQL types them from the column, SQLite stores the text. */
export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export const num = (value: number | string | null): number | null => (value === null ? null : Number(value));
export const iso = (value: number | string | null): string | null => (value === null ? null : new Date(Number(value)).toISOString());

export function toRecord(d: DialectSql, row: OperationRow): OperationRecord {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    kind: row.kind as OperationRecord["kind"],
    chain: row.chain,
    network: row.network,
    tokenType: row.token_type,
    params: d.readJson<Record<string, unknown>>(row.params) ?? {},
    sender: row.sender,
    transactionHash: row.transaction_hash,
    contractAddress: row.contract_address,
    nonce: num(row.nonce),
    rawTransaction: row.raw_transaction,
    status: row.status as OperationStatus,
    error: d.readJson(row.error),
    blockNumber: num(row.block_number),
    blockHash: row.block_hash,
    result: d.readJson(row.result),
    transitions: d.readJson<OperationTransition[]>(row.transitions) ?? [],
    stuck: d.readJson<StuckNotice>(row.stuck),
    transactions: [],
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

function toTransaction(d: DialectSql, row: TransactionRow): OperationTransaction {
  const bitcoin = d.readJson<BitcoinSpend>(row.bitcoin_spend);
  return {
    transactionHash: row.transaction_hash,
    role: row.role,
    rung: Number(row.rung),
    maxFeePerGas: row.max_fee_per_gas,
    maxPriorityFeePerGas: row.max_priority_fee_per_gas,
    gasPrice: row.gas_price,
    broadcastAt: iso(row.broadcast_at),
    ...(bitcoin ? { bitcoin } : {}),
  };
}

/** The records with their transactions, lowest step first: one query for all of them. */
export async function withTransactions<R extends OperationRecord>(db: Kysely<Database>, d: DialectSql, records: R[]): Promise<R[]> {
  if (records.length === 0) return records;
  const rows = await db
    .selectFrom("operation_transactions")
    .select([...TRANSACTION_COLUMNS, sql<string | null>`case when role = 'original' then raw_transaction end`.as("first_raw")])
    .where(
      "operation_id",
      "in",
      records.map((record) => record.id),
    )
    .orderBy("rung")
    .orderBy("created_at")
    .execute();
  const byOperation = new Map<string, OperationTransaction[]>();
  const firstRaws = new Map<string, string>();
  for (const { first_raw: firstRaw, ...row } of rows) {
    const list = byOperation.get(row.operation_id) ?? [];
    list.push(toTransaction(d, row));
    byOperation.set(row.operation_id, list);
    if (firstRaw !== null) firstRaws.set(row.operation_id, firstRaw);
  }
  for (const record of records) {
    record.transactions = byOperation.get(record.id) ?? [];
    record.rawTransaction ??= firstRaws.get(record.id) ?? null;
  }
  return records;
}

/** `firstRaw`: the record's first raw form, kept on its first transaction's row (see operationRow). */
export function transactionRow(d: DialectSql, operationId: string, transaction: NewOperationTransaction, firstRaw?: string | null) {
  const now = d.nowMs;
  return {
    operation_id: operationId,
    transaction_hash: transaction.transactionHash.toLowerCase(),
    role: transaction.role,
    rung: transaction.rung,
    nonce: transaction.nonce,
    raw_transaction: transaction.rawTransaction ?? (transaction.role === "original" ? (firstRaw ?? null) : null),
    signature: transaction.signature,
    max_fee_per_gas: transaction.maxFeePerGas,
    max_priority_fee_per_gas: transaction.maxPriorityFeePerGas,
    gas_price: transaction.gasPrice,
    created_at: now,
    broadcast_at: transaction.broadcast ? now : null,
    bitcoin_spend: json(transaction.bitcoin),
  };
}

export function operationRow(d: DialectSql, operation: NewOperation) {
  const unfinished = operation.status === "signed" || operation.status === "pending";
  const transitions: OperationTransition[] = [
    { status: operation.status, at: new Date().toISOString(), reason: operation.reason ?? "recorded" },
  ];
  const now = d.nowMs;
  return {
    id: operation.id,
    api_key_id: operation.apiKeyId,
    // The database checks no kind since migration 0014: the list is the code's (domain/kinds/).
    kind: requireOperationKind(operation.kind),
    chain: operation.chain,
    network: operation.network,
    token_type: operation.tokenType,
    params: json(operation.params ?? {}),
    sender: operation.sender,
    transaction_hash: operation.transactionHash,
    contract_address: operation.contractAddress,
    nonce: operation.nonce ?? null,
    // Kept on the first transaction's row when it has one: SQLite writes a row again whole (overflow pages too) on every
    // update, and a record is updated several times in its life while its raw form (5 KB for a deployment) never changes.
    raw_transaction: operation.transactions?.some((transaction) => transaction.role === "original")
      ? null
      : (operation.rawTransaction ?? null),
    status: operation.status,
    error: json(operation.error),
    block_number: operation.blockNumber ?? null,
    block_hash: operation.blockHash ?? null,
    result: json(operation.result),
    transitions: json(transitions),
    created_at: now,
    updated_at: now,
    next_check_at: unfinished ? sql<number>`${now} + ${operation.checkInMs ?? 0}` : null,
    mined_at: operation.status === "mined" ? now : null,
    stuck: null,
    broadcast_block: null,
    // Every row names the same columns: rows of one multi-row insert may differ only in values.
    lease_owner: operation.lease?.owner ?? null,
    lease_until: operation.lease ? sql<number>`${now} + ${Math.round(operation.lease.ms)}` : null,
  };
}
