import { sql, type Kysely } from "kysely";

import type { Database } from "../../src/store/schema.js";
import type { NewOperation } from "../../src/store/types.js";

/**
 * Writes a record as a store of migration 0001's layout did, column by column (today's store writes columns later
 * migrations added): the records a migration must keep.
 */
export async function insertLegacyOperation(db: Kysely<Database>, operation: NewOperation): Promise<void> {
  const now = Date.now();
  const unfinished = operation.status === "signed" || operation.status === "pending";
  await sql`insert into operations (id, api_key_id, kind, chain, network, token_type, params, sender, transaction_hash,
      contract_address, nonce, raw_transaction, status, error, block_number, block_hash, result, transitions, created_at,
      updated_at, next_check_at, mined_at)
    values (${operation.id}, ${operation.apiKeyId}, ${operation.kind}, ${operation.chain}, ${operation.network},
      ${operation.tokenType}, ${JSON.stringify(operation.params)}, ${operation.sender}, ${operation.transactionHash},
      ${operation.contractAddress}, ${operation.nonce ?? null}, ${operation.rawTransaction ?? null}, ${operation.status},
      ${operation.error === null ? null : JSON.stringify(operation.error)}, ${operation.blockNumber ?? null}, ${operation.blockHash ?? null},
      ${operation.result ? JSON.stringify(operation.result) : null},
      ${JSON.stringify([{ status: operation.status, at: new Date(now).toISOString(), reason: operation.reason ?? "recorded" }])},
      ${now}, ${now}, ${unfinished ? now : null}, ${operation.status === "mined" ? now : null})`.execute(db);
}
