import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * What a reader's clone does not have, as this repository's .gitignore says (plus git's own directory): a fixed list,
 * so that a copy needs no git and works from a source archive too. Names in ANYWHERE are left out at any depth; names in
 * AT_ROOT only at the top (`src/artifacts/` is part of the project; `artifacts/` is Hardhat's build output).
 */
const NOT_IN_A_CLONE = {
  ANYWHERE: new Set([".git", "node_modules", ".token-service", "coverage", "scratch"]),
  AT_ROOT: new Set(["cache", "artifacts", "dist", "types"]),
  EXTENSIONS: [".log"],
};

/** The project's files, relative to ROOT, as a clone has them. */
export async function projectFiles(root = ROOT): Promise<string[]> {
  const files: string[] = [];
  const walk = async (relative: string) => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (NOT_IN_A_CLONE.ANYWHERE.has(entry.name) || (relative === "" && NOT_IN_A_CLONE.AT_ROOT.has(entry.name))) continue;
      if (entry.isDirectory()) await walk(name);
      else if ((entry.isFile() || entry.isSymbolicLink()) && !NOT_IN_A_CLONE.EXTENSIONS.some((extension) => entry.name.endsWith(extension)))
        files.push(name);
    }
  };
  await walk("");
  return files.sort();
}

/**
 * A fresh copy of this project as a reader's clone has it (see NOT_IN_A_CLONE), with `node_modules` linked from this
 * checkout, as `npm install` would have made it. `.token-service/` starts empty.
 */
export async function freshProjectCopy(): Promise<{ directory: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(path.join(tmpdir(), "doc-walkthrough-"));
  for (const file of await projectFiles()) {
    await mkdir(path.dirname(path.join(directory, file)), { recursive: true });
    await cp(path.join(ROOT, file), path.join(directory, file));
  }
  await symlink(path.join(ROOT, "node_modules"), path.join(directory, "node_modules"));
  return { directory, remove: () => rm(directory, { recursive: true, force: true }) };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One terminal: a bash that lives as long as the walk-through, so that what one command defines (an exported variable,
 * a shell function, a plain variable) is there for the next, as in the reader's terminal. Each command is run as
 * written, from a file the shell sources, with its output captured in files.
 */
export class Terminal {
  private count = 0;
  private stdout = "";
  private exited = false;

  private constructor(
    private readonly shell: ChildProcessWithoutNullStreams,
    private readonly scratch: string,
  ) {
    shell.stdout.on("data", (chunk: Buffer) => (this.stdout += chunk.toString("utf8")));
    shell.on("exit", () => (this.exited = true));
  }

  static async open(cwd: string, env: NodeJS.ProcessEnv): Promise<Terminal> {
    const scratch = await mkdtemp(path.join(tmpdir(), "doc-terminal-"));
    return new Terminal(spawn("bash", ["--noprofile", "--norc"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] }), scratch);
  }

  async run(command: string, timeoutMs = 120_000): Promise<CommandResult> {
    const id = ++this.count;
    const file = (name: string) => path.join(this.scratch, `${id}.${name}`);
    await writeFile(file("sh"), `${command}\n`);
    const done = `__doc_command_${id}_done__`;
    this.shell.stdin.write(`source ${file("sh")} >${file("out")} 2>${file("err")} </dev/null; echo "${done} $?"\n`);
    const deadline = Date.now() + timeoutMs;
    await new Promise<void>((resolve, reject) => {
      const look = () => {
        if (this.stdout.includes(done)) return resolve();
        if (this.exited) return reject(new Error(`the terminal's shell exited while running: ${command}`));
        if (Date.now() > deadline) return reject(new Error(`no answer within ${timeoutMs / 1000} s: ${command}`));
        setTimeout(look, 20);
      };
      look();
    });
    const code = Number(new RegExp(`${done} (\\d+)`).exec(this.stdout)![1]);
    const [stdout, stderr] = await Promise.all([readFile(file("out"), "utf8"), readFile(file("err"), "utf8")]);
    return { code, stdout, stderr };
  }

  /** The value of a shell variable in this terminal. */
  async variable(name: string): Promise<string> {
    return (await this.run(`printf '%s' "\${${name}-}"`)).stdout;
  }

  async close(): Promise<void> {
    if (!this.exited) {
      const exited = new Promise<void>((resolve) => this.shell.once("exit", () => resolve()));
      // As a terminal window's closing hangs up its jobs: what a command left running in the background (`&`) ends too.
      this.shell.stdin.end("kill $(jobs -p) 2>/dev/null; exit\n");
      await exited;
    }
    await rm(this.scratch, { recursive: true, force: true });
  }
}

/**
 * The first terminal, where the service runs in the foreground: a block of commands run as a `bash -c` script in a
 * process group of its own, which `interrupt()` sends SIGINT to, as Ctrl-C does to the terminal's foreground group.
 */
export class ServiceTerminal {
  private output = "";
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on("data", (chunk: Buffer) => (this.output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (this.output += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  }

  /** Runs `script` and resolves once the service printed its banner (its URL and its auth line). */
  static async start(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<ServiceTerminal> {
    const terminal = new ServiceTerminal(spawn("bash", ["-c", script], { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] }));
    const deadline = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void terminal.exited.then((code) => (exitCode = code));
    await new Promise<void>((resolve, reject) => {
      const look = () => {
        if (/listening on http:\/\/\S+/.test(terminal.output) && /\n\s+auth\s/.test(terminal.output)) return resolve();
        if (exitCode !== undefined) return reject(new Error(`the service exited with ${exitCode} before its banner:\n${terminal.output}`));
        if (Date.now() > deadline)
          return reject(new Error(`the service printed no banner within ${timeoutMs / 1000} s:\n${terminal.output}`));
        setTimeout(look, 50);
      };
      look();
    });
    return terminal;
  }

  text(): string {
    return this.output;
  }

  /** The statuses of the requests the service has logged so far, in order. */
  loggedStatuses(): number[] {
    return this.output
      .split("\n")
      .filter((line) => line.startsWith("{") && line.includes('"msg":"request"'))
      .map((line) => (JSON.parse(line) as { status: number }).status);
  }

  /**
   * Ctrl-C, then wait until every process of the group is gone, so that the service's data directory is free for the
   * next start (SIGKILL to the group after 30 s). A reader's Ctrl-C ends `npx` by the signal, so there is no exit code
   * to check; the service's own output says how it stopped.
   */
  async interrupt(): Promise<void> {
    const group = -this.child.pid!;
    const signal = (name: NodeJS.Signals | 0) => {
      try {
        process.kill(group, name);
        return true;
      } catch {
        return false; // ESRCH: the group is gone
      }
    };
    if (!signal("SIGINT")) return;
    const deadline = Date.now() + 30_000;
    while (signal(0)) {
      if (Date.now() > deadline) {
        signal("SIGKILL");
        await this.exited;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await this.exited;
  }
}
