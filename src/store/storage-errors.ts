import { ErrorCode, TokenServiceError } from "../domain/errors.js";

/**
 * SQLite's result codes that say the embedded database's storage ran out or went away (node:sqlite reports them as
 * `errcode`; an extended code such as SQLITE_IOERR_WRITE, 778, has its primary code in the low byte), with what each means.
 */
const SQLITE_RESULTS = new Map<number, { name: string; reason: string }>([
  [8, { name: "SQLITE_READONLY", reason: "the database file is read-only" }],
  [10, { name: "SQLITE_IOERR", reason: "a read or write of the database file failed" }],
  [13, { name: "SQLITE_FULL", reason: "the disk is full" }],
  [14, { name: "SQLITE_CANTOPEN", reason: "a database file cannot be opened (no file descriptor free, or the directory is not writable)" }],
]);

/** PostgreSQL's SQLSTATEs for a server whose own storage failed (class 53 and 58), with what each means. */
const POSTGRES_STATES = new Map<string, { name: string; reason: string }>([
  ["53100", { name: "disk_full", reason: "the database server's disk is full" }],
  ["58030", { name: "io_error", reason: "the database server could not read or write a file" }],
]);

/**
 * A database's storage failure as the one error every layer knows (STORAGE_UNAVAILABLE, a 503 with Retry-After over
 * HTTP), or `error` itself when it is something else. Translated where the driver raises it, so that the core (a send's
 * gap, a refused send's record) and the HTTP layer read it as they read a full journal.
 */
export function asStorageError(error: unknown): unknown {
  const { errcode, code } = (error ?? {}) as { errcode?: unknown; code?: unknown };
  const sqlite = typeof errcode === "number" ? SQLITE_RESULTS.get(errcode & 0xff) : undefined;
  const postgres = sqlite === undefined && typeof code === "string" ? POSTGRES_STATES.get(code) : undefined;
  const result = sqlite ?? postgres;
  if (result === undefined) return error;
  const resource = sqlite !== undefined ? "embedded database" : "database";
  return new TokenServiceError(
    ErrorCode.STORAGE_UNAVAILABLE,
    `the ${resource} cannot be written: ${result.reason}; nothing was done, try again once there is room`,
    { details: { resource, reason: result.name }, cause: error },
  );
}

/** Runs `work`, throwing a storage failure as STORAGE_UNAVAILABLE. */
export function translatingStorageErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asStorageError(error);
  }
}
