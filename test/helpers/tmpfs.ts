import { execFileSync } from "node:child_process";
import { statfsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** A small RAM file system of its own (needs root, as this project's machines and CI run): a disk that fills up for real. */
export interface SmallDisk {
  path: string;
  /** Gives it `size` (e.g. "4m"): the disk has room again, with everything on it kept. */
  resize(size: string): void;
  /** Fills what is left with a file of its own, so the next write finds the disk full. */
  fill(): void;
  /** Fills all but about `bytes` (rounded down to 4 KiB) with the filler file, replacing any filler already there. */
  fillLeaving(bytes: number): void;
  /** Deletes the filler file. */
  unfill(): void;
  remove(): Promise<void>;
}

export async function smallDisk(size: string): Promise<SmallDisk> {
  if (process.getuid?.() !== 0)
    throw new Error("the full-disk tests mount a tmpfs and need root (as on this project's machines and in CI)");
  const directory = await mkdtemp(path.join(tmpdir(), "hts-small-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", directory]);
  const filler = path.join(directory, "filler");
  return {
    path: directory,
    resize: (next) => void execFileSync("mount", ["-o", `remount,size=${next}`, directory]),
    // dd stops with "No space left on device" once the disk is full; that is its job here.
    fill: () => void execFileSync("sh", ["-c", `dd if=/dev/zero of=${filler} bs=4k 2>/dev/null || true`]),
    fillLeaving(bytes) {
      execFileSync("rm", ["-f", filler]);
      const { bavail, bsize } = statfsSync(directory);
      const blocks = Math.floor((bavail * bsize - bytes) / 4096);
      if (blocks > 0) execFileSync("sh", ["-c", `dd if=/dev/zero of=${filler} bs=4k count=${blocks} 2>/dev/null || true`]);
    },
    unfill: () => void execFileSync("rm", ["-f", filler]),
    async remove() {
      execFileSync("umount", ["-l", directory]);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
