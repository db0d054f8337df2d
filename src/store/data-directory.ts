import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

import type { DataDirectoryLock } from "../chains/evm/chains-registry.js";
import { ErrorCode, TokenServiceError } from "../domain/errors.js";
import { createPrivateFile } from "./private-file.js";

/** Who holds a data directory, as written beside the lock for the refusal message. */
export interface DataDirectoryHolder {
  pid: number;
  host: string;
  /** "hardhat serve", "hardhat token:launch"… */
  role: string;
  /** Where the holder answers, when it is a service. */
  url?: string;
  since: string;
}

const LOCK_FILE = "owner.lock";
const HOLDER_FILE = "owner.json";

/** Who holds the data directory `directory`, as it wrote beside its lock (it may have died since); undefined when none wrote. */
export function dataDirectoryHolder(directory: string): DataDirectoryHolder | undefined {
  try {
    return JSON.parse(readFileSync(path.join(path.resolve(directory), HOLDER_FILE), "utf8")) as DataDirectoryHolder;
  } catch {
    return undefined;
  }
}

/**
 * One writing process per data directory (the embedded database and the
 * simulated chains' journals). The lock is an exclusive SQLite transaction on
 * `owner.lock`: a file lock the operating system holds for the open file and
 * drops when the process dies, however it dies, so a supervisor can restart at
 * once and a recycled pid never keeps the directory locked.
 */
export class DataDirectory implements DataDirectoryLock {
  readonly path: string;
  private lock: DatabaseSync | undefined;
  private holder: DataDirectoryHolder | undefined;

  constructor(
    directory: string,
    private readonly role: string,
    /** What the refused process should do instead; one sentence. */
    private readonly advice = "stop it first, or choose another directory (--data-dir or tokenService.dataDir)",
  ) {
    this.path = path.resolve(directory);
  }

  get claimed(): boolean {
    return this.lock !== undefined;
  }

  /** Creates the directory, private to its owner, without claiming it. */
  ensureExists(): void {
    mkdirSync(this.path, { recursive: true, mode: 0o700 });
  }

  /** Takes the directory for this process; idempotent. Throws DATA_DIR_IN_USE while another holder lives. */
  claim(): void {
    if (this.lock !== undefined) return;
    this.ensureExists();
    const lockFile = path.join(this.path, LOCK_FILE);
    createPrivateFile(lockFile);
    const lock = new DatabaseSync(lockFile);
    try {
      lock.exec("BEGIN EXCLUSIVE");
    } catch (error) {
      lock.close();
      if ((error as { errcode?: number }).errcode !== 5 /* SQLITE_BUSY */) throw error;
      throw this.inUse();
    }
    this.lock = lock;
    this.holder = { pid: process.pid, host: hostname(), role: this.role, since: new Date().toISOString() };
    this.writeHolder();
  }

  /** Records where the holder answers (the service's URL), for the message other processes get. */
  announce(url: string): void {
    if (this.holder === undefined) return;
    this.holder.url = url;
    this.writeHolder();
  }

  release(): void {
    if (this.lock === undefined) return;
    rmSync(path.join(this.path, HOLDER_FILE), { force: true });
    this.lock.close();
    this.lock = undefined;
    this.holder = undefined;
  }

  private writeHolder(): void {
    writeFileSync(path.join(this.path, HOLDER_FILE), `${JSON.stringify(this.holder)}\n`, { mode: 0o600 });
  }

  private inUse(): TokenServiceError {
    let holder: Partial<DataDirectoryHolder> = {};
    try {
      holder = JSON.parse(readFileSync(path.join(this.path, HOLDER_FILE), "utf8")) as DataDirectoryHolder;
    } catch {
      // The holder may be between taking the lock and writing its name.
    }
    const who =
      holder.pid === process.pid && holder.host === hostname()
        ? "this process"
        : `${holder.role ?? "another process"}${holder.pid ? ` (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ""})` : ""}`;
    return new TokenServiceError(ErrorCode.DATA_DIR_IN_USE, `the data directory ${this.path} is already open in ${who}; ${this.advice}`, {
      details: { dataDir: this.path, holder },
    });
  }
}
