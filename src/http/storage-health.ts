import { open, rm } from "node:fs/promises";
import path from "node:path";

import type { Logger } from "pino";

import { ErrorCode, isTokenServiceError } from "../domain/errors.js";

// The service's own storage (the data directory: chain journals, the embedded database) can run out while the process
// lives: a full disk, a read-only remount, no file descriptor left. It is then not ready: writes answer 503
// STORAGE_UNAVAILABLE with Retry-After, /health says so, and it recovers by itself when the resource comes back.

const STORAGE_ERRNO = new Set(["ENOSPC", "EDQUOT", "EMFILE", "ENFILE", "EROFS"]);
// SQLite's result codes (node:sqlite reports them as `errcode`): READONLY, IOERR, FULL, CANTOPEN.
const SQLITE_STORAGE_CODES = new Set([8, 10, 13, 14]);

interface ErrorLike {
  code?: unknown;
  errcode?: unknown;
  cause?: unknown;
}

/** A failure of the service's own storage (not of a request): disk full, read-only, no file descriptor. */
export function isStorageExhausted(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== "object" || depth > 4) return false;
  if (isTokenServiceError(error, ErrorCode.STORAGE_UNAVAILABLE)) return true;
  const { code, errcode, cause } = error as ErrorLike;
  if (typeof code === "string" && STORAGE_ERRNO.has(code)) return true;
  // The primary result code is the low byte of an extended one (SQLITE_IOERR_WRITE is 778).
  if (typeof errcode === "number" && SQLITE_STORAGE_CODES.has(errcode & 0xff)) return true;
  return isStorageExhausted(cause, depth + 1);
}

/** What the failure was, in words, without paths or values. */
function causeOf(error: unknown): string {
  const { code, errcode, message } = (error ?? {}) as ErrorLike & { message?: unknown };
  if (isTokenServiceError(error)) return error.message;
  if (typeof errcode === "number") return `SQLite error ${errcode}${typeof message === "string" ? ` (${message})` : ""}`;
  return typeof code === "string" ? code : "unknown";
}

export class StorageHealth {
  private failure: { at: number; cause: string } | undefined;
  private failures = 0;

  constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  /** Told of a storage failure: logged once per outage, with its cause. */
  failed(error: unknown): void {
    this.failures++;
    if (this.failure === undefined) {
      this.failure = { at: Date.now(), cause: causeOf(error) };
      this.logger.error({ cause: this.failure.cause }, "storage unavailable: writes answer 503 STORAGE_UNAVAILABLE until it comes back");
    }
  }

  /** Told that a write went through: the outage, if any, is over. */
  succeeded(): void {
    if (this.failure === undefined) return;
    this.logger.warn({ downForMs: Date.now() - this.failure.at }, "storage available again");
    this.failure = undefined;
  }

  /** How many storage failures requests met since start (a metric). */
  get failureCount(): number {
    return this.failures;
  }

  get ready(): boolean {
    return this.failure === undefined;
  }

  /**
   * Ready, or not with the cause. While an outage lasts, each check writes and syncs a small file in the data directory
   * (an honest probe of room and descriptors); when that succeeds the outage is over. No write while all is well.
   */
  async check(): Promise<{ ready: boolean; detail: string }> {
    if (this.failure !== undefined) {
      const probe = path.join(this.dataDir, `.storage-probe-${process.pid}`);
      try {
        const handle = await open(probe, "w", 0o600);
        try {
          await handle.writeFile(Buffer.alloc(4096));
          await handle.datasync();
        } finally {
          await handle.close();
        }
        this.succeeded();
      } catch {
        // Still out of room or descriptors.
      } finally {
        await rm(probe, { force: true }).catch(() => undefined);
      }
    }
    return this.failure === undefined
      ? { ready: true, detail: "data directory writable" }
      : { ready: false, detail: `unavailable since ${new Date(this.failure.at).toISOString()}: ${this.failure.cause}` };
  }
}
