import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { expect } from "chai";

import { ERROR_CATALOG, type AnyErrorCode } from "../../src/domain/errors.js";
import { findBitcoind, startRegtestNode, type RegtestNode } from "./bitcoind.js";
import { cleanEnvironment } from "./cli.js";
import { jsonShapeDifferences, ROOT, textShape, walkthrough, withRecordedOutputs, type ShownOutput, type Step } from "./doc-walkthrough.js";
import { closedPort } from "./service.js";
import { freshProjectCopy, ServiceTerminal, Terminal, type CommandResult } from "./terminal.js";
import { startUnusedAddressEsplora } from "./unused-address-esplora.js";

/**
 * A page's walk-through, run as a reader runs it: every command as written, in a fresh copy of the project, in a
 * terminal whose variables carry over from one command to the next, against the service started the page's way in a
 * second terminal; each answer must have the shape of the output the page shows under it.
 *
 * README_TEST_RECORD=1 runs the same commands and writes their real outputs into the page instead of comparing.
 */

const RECORD = process.env.README_TEST_RECORD === "1";
const DOC_PORT = 8080;
const DOC_REGTEST_URL = "http://user:pass@127.0.0.1:18443";

export interface WalkthroughOptions {
  /** The page, relative to the repository's root. */
  file: string;
  /** One `## ` section of it; the whole page when omitted. */
  section?: string;
  /** Texts the page's commands must contain, so that a walk-through that lost its point fails. */
  mustInclude: string[];
  /** After the steps: the page read Bitcoin testnet through the loopback stand-in for mempool.space. */
  readsBitcoinTestnet?: boolean;
}

/** What a reader's terminal would not show: npm's notices about the machine's own npm configuration. */
const withoutNpmNotices = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^npm (warn|notice)\b/.test(line))
    .join("\n");

