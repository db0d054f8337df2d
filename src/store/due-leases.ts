import { sql, type Kysely, type Selectable } from "kysely";

import type { DialectSql } from "./dialect.js";
import type { Database } from "./schema.js";

/** The tables whose pending rows a worker leases when due, and the column that says when each is. */
const DUE_AT = { verifications: "next_check_at", webhook_deliveries: "next_attempt_at" } as const;

type LeasedTable = keyof typeof DUE_AT;

/**
 * Leases up to `limit` of `table`'s pending rows that are due and not leased by anyone (or whose lease ran out), earliest
 * due first, to `owner` for `leaseMs`; answers them as leased. `countAttempt` adds one to the row's `attempts` as it is
 * taken (a webhook delivery counts an attempt when it starts: one a crash cuts short may have reached its receiver).
 */
export async function leaseDueRows<T extends LeasedTable>(
  db: Kysely<Database>,
  d: DialectSql,
  table: T,
  { owner, leaseMs, limit, countAttempt = false }: { owner: string; leaseMs: number; limit: number; countAttempt?: boolean },
): Promise<Array<Selectable<Database[T]>>> {
  const now = d.nowMs;
  const due = sql.ref(DUE_AT[table]);
  const free = sql`(lease_until is null or lease_until < ${now})`;
  // A read first: an idle worker's poll writes (and syncs) nothing.
  const anyDue = await sql`select id from ${sql.table(table)} where status = 'pending' and ${due} <= ${now} and ${free} limit 1`.execute(
    db,
  );
  if (anyDue.rows.length === 0) return [];
  // SKIP LOCKED: replicas polling at once each take other rows. SQLite has one writer: nothing to skip.
  const skipLocked = d.name === "postgres" ? sql` for update skip locked` : sql``;
  const attempts = countAttempt ? sql`, attempts = attempts + 1` : sql``;
  const leased = await sql<Selectable<Database[T]>>`update ${sql.table(table)}
    set lease_owner = ${owner}, lease_until = ${now} + ${Math.round(leaseMs)}${attempts}
    where id in (select id from ${sql.table(table)} where status = 'pending' and ${due} <= ${now} and ${free}
                 order by ${due} limit ${limit}${skipLocked})
      and status = 'pending' and ${free}
    returning *`.execute(db);
  // Checked again on the row itself (above): a replica whose lease committed first keeps it.
  return leased.rows;
}
