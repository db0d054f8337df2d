import { link, readFile, rm, writeFile } from "node:fs/promises";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Claims an embedded database directory for this process. PGlite does not
 * guard its files against a second process (a second open hangs, and two
 * writers would corrupt them), so a lock file holding the owner's pid does.
 * A lock left by a process that no longer runs is taken over.
 */
export async function claimDataDirectory(lockPath: string, description: string): Promise<() => Promise<void>> {
  // Written aside and linked into place, so the lock file never exists without its pid.
  const draft = `${lockPath}.${process.pid}`;
  await writeFile(draft, String(process.pid));
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(draft, lockPath);
        return () => rm(lockPath, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const owner = Number((await readFile(lockPath, "utf8").catch(() => "")).trim());
      if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
        const who = owner === process.pid ? "this process" : `process ${owner}`;
        throw new Error(
          `${description} is already open in ${who} (lock file ${lockPath}); stop it, or set DATABASE_URL so that several servers share a PostgreSQL database`,
        );
      }
      await rm(lockPath, { force: true });
    }
    throw new Error(`could not claim ${description}: ${lockPath} keeps reappearing`);
  } finally {
    await rm(draft, { force: true });
  }
}
