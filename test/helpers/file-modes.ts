import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/**
 * Runs `action` with the process umask set to `mask` (a permissive 0o022, as most hosts have), then puts the previous
 * umask back. Also answers the umask found once the action finished: the plugin must not have changed it. (Read by
 * setting it, as `process.umask()` without an argument is deprecated.)
 */
export async function underUmask<T>(mask: number, action: () => Promise<T>): Promise<{ result: T; umaskAfter: number }> {
  const previous = process.umask(mask);
  try {
    const result = await action();
    return { result, umaskAfter: process.umask(mask) };
  } finally {
    process.umask(previous);
  }
}

/** `root` and everything under it, as "relative/path mode" lines (octal permission bits; "." for root), sorted. */
export async function modesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (entry: string) => {
    const info = await lstat(entry);
    found.push(`${path.relative(root, entry) || "."} ${(info.mode & 0o777).toString(8)}${info.isDirectory() ? "/" : ""}`);
    if (info.isDirectory()) for (const name of await readdir(entry)) await visit(path.join(entry, name));
  };
  await visit(root);
  return found.sort();
}

/** The entries of `modesUnder` that are not a 0700 directory or a 0600 file. */
export async function notPrivate(root: string): Promise<string[]> {
  return (await modesUnder(root)).filter((line) => !line.endsWith(" 700/") && !line.endsWith(" 600"));
}
