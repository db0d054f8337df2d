import { sql, type Kysely } from "kysely";

import type { DialectSql } from "./dialect.js";
import type { Database } from "./schema.js";
import type { SharedRateLimitCount } from "./types.js";

// Rate limits shared by every replica of a service: a count per bucket and fixed window, in the database.

export async function hitRateLimit(
  db: Kysely<Database>,
  d: DialectSql,
  bucket: string,
  limit: number,
  windowMs: number,
  hits = 1,
): Promise<SharedRateLimitCount> {
  // A server setting, not client input: a bad one is a configuration error, never a 400.
  if (!Number.isFinite(windowMs) || windowMs < 1) throw new RangeError(`the rate-limit window must be at least 1 ms, not ${windowMs}`);
  const window = Math.round(windowMs);
  const now = d.nowMs;
  const row = await db
    .insertInto("rate_limits")
    .values({ bucket, window_start: sql`${now} - ${now} % ${window}`, count: hits })
    .onConflict((conflict) => conflict.columns(["bucket", "window_start"]).doUpdateSet({ count: sql`rate_limits.count + ${hits}` }))
    .returning(["count", "window_start", now.as("now_ms")])
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  const windowStart = Number(row.window_start);
  // The first hit of a window retires the bucket's earlier windows, so the table stays small. Housekeeping only: a hit
  // already counted is not refused (503 on a full disk) after it is.
  if (count === hits)
    await db
      .deleteFrom("rate_limits")
      .where("bucket", "=", bucket)
      .where("window_start", "<", windowStart)
      .execute()
      .catch(() => undefined);
  return {
    count,
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetMs: Math.max(0, windowStart + window - Number(row.now_ms)),
  };
}
