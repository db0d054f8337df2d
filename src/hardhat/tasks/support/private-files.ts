import { chmod, lstat, readdir } from "node:fs/promises";
import path from "node:path";

const goneIsFine = (error: NodeJS.ErrnoException) => {
  if (error.code !== "ENOENT") throw error;
};

/**
 * Sets directories under `root` to 0700 and files to 0600, whatever created them (a data directory made by an older
 * version that left modes to the umask). What the service creates itself it creates with these modes; the process's
 * umask belongs to the host and is never changed.
 */
export async function makePrivate(root: string): Promise<void> {
  const info = await lstat(root).catch(goneIsFine);
  if (info === undefined || info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    if ((info.mode & 0o777) !== 0o700) await chmod(root, 0o700).catch(goneIsFine);
    const names = (await readdir(root).catch(goneIsFine)) ?? [];
    for (const name of names) await makePrivate(path.join(root, name));
    return;
  }
  if ((info.mode & 0o077) !== 0) await chmod(root, info.mode & 0o700).catch(goneIsFine);
}
