import { constants } from "node:fs";
import { mkdir, open, readFile, type FileHandle } from "node:fs/promises";
import path from "node:path";

import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { replaceFile, syncDirectory } from "./durable-file.js";

/**
 * One change to a simulated chain: a signed transaction it was sent (with the base fee a fee-spike fault gave its
 * block, as a hex quantity), a faucet grant, an empty block a fault mined, or transactions it forgot (a drop or reorg
 * fault): each cancels the latest earlier entry of that transaction, which a restart then leaves out.
 */
export type JournalEntry =
  | { op: "rawTransaction"; raw: string; baseFee?: string }
  /** An empty block a fault mined (on a chain mining on send), at that base fee. */
  | { op: "mine"; baseFee?: string }
  | { op: "fund"; address: string; amount: string; grant?: string }
  | { op: "forget"; transactions: string[] }
  /** The first line of a journal that follows a checkpoint (see checkpoint.ts): its entries come after that state. */
  | { op: "checkpoint"; id: string };

/** What reading a journal back found. */
export interface JournalRead {
  entries: JournalEntry[];
  /** Bytes of the file that were read as entries. */
  bytes: number;
  /** Bytes of an unfinished last line (a write cut short by kill -9 or a full disk), cut off. */
  tornBytes: number;
  /** Lines that are not entries (a torn write in the middle, a damaged block), moved to `setAsidePath`. */
  rejectedLines: number;
  /** Where the rejected lines were kept, when there were any. */
  setAsidePath: string | undefined;
  /** How many trusted entries came before the first line that was lost; undefined when nothing was. */
  trustedBeforeLoss: number | undefined;
}

const isEntry = (value: unknown): value is JournalEntry => {
  const entry = value as Partial<Record<string, unknown>> | null;
  if (entry === null || typeof entry !== "object") return false;
  if (entry.op === "rawTransaction") {
    return (
      typeof entry.raw === "string" &&
      /^0x[0-9a-fA-F]+$/.test(entry.raw) &&
      (entry.baseFee === undefined || (typeof entry.baseFee === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(entry.baseFee)))
    );
  }
  if (entry.op === "mine")
    return entry.baseFee === undefined || (typeof entry.baseFee === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(entry.baseFee));
  if (entry.op === "forget") {
    return (
      Array.isArray(entry.transactions) && entry.transactions.every((hash) => typeof hash === "string" && /^0x[0-9a-fA-F]{64}$/.test(hash))
    );
  }
  if (entry.op === "checkpoint") return typeof entry.id === "string";
  return entry.op === "fund" && typeof entry.address === "string" && typeof entry.amount === "string" && /^\d+$/.test(entry.amount);
};

/** The journal could not be written: nothing it would have recorded was done. */
export function storageUnavailable(file: string, cause: unknown): TokenServiceError {
  const code = (cause as NodeJS.ErrnoException)?.code;
  const reason =
    code === "ENOSPC" || code === "EDQUOT"
      ? "the disk is full"
      : code === "EMFILE" || code === "ENFILE"
        ? "no file descriptor is free"
        : code === "EROFS" || code === "EACCES" || code === "EPERM"
          ? "the data directory is not writable"
          : `the write failed (${code ?? "unknown error"})`;
  return new TokenServiceError(
    ErrorCode.STORAGE_UNAVAILABLE,
    `a simulated chain's journal cannot be written: ${reason}; nothing was done, try again once there is room`,
    { details: { resource: "chain journal", reason: code ?? "unknown", path: path.basename(file) }, cause },
  );
}

/**
 * A simulated chain's history on disk, one JSON entry a line. An entry is written and synced before the change it
 * records is made, so nothing acknowledged is missing after a crash; entries that arrive together share one write and
 * one sync. A write that fails is cut back off the file before the next one, so a full disk never leaves half a line
 * in the middle of the history.
 */
