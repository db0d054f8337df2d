import { createHash } from "node:crypto";

/**
 * PostgreSQL advisory locks are named by one signed 64-bit integer; this maps a
 * readable name onto that space (the first 8 bytes of its SHA-256) and returns
 * it as a decimal string, to be passed as `$n::bigint`.
 */
export function advisoryLockId(name: string): string {
  return createHash("sha256").update(`hardhat-token-service:${name}`).digest().readBigInt64BE(0).toString();
}
