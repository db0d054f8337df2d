import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import { variantName, type Upgradeable, type Variant } from "../../../domain/token-options.js";
import type { ShippedArtifact } from "../artifacts.js";
import { importClosure } from "../verification/solidity-imports.js";
import { OUTPUT_SELECTION, verificationBundle, type FirstUseContract, type StandardJsonInput } from "../verification/verification-input.js";
import { LAUNCHERS, launcherPath, launcherSource } from "./launcher-source.js";
import { variantPath, variantSource } from "./variant-source.js";

// A variant with an option the build does not precompile (FIRST_USE_FEATURES) is generated from the same template and
// compiled the first time it is launched (docs/decisions/0062-variants-compiled-on-first-use.md): with the solc npm
// package, the compiler and settings the shipped variants were built with, on a thread of its own so the service's
// event loop stays free, from OpenZeppelin sources the package ships (the verification bundle's, and
// the bundle's `firstUse` for those only these variants import). The result is kept in the data
// directory, named by the hash of the standard JSON input, so a restart does not compile again; a file whose content
// does not hash to what it claims is compiled again, never deployed.

/** Every OpenZeppelin source a variant may import, by source unit name: the precompiled variants', and the extra ones. */
function shippedSource(unit: string): string | undefined {
  const bundle = verificationBundle();
  return bundle.variants.sources[unit] ?? bundle.firstUse.sources[unit];
}

/** The standard JSON input a variant compiles from: its source, every source it imports, the shipped variants' settings. */
export function firstUseInput(variant: Variant): StandardJsonInput {
  return inputOf(variantPath(variant), variantSource(variant));
}

/** The standard JSON input an upgradeable token's launcher compiles from (its proxy's sources among them). */
export function launcherInput(upgradeable: Upgradeable): StandardJsonInput {
  return inputOf(launcherPath(upgradeable), launcherSource(upgradeable));
}

function inputOf(unit: string, source: string): StandardJsonInput {
  const read = (name: string) => (name === unit ? source : shippedSource(name));
  const units = importClosure(unit, read).sort();
  return {
    language: "Solidity",
    sources: Object.fromEntries(units.map((name) => [name, { content: read(name)! }])),
    settings: { ...verificationBundle().variants.settings, outputSelection: OUTPUT_SELECTION },
  };
}

/** The hex SHA-256 of a text. */
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A compiled variant as its cache file holds it; `digest` covers the rest, so a damaged file is told from a good one. */
interface CacheFile {
  inputHash: string;
  contractName: string;
  abi: ShippedArtifact["abi"];
  bytecode: string;
  digest: string;
}

const digestOf = (file: Omit<CacheFile, "digest">) => sha256(JSON.stringify([file.inputHash, file.contractName, file.abi, file.bytecode]));

/** Runs solc on a standard JSON input (as text) and answers its output (as text) with the compiler's version. */
export type SolcRunner = (input: string) => Promise<{ output: string; version: string }>;

