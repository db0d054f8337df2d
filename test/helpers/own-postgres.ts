import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

import { closedPort } from "./service.js";

/**
 * A PostgreSQL server of this test's own (the machine's PostgreSQL binaries, a fresh cluster on a free port), so that a
 * test can stop it as an operator or a crash would (`pg_ctl stop -m immediate`) and start it again, without touching
 * the server other tests use. As root, the cluster runs as the `postgres` user, as PostgreSQL requires.
 */
export interface OwnPostgres {
  url: string;
  /** `pg_ctl stop -m immediate`: every backend killed at once, no checkpoint, as a crash would. */
  stopImmediately(): void;
  start(): void;
  remove(): void;
}

function binaries(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => path.join(root, version, "bin")).find((bin) => existsSync(path.join(bin, "pg_ctl")));
  if (found === undefined) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)");
  return found;
}

/** `under`: the directory the cluster is made in (a small tmpfs, for a server whose disk fills up); default the temp dir. */
export async function ownPostgres(cluster: { under?: string; initdbArgs?: string[] } = {}): Promise<OwnPostgres> {
  const bin = binaries();
  const port = await closedPort();
  const directory = mkdtempSync(path.join(cluster.under ?? tmpdir(), "hts-own-pg-"));
  const data = path.join(directory, "data");
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
    chownSync(directory, id("-u"), id("-g"));
    // The postgres user must reach the cluster through its parent too (a tmpfs mounted 0700 for root).
    if (cluster.under !== undefined) chmodSync(cluster.under, 0o711);
  }
  chmodSync(directory, 0o700);
  const run = (command: string, args: string[]) =>
    asRoot
      ? execFileSync("su", ["postgres", "-s", "/bin/sh", "-c", [command, ...args].map((part) => `'${part}'`).join(" ")], { stdio: "pipe" })
      : execFileSync(command, args, { stdio: "pipe" });
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1`;
  const start = () => void run(path.join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", path.join(directory, "log"), "-w", "start"]);
  run(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", ...(cluster.initdbArgs ?? [])]);
  start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stopImmediately: () => void run(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]),
    start,
    remove() {
      try {
        run(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // Already stopped.
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
