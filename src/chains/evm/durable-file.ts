import { open, rename, unlink } from "node:fs/promises";

// Whole-file writes that a crash or a full disk never leave half done: a simulated chain's journal rewrites and its
// checkpoints both replace a file this way.

/**
 * Replaces `file`'s contents whole: written beside it (owner-only), synced, then renamed over it. A failed write removes
 * its temporary file and throws, leaving `file` as it was.
 */
export async function replaceFile(file: string, contents: string | Buffer): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const handle = await open(temporary, "w", 0o600);
    try {
      await handle.writeFile(contents);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Makes a rename in `directory` durable (a crash after it does not bring the old name back). */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
