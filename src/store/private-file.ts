import { closeSync, openSync } from "node:fs";

/**
 * Creates `file` empty and readable by this user only (0600), unless it exists, before a library opens it: node:sqlite
 * would create it with the umask's mode (0644 under the usual 022), and the process's umask is the host's, not ours.
 * SQLite gives a database's -wal and -shm files the mode of the database file itself.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, "a", 0o600));
}