/** Shell variables a command assigns from a command substitution: a reader relies on them being set. */
function assignedVariables(command: string): string[] {
  return [...command.matchAll(/(?:^|;\s*|export\s+|\s)([A-Z][A-Z0-9_]*)=(?=\$\()/g)].map((match) => match[1]!);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * The one change to the service's environment: its public Bitcoin networks read from a loopback stand-in for
 * mempool.space, so that nothing reaches the internet (a reader's service reads mempool.space itself).
 */
const offlineEsplora = (esploraUrl: string) => ({
  TOKEN_SERVICE_ESPLORA_BITCOIN_MAINNET: esploraUrl,
  TOKEN_SERVICE_ESPLORA_BITCOIN_TESTNET: esploraUrl,
  TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET: esploraUrl,
});

/**
 * The only changes made to a page's commands, all here: the regtest node's address is the test's own node, and, when
 * something else holds port 8080 on this machine, the service and the calls use a free port instead (running against
 * whatever answers on 8080 would test that, and failing would make the suite depend on the machine's other services).
 */
function onThisMachine(command: string, port: number, regtestUrl: string | undefined): string {
  let adapted = command;
  if (regtestUrl) adapted = adapted.replaceAll(DOC_REGTEST_URL, regtestUrl);
  if (port !== DOC_PORT) {
    adapted = adapted.replaceAll(`127.0.0.1:${DOC_PORT}`, `127.0.0.1:${port}`);
    adapted = adapted.replace(/(npx hardhat serve)(?![^\n]*--port)/g, `$1 --port ${port}`);
  }
  return adapted;
}

/** Declares a mocha suite that runs the walk-through of `options.file` (or of one section of it) as written. */
export function describeWalkthrough(options: WalkthroughOptions): void {
  const where = options.section === undefined ? options.file : `${options.file}, "${options.section}"`;
  const { steps } = walkthrough(options.file, options.section);
  const page = path.join(ROOT, options.file);
  const describeStep = (step: Step) => `${step.commands.join(" ; ")}  (${options.file} line ${step.line})`;

  describe(`${where}: the walk-through runs as written`, function () {
    const recorded: Array<{ shown: ShownOutput; text: string }> = [];
    let project: Awaited<ReturnType<typeof freshProjectCopy>>;
    let terminal: Terminal;
    let service: ServiceTerminal | undefined;
    const serviceScript: string[] = [];
    let port = DOC_PORT;
    let regtest: RegtestNode | undefined;
    let esplora: Awaited<ReturnType<typeof startUnusedAddressEsplora>> | undefined;
    let noRegtest: string | undefined;
    let broken: string | undefined;
    const needsRegtest = steps.some((step) => step.commands.some((command) => command.includes("regtest")));
    const startsService = steps.some((step) => step.marker === "service");

    before(async function () {
      this.timeout(20 * 60_000);
      if (startsService && !(await portIsFree(DOC_PORT))) {
        port = await closedPort();
        console.log(`      port ${DOC_PORT} is in use on this machine: the walk-through runs on port ${port} instead`);
      }
      if (needsRegtest) {
        const found = await findBitcoind();
        if ("reason" in found) {
          if (process.env.CI === "true") throw new Error(`the regtest flow of ${options.file} must run under CI=true, but ${found.reason}`);
          noRegtest = found.reason;
        } else regtest = await startRegtestNode(found.path);
      }
      if (startsService) esplora = await startUnusedAddressEsplora();
      project = await freshProjectCopy();
      terminal = await Terminal.open(project.directory, cleanEnvironment({}));
    });
    after(async function () {
      this.timeout(120_000);
      // Each part is let go even if another one fails, so that no process outlives the run.
      const results = await Promise.allSettled([service?.interrupt(), terminal?.close()]);
      results.push(...(await Promise.allSettled([regtest?.stop(), esplora?.close(), project?.remove()])));
      if (RECORD && recorded.length > 0) await writeFile(page, withRecordedOutputs(readFileSync(page, "utf8"), recorded));
      const failure = results.find((result) => result.status === "rejected");
      if (failure) throw failure.reason;
    });

    it(`has the walk-through's commands: ${options.mustInclude.join(", ")}`, function () {
      const text = steps.map((step) => step.commands.join("\n")).join("\n");
      for (const part of options.mustInclude) expect(text, part).to.include(part);
    });

    async function expectVariablesSet(step: Step) {
      for (const name of step.commands.flatMap(assignedVariables)) {
        const value = await terminal.variable(name);
        expect(value, `${name} after: ${describeStep(step)}`).to.not.be.oneOf(["", "undefined"]);
      }
    }

    /** A `$ command`'s output: JSON has the shown JSON's shape, text the shown text's (see textShape). */
    function checkPromptOutput(step: Step, result: CommandResult) {
      // A task's refusal is its one line: no Hardhat footer to strip (a page shows the whole output).
      const printed = withoutNpmNotices(`${result.stdout}${result.stderr}`).trim();
      const failureExpected = step.shown?.text.startsWith("Error ") ?? false;
      const context = `${describeStep(step)}\nprinted:\n${printed}`;
      expect(result.code, `exit code of ${context}`).to.equal(failureExpected ? 1 : 0);
      if (!step.shown) return;
      if (RECORD) return void recorded.push({ shown: step.shown, text: printed });
      const shownJson = parseJson(step.shown.text);
      if (shownJson.ok) {
        const printedJson = parseJson(printed);
        if (!printedJson.ok) expect.fail(`${context}\nis not JSON`);
        expect(
          jsonShapeDifferences(shownJson.value, printedJson.value),
          `${context}\n\nshown in ${options.file}:\n${step.shown.text}`,
        ).to.deep.equal([]);
      } else expect(printed, `${context}\n\nshown in ${options.file}:\n${step.shown.text}`).to.match(textShape(step.shown.text));
    }

    /** A `$ command`, asked again for a `repeat` block (a reader's pause between) until its output is the one shown. */
    async function runPrompt(step: Step, command: string) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          return checkPromptOutput(step, await terminal.run(command));
        } catch (error) {
          if (step.marker !== "repeat" || Date.now() >= deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    }

    const laterAnswer = (step: Step) =>
      steps.find((other) => other.line > step.line && other.commands.join("\n") === step.commands.join("\n"))?.shown;

    function shapeDifferences(shown: ShownOutput, stdout: string): string[] {
      const actual = parseJson(stdout);
      if (!actual.ok) return [`not JSON: ${stdout.slice(0, 500)}`];
      return jsonShapeDifferences(JSON.parse(shown.text), actual.value);
    }

    /** A block's output, with the reader's patience for `repeat` and `racy` blocks and the status the service logged. */
    async function runBlock(step: Step, commands: string[]) {
      const requests = commands.join("\n").match(/\bcurl /g)?.length ?? 0;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const before = service?.loggedStatuses().length ?? 0;
        const result = await terminal.run(commands.join("\n"));
        const context = `${describeStep(step)}\nprinted:\n${result.stdout}${result.stderr}`;
        expect(result.code, `exit code of ${context}`).to.equal(0);
        if (!step.shown) return;
        const later = step.marker === "racy" ? laterAnswer(step) : undefined;
        const isLaterAnswer = later !== undefined && shapeDifferences(later, result.stdout).length === 0;
        if (RECORD && step.marker !== "repeat") {
          // The chain was faster than a reader: the answer shown further down came now, and the one shown here stays.
          if (!isLaterAnswer) recorded.push({ shown: step.shown, text: result.stdout });
          return;
        }
        // Recording: the shown output may be a stub that names only what must be true (`{"status":"mined"}`).
        const differences = shapeDifferences(step.shown, result.stdout).filter(
          (line) => !(RECORD && line.endsWith("present, but not shown")),
        );
        if (differences.length > 0 && isLaterAnswer) return;
        if (differences.length > 0 && step.marker === "repeat" && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 500)); // a reader's pause before asking again
          continue;
        }
        if (RECORD) return void recorded.push({ shown: step.shown, text: result.stdout });
        expect(differences, `${context}\nshown in ${options.file}:\n${step.shown.text}`).to.deep.equal([]);
        if (requests === 0) return;
        // The status class the shown answer implies: an error body comes with its code's status (a 4xx for a code the
        // catalog does not know), any other with a 2xx.
        const shownError = (JSON.parse(step.shown.text) as { error?: { code?: string } }).error;
        const expectedClass =
          shownError === undefined ? 2 : Math.floor((ERROR_CATALOG[shownError.code as AnyErrorCode]?.httpStatus ?? 400) / 100);
        const statusDeadline = Date.now() + 10_000;
        while ((service?.loggedStatuses().length ?? 0) < before + requests && Date.now() < statusDeadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        const statuses = service?.loggedStatuses().slice(before) ?? [];
        expect(statuses.length, `requests the service logged for ${describeStep(step)}`).to.be.at.least(requests);
        expect(Math.floor(statuses.at(-1)! / 100), `status class of ${describeStep(step)} (logged ${statuses.join(", ")})`).to.equal(
          expectedClass,
        );
        return;
      }
    }

    for (const step of steps) {
      const shown = step.style === "prompt" ? `$ ${step.commands[0]}` : step.commands.join(" ; ");
      const title = step.marker === "service" ? `first terminal: ${shown}` : shown;
      it(title, async function () {
        this.timeout(240_000);
        if (broken) {
          console.log(`      not run: an earlier command failed (${broken})`);
          this.skip();
        }
        if (step.marker === "skip") {
          console.log(`      not run, as ${options.file} marks it: ${step.markerNote}`);
          this.skip();
        }
        const isRegtest = step.commands.some((command) => command.includes("regtest"));
        if (isRegtest && noRegtest && step.marker !== "service") {
          console.log(`      not run: no bitcoind for the regtest flow: ${noRegtest}`);
          this.skip();
        }
        const commands = step.commands.map((command) => onThisMachine(command, port, regtest?.url));
        try {
          if (step.marker === "service") {
            if (service) {
              await service.interrupt();
              expect(service.text(), "the service's output after Ctrl-C").to.match(/SIGINT: finishing in-flight requests/);
            }
            serviceScript.push(...commands.filter((command) => !/npx hardhat serve/.test(command)));
            service = await ServiceTerminal.start(
              [...serviceScript, ...commands.filter((command) => /npx hardhat serve/.test(command))].join("\n"),
              project.directory,
              cleanEnvironment(offlineEsplora(esplora!.url)),
            );
            return;
          }
          if (step.style === "prompt") await runPrompt(step, commands[0]!);
          else await runBlock(step, commands);
          await expectVariablesSet(step);
        } catch (error) {
          broken = step.commands.join(" ; ");
          throw error;
        }
      });
    }

    if (options.readsBitcoinTestnet) {
      it("read Bitcoin testnet through the loopback stand-in for mempool.space, never the internet", function () {
        if (broken) this.skip();
        expect(
          esplora?.requests.some((request) => /^\/address\/tb1/.test(request)),
          esplora?.requests.join(", "),
        ).to.equal(true);
      });
    }
  });
}