export class ChainJournal {
  private handle: FileHandle | undefined;
  /** The file's length after the last complete write: where a failed write is cut back to. */
  private size = 0;
  /** Set after a failed write whose cut-back failed too: the next write cuts first. */
  private dirty = false;
  private queue: Array<{ lines: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing = false;
  /** Set while a rotation waits for the writes under way: the flush hands over after its current group. */
  private rotationWaiting = false;

  constructor(readonly path: string) {}

  /**
   * Reads every entry that can be trusted. A torn last line is cut off; any other line that is not an entry is moved
   * to a side file (`<journal>.rejected-<time>`), so the chain starts from the rest instead of refusing to start.
   */
  async read(): Promise<JournalRead> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return { entries: [], bytes: 0, tornBytes: 0, rejectedLines: 0, setAsidePath: undefined, trustedBeforeLoss: undefined };
      throw error;
    }
    const complete = text.lastIndexOf("\n") + 1;
    const tornBytes = Buffer.byteLength(text.slice(complete));
    const entries: JournalEntry[] = [];
    const kept: string[] = [];
    const rejected: string[] = [];
    let trustedBeforeLoss: number | undefined;
    for (const line of text.slice(0, complete).split("\n")) {
      if (line.trim() === "") continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = undefined;
      }
      if (isEntry(entry)) {
        entries.push(entry);
        kept.push(line);
      } else {
        trustedBeforeLoss ??= entries.length;
        rejected.push(line);
      }
    }
    if (tornBytes > 0) trustedBeforeLoss ??= entries.length;
    let setAsidePath: string | undefined;
    if (rejected.length > 0 || tornBytes > 0) {
      setAsidePath = `${this.path}.rejected-${new Date().toISOString().replaceAll(":", "-")}`;
      const lost = [...rejected, ...(tornBytes > 0 ? [text.slice(complete)] : [])].join("\n");
      await replaceFile(setAsidePath, `${lost}\n`);
      // The journal is rewritten with only the trusted entries, atomically: a crash here leaves the old file or the new.
      await replaceFile(this.path, kept.map((line) => `${line}\n`).join(""));
    }
    const bytes = kept.reduce((total, line) => total + Buffer.byteLength(line) + 1, 0);
    return { entries, bytes, tornBytes, rejectedLines: rejected.length, setAsidePath, trustedBeforeLoss };
  }

  /** Writes the entries and syncs them; resolves once they are on disk, or rejects with STORAGE_UNAVAILABLE. */
  append(...entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const lines = entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
    return new Promise((resolve, reject) => {
      this.queue.push({ lines, resolve, reject });
      // A rotation waiting takes the file next; it flushes what queued meanwhile when it is done.
      if (!this.writing && !this.rotationWaiting) {
        this.writing = true;
        // Appends that start together (a burst of requests) are microtasks apart: the next macrotask takes them all.
        setImmediate(() => void this.flush());
      }
    });
  }

  /** The bytes of the file every append so far made durable (after a failed write: without it). */
  async durableLength(): Promise<number> {
    await this.opened();
    return this.size;
  }

  /** The first entry of the file, when it can be read as one: a checkpoint marker says which checkpoint it follows. */
  async firstEntry(): Promise<JournalEntry | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const end = text.indexOf("\n");
    if (end < 0) return undefined;
    try {
      const entry: unknown = JSON.parse(text.slice(0, end));
      return isEntry(entry) ? entry : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Starts the journal afresh after a checkpoint: `marker`, then what was written after the first `offset` bytes (the
   * entries the checkpoint does not cover). Appends wait meanwhile. Written beside the file, synced and renamed over
   * it: a crash leaves the old journal or the new one, and the checkpoint's marker tells a start which it found.
   */
  async rotate(offset: number, marker: JournalEntry): Promise<void> {
    // Under a steady load appends never stop: the flush stops taking them until the rotation is done.
    this.rotationWaiting = true;
    while (this.writing) await new Promise((resolve) => setImmediate(resolve));
    this.writing = true;
    this.rotationWaiting = false;
    try {
      const handle = await this.opened();
      if (offset > this.size) throw new Error(`the journal holds ${this.size} bytes, fewer than the ${offset} its checkpoint covers`);
      // The appending handle only writes: the durable bytes are read through another.
      const whole = (await readFile(this.path)).subarray(0, this.size);
      if (offset > 0 && whole[offset - 1] !== 0x0a) throw new Error(`the journal's byte ${offset} does not start an entry`);
      const tail = whole.subarray(offset);
      await replaceFile(this.path, Buffer.concat([Buffer.from(`${JSON.stringify(marker)}\n`), tail]));
      await syncDirectory(path.dirname(this.path));
      // The old file's handle points at the replaced inode: the next write opens the new one.
      this.handle = undefined;
      this.dirty = false;
      await handle.close().catch(() => undefined);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) {
        this.writing = true;
        setImmediate(() => void this.flush());
      }
    }
  }

  async close(): Promise<void> {
    while (this.writing) await new Promise((resolve) => setImmediate(resolve));
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0 && !this.rotationWaiting) {
      const group = this.queue;
      this.queue = [];
      try {
        await this.write(group.map((item) => item.lines).join(""));
        for (const item of group) item.resolve();
      } catch (error) {
        const refused = storageUnavailable(this.path, error);
        for (const item of group) item.reject(refused);
      }
    }
    this.writing = false;
  }

  private async write(text: string): Promise<void> {
    const handle = await this.opened();
    if (this.dirty) {
      await handle.truncate(this.size);
      this.dirty = false;
    }
    const bytes = Buffer.from(text);
    try {
      // Positioned writes: a cut-back file is written from its end, whatever a failed write left behind.
      let written = 0;
      while (written < bytes.length)
        written += (await handle.write(bytes, written, bytes.length - written, this.size + written)).bytesWritten;
      await handle.datasync();
      this.size += bytes.length;
    } catch (error) {
      this.dirty = true;
      await handle
        .truncate(this.size)
        .then(() => (this.dirty = false))
        .catch(() => undefined);
      // A handle whose writes failed may be the problem itself (a file system gone read-only): open anew next time.
      this.handle = undefined;
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  private async opened(): Promise<FileHandle> {
    if (this.handle !== undefined) return this.handle;
    await mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 });
    // Not O_APPEND: writes go where the last complete one ended, over whatever a failed one left.
    const handle = await open(this.path, constants.O_WRONLY | constants.O_CREAT, 0o600);
    try {
      this.size = (await handle.stat()).size;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    this.handle = handle;
    return handle;
  }
}