/** solc on a thread started for this one compile: soljson's memory is returned when it exits. */
export const solcOnThread: SolcRunner = (input) =>
  new Promise((resolve, reject) => {
    // Run from this repository's TypeScript (tests), the thread loads it as the process does; built, plain JS.
    const fromSource = import.meta.url.endsWith(".ts");
    const worker = new Worker(new URL(`./solc-worker${fromSource ? ".ts" : ".js"}`, import.meta.url), {
      ...(fromSource ? { execArgv: ["--import", "tsx/esm"] } : {}),
      workerData: input,
    });
    worker.once("message", (message: { output?: string; version?: string; error?: string }) => {
      if (message.output !== undefined) resolve({ output: message.output, version: message.version! });
      else reject(new Error(`solc could not run: ${message.error}`));
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the solc thread exited (${code}) before answering`)));
  });

/** No compiler to make a first-use variant with: the launch is refused before anything is signed (retry once fixed). */
function compilerUnavailable(message: string): TokenServiceError {
  return new TokenServiceError(ErrorCode.CONTRACT_COMPILER_UNAVAILABLE, message);
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: ShippedArtifact["abi"]; evm: { bytecode: { object: string } } }>>;
}

export interface FirstUseCompilerOptions {
  /** Where compiled variants are kept between runs (the data directory's compiled-variants/); none: this process only. */
  directory?: string;
  /** How solc is run; default a thread per compile (tests count compiles through it). */
  solc?: SolcRunner;
}

/** Compiles first-use variants, once each: concurrent launches of one variant share its compile, and its cache file. */
export class FirstUseCompiler {
  /** How many compiles this compiler ran (a variant read from its cache file counts none). */
  compilations = 0;
  private readonly known = new Map<string, Promise<ShippedArtifact>>();
  /** Compiles run one at a time: each holds a soljson of its own (about 300 MB). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: FirstUseCompilerOptions = {}) {}

  /** The variant's contract, compiled now if neither this process nor the cache has it. */
  artifact(variant: Variant): Promise<ShippedArtifact> {
    return this.compiled(variantName(variant), variantPath(variant), firstUseInput(variant));
  }

  /** The launcher of an upgradeable token (launcher-source.ts), compiled now if neither this process nor the cache has it. */
  launcher(upgradeable: Upgradeable): Promise<ShippedArtifact> {
    return this.compiled(LAUNCHERS[upgradeable].contractName, launcherPath(upgradeable), launcherInput(upgradeable));
  }

  /** The launcher with the input it compiles from: the verification input of the proxy it deploys. */
  async launcherContract(upgradeable: Upgradeable): Promise<FirstUseContract> {
    return { artifact: await this.launcher(upgradeable), unit: launcherPath(upgradeable), input: launcherInput(upgradeable) };
  }

  /**
   * solc's whole output for any input (the upgrade checks' compiles, variants/upgrade-safety.ts), on the same queue
   * and by the same pinned compiler as the variants; kept by no cache (the deployed artifacts' cache files are untouched).
   */
  solcOutput(inputObject: StandardJsonInput): Promise<{ output: unknown; version: string }> {
    const run = this.queue
      .catch(() => undefined)
      .then(async () => {
        this.compilations++;
        const { output, version } = await (this.options.solc ?? solcOnThread)(JSON.stringify(inputObject)).catch((error: unknown) => {
          throw compilerUnavailable(`solc could not run the upgrade checks: ${error instanceof Error ? error.message : String(error)}`);
        });
        return { output: JSON.parse(output) as unknown, version };
      });
    this.queue = run;
    return run;
  }

  private compiled(contractName: string, unit: string, inputObject: StandardJsonInput): Promise<ShippedArtifact> {
    const input = JSON.stringify(inputObject);
    const inputHash = sha256(input);
    let artifact = this.known.get(inputHash);
    if (artifact === undefined) {
      artifact = this.load(contractName, unit, input, inputHash);
      this.known.set(inputHash, artifact);
      // A failed compile is not remembered: the next launch tries again.
      artifact.catch(() => this.known.delete(inputHash));
    }
    return artifact;
  }

  /** The variant's contract with the input it compiles from, as the verification of a token launched with it needs. */
  async contract(variant: Variant): Promise<FirstUseContract> {
    return { artifact: await this.artifact(variant), unit: variantPath(variant), input: firstUseInput(variant) };
  }

  private async load(contractName: string, unit: string, input: string, inputHash: string): Promise<ShippedArtifact> {
    const cached = await this.read(inputHash, contractName);
    if (cached !== undefined) return cached;
    const run = this.queue.catch(() => undefined).then(() => this.compile(contractName, unit, input, inputHash));
    this.queue = run;
    const artifact = await run;
    await this.write(inputHash, artifact);
    return artifact;
  }

  private async compile(contractName: string, unit: string, input: string, inputHash: string): Promise<ShippedArtifact> {
    this.compilations++;
    // A runner that gives no output (solc missing or failing to load, its thread out of memory) is the compiler
    // missing, not the contract at fault: the launch is refused, and the next one tries again.
    const { output, version } = await (this.options.solc ?? solcOnThread)(input).catch((error: unknown) => {
      throw compilerUnavailable(`solc could not compile ${contractName}: ${error instanceof Error ? error.message : String(error)}`);
    });
    // The version the shipped variants and their verification input name: another would deploy other bytecode.
    const expected = verificationBundle().compilerVersion;
    if (!version.startsWith(expected))
      throw compilerUnavailable(
        `solc ${version} is installed; ${contractName} must be compiled by ${expected}: reinstall the package's dependencies`,
      );
    // Errors of solc on our own template are a bug of the service (INTERNAL), not the compiler's absence.
    const parsed = JSON.parse(output) as SolcOutput;
    const errors = (parsed.errors ?? []).filter((error) => error.severity === "error");
    if (errors.length > 0) throw new Error(`${contractName} did not compile (input ${inputHash}): ${errors[0]!.formattedMessage}`);
    const contract = parsed.contracts?.[unit]?.[contractName];
    if (contract === undefined) throw new Error(`solc returned no ${contractName}`);
    return { contractName, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }

  private fileOf(inputHash: string): string | undefined {
    return this.options.directory === undefined ? undefined : path.join(this.options.directory, `${inputHash}.json`);
  }

  /** The cached compile of this input; undefined when there is none or it is damaged (then it is compiled again). */
  private async read(inputHash: string, contractName: string): Promise<ShippedArtifact | undefined> {
    const file = this.fileOf(inputHash);
    if (file === undefined) return undefined;
    try {
      const cached = JSON.parse(await readFile(file, "utf8")) as CacheFile;
      const { digest, ...rest } = cached;
      if (cached.inputHash !== inputHash || cached.contractName !== contractName || digest !== digestOf(rest)) return undefined;
      if (!/^0x([0-9a-f]{2})+$/.test(cached.bytecode) || !Array.isArray(cached.abi)) return undefined;
      return { contractName, abi: cached.abi, bytecode: cached.bytecode };
    } catch {
      return undefined;
    }
  }

  /** Written whole or not at all (a temporary file renamed over), readable by its owner only, as the data directory is. */
  private async write(inputHash: string, artifact: ShippedArtifact): Promise<void> {
    const file = this.fileOf(inputHash);
    if (file === undefined) return;
    const content: Omit<CacheFile, "digest"> = {
      inputHash,
      contractName: artifact.contractName,
      abi: artifact.abi,
      bytecode: artifact.bytecode,
    };
    const temporary = `${file}.${randomUUID()}.tmp`;
    try {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeFile(temporary, JSON.stringify({ ...content, digest: digestOf(content) }), { mode: 0o600 });
      await rename(temporary, file);
    } catch {
      // A cache that cannot be written (a full disk) costs a compile on the next start, not this launch.
      await rm(temporary, { force: true });
    }
  }
}
