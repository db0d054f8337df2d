import { sql, type Kysely, type Selectable } from "kysely";

import type { NewVerification, VerificationRecord, VerificationStep, VerificationStore } from "../core/verifications/types.js";
import { leaseDueRows } from "./due-leases.js";
import type { DialectSql } from "./dialect.js";
import { iso } from "./operation-rows.js";
import type { Database } from "./schema.js";

type Row = Selectable<Database["verifications"]>;

function toRecord(row: Row): VerificationRecord {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    status: row.status,
    explorer: row.explorer,
    chain: row.chain,
    network: row.network,
    address: row.address,
    operationId: row.operation_id,
    explorerMessage: row.explorer_message,
    explorerReference: row.explorer_reference,
    url: row.url,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

/** Verification records and their worker's leases, over the same Kysely database as the operations. */
export class KyselyVerificationStore implements VerificationStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly d: DialectSql,
  ) {}

  async createVerification(verification: NewVerification): Promise<{ record: VerificationRecord; created: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      const pending = await trx
        .selectFrom("verifications")
        .selectAll()
        .where("api_key_id", verification.apiKeyId === null ? "is" : "=", verification.apiKeyId)
        .where("chain", "=", verification.chain)
        .where("network", "=", verification.network)
        .where("address", "=", verification.address)
        .where("explorer", "=", verification.explorer)
        .where("status", "=", "pending")
        .orderBy("created_at", "desc")
        .executeTakeFirst();
      if (pending !== undefined) return { record: toRecord(pending), created: false };
      const row = await trx
        .insertInto("verifications")
        .values({
          id: verification.id,
          api_key_id: verification.apiKeyId,
          explorer: verification.explorer,
          chain: verification.chain,
          network: verification.network,
          address: verification.address,
          operation_id: verification.operationId,
          status: "pending",
          explorer_reference: null,
          explorer_message: null,
          url: null,
          next_check_at: this.d.nowMs,
          created_at: this.d.nowMs,
          updated_at: this.d.nowMs,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { record: toRecord(row), created: true };
    });
  }

  async getVerification(id: string, apiKeyId?: string | null): Promise<VerificationRecord | undefined> {
    const row = await this.db
      .selectFrom("verifications")
      .selectAll()
      .where("id", "=", id)
      .$if(apiKeyId !== undefined, (query) => query.where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId ?? null))
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async leaseDueVerifications(owner: string, leaseMs: number, limit: number): Promise<VerificationRecord[]> {
    return (await leaseDueRows(this.db, this.d, "verifications", { owner, leaseMs, limit })).map(toRecord);
  }

  async stepVerification(id: string, owner: string, step: VerificationStep): Promise<boolean> {
    const now = this.d.nowMs;
    const ended = { lease_owner: null, lease_until: null, updated_at: now, explorer_message: step.message };
    const query =
      step.kind === "final"
        ? this.db.updateTable("verifications").set({ ...ended, status: step.status, url: step.url, next_check_at: null })
        : this.db.updateTable("verifications").set({
            ...ended,
            ...(step.kind === "accepted" ? { explorer_reference: step.reference } : {}),
            next_check_at: sql`${now} + ${Math.round(step.nextInMs)}`,
          });
    const result = await query.where("id", "=", id).where("lease_owner", "=", owner).where("status", "=", "pending").executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async releaseVerificationLeases(owner: string): Promise<void> {
    await this.db.updateTable("verifications").set({ lease_owner: null, lease_until: null }).where("lease_owner", "=", owner).execute();
  }
}
