import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { expect } from "chai";

import { findBitcoind, startRegtestNode, type RegtestNode } from "./helpers/bitcoind.js";
import { cleanEnvironment } from "./helpers/cli.js";
import {
  httpSteps,
  jsonShapeDifferences,
  taskSteps,
  textShape,
  withRecordedOutputs,
  type ShownOutput,
  type Step,
} from "./helpers/readme-walkthrough.js";
import { closedPort } from "./helpers/service.js";
import { freshProjectCopy, ServiceTerminal, Terminal, type CommandResult } from "./helpers/terminal.js";
import { startUnusedAddressEsplora } from "./helpers/unused-address-esplora.js";

/**
 * The README's walk-throughs, run as a reader runs them: every command as written, in a fresh copy of the project, in a
 * terminal whose variables carry over from one command to the next, against the service started the README's way in a
 * second terminal; each answer must have the shape of the output the README shows under it.
 *
 * README_TEST_RECORD=1 runs the same commands and writes their real outputs into the README instead of comparing.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const README = path.join(ROOT, "README.md");
const readme = readFileSync(README, "utf8");
const RECORD = process.env.README_TEST_RECORD === "1";
const README_PORT = 8080;
const README_REGTEST_URL = "http://user:pass@127.0.0.1:18443";

const recorded: Array<{ shown: ShownOutput; text: string }> = [];
after(async function () {
  if (RECORD && recorded.length > 0) await writeFile(README, withRecordedOutputs(readFileSync(README, "utf8"), recorded));
});

/** What a reader's terminal would not show: npm's notices about the machine's own npm configuration. */
const withoutNpmNotices = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^npm (warn|notice)\b/.test(line))
    .join("\n");

/** Hardhat's footer under a plugin error: a shown output ends at its first blank line, so the README cannot show it. */
const withoutHardhatErrorFooter = (text: string) => text.replace(/\n\s*\nFor more info run Hardhat with --show-stack-traces\s*$/, "");

const describeCommand = (step: Step) => `${step.commands.join(" ; ")}  (README line ${step.line})`;

/** Shell variables a command assigns from a command substitution: a reader relies on them being set. */
function assignedVariables(command: string): string[] {
  return [...command.matchAll(/(?:^|;\s*|export\s+|\s)([A-Z][A-Z0-9_]*)=(?=\$\()/g)].map((match) => match[1]!);
}

async function expectVariablesSet(terminal: Terminal, step: Step) {
  for (const name of step.commands.flatMap(assignedVariables)) {
    const value = await terminal.variable(name);
    expect(value, `${name} after: ${describeCommand(step)}`).to.not.be.oneOf(["", "undefined"]);
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A task's output: JSON (`--json`) has the shown JSON's shape, text the shown text's (see textShape). */
function checkTaskOutput(step: Step, result: CommandResult) {
  const printed = withoutHardhatErrorFooter(withoutNpmNotices(`${result.stdout}${result.stderr}`).trim());
  const failureExpected = step.shown?.text.startsWith("Error ") ?? false;
  const context = `${describeCommand(step)}\nprinted:\n${printed}`;
  if (failureExpected) expect(result.code, `exit code of ${context}`).to.equal(1);
  else expect(result.code, `exit code of ${context}`).to.equal(0);
  if (!step.shown) return;
  if (RECORD) return void recorded.push({ shown: step.shown, text: printed });
  const shownJson = parseJson(step.shown.text);
  if (shownJson.ok) {
    const printedJson = parseJson(printed);
    if (!printedJson.ok) expect.fail(`${context}\nis not JSON`);
    expect(
      jsonShapeDifferences(shownJson.value, printedJson.value),
      `${context}\n\nshown in the README:\n${step.shown.text}`,
    ).to.deep.equal([]);
  } else expect(printed, `${context}\n\nshown in the README:\n${step.shown.text}`).to.match(textShape(step.shown.text));
}

describe("README: the Hardhat tasks walk-through runs as written", function () {
  const steps = taskSteps(readme);
  let project: Awaited<ReturnType<typeof freshProjectCopy>>;
  let terminal: Terminal;
  let broken: string | undefined;

  before(async function () {
    this.timeout(120_000);
    project = await freshProjectCopy();
    terminal = await Terminal.open(project.directory, cleanEnvironment({}));
  });
  after(async function () {
    this.timeout(60_000);
    await terminal?.close();
    await project?.remove();
  });

  it("has the walk-through's commands", function () {
    expect(steps.map((step) => step.commands[0])).to.satisfy((commands: string[]) =>
      commands.some((command) => command.includes("token:launch")),
    );
  });

  for (const step of steps) {
    it(`$ ${step.commands[0]}`, async function () {
      if (broken) {
        console.log(`      not run: an earlier command failed (${broken})`);
        this.skip();
      }
      if (step.marker === "skip") this.skip();
      try {
        const result = await terminal.run(step.commands[0]!);
        checkTaskOutput(step, result);
        await expectVariablesSet(terminal, step);
      } catch (error) {
        broken = step.commands[0];
        throw error;
      }
    });
  }
});

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
 * The only changes made to the README's commands, all here: the regtest node's address is the test's own node, and,
 * when something else holds port 8080 on this machine, the service and the calls use a free port instead (running
 * against whatever answers on 8080 would test that, and failing would make the suite depend on the machine's other
 * services).
 */
function onThisMachine(command: string, port: number, regtestUrl: string | undefined): string {
  let adapted = command;
  if (regtestUrl) adapted = adapted.replaceAll(README_REGTEST_URL, regtestUrl);
  if (port !== README_PORT) {
    adapted = adapted.replaceAll(`127.0.0.1:${README_PORT}`, `127.0.0.1:${port}`);
    adapted = adapted.replace(/(npx hardhat serve)(?![^\n]*--port)/g, `$1 --port ${port}`);
  }
  return adapted;
}

describe("README: the HTTP service walk-through runs as written, against `npx hardhat serve` in a second terminal", function () {
  const steps = httpSteps(readme);
  let project: Awaited<ReturnType<typeof freshProjectCopy>>;
  let terminal: Terminal;
  let service: ServiceTerminal | undefined;
  const serviceScript: string[] = [];
  let port = README_PORT;
  let regtest: RegtestNode | undefined;
  let esplora: Awaited<ReturnType<typeof startUnusedAddressEsplora>>;
  let noRegtest: string | undefined;
  let broken: string | undefined;

  before(async function () {
    this.timeout(20 * 60_000);
    if (!(await portIsFree(README_PORT))) {
      port = await closedPort();
      console.log(`      port ${README_PORT} is in use on this machine: the walk-through runs on port ${port} instead`);
    }
    const found = await findBitcoind();
    if ("reason" in found) {
      if (process.env.CI === "true") throw new Error(`the README's regtest flow must run under CI=true, but ${found.reason}`);
      noRegtest = found.reason;
    } else regtest = await startRegtestNode(found.path);
    esplora = await startUnusedAddressEsplora();
    project = await freshProjectCopy();
    terminal = await Terminal.open(project.directory, cleanEnvironment({}));
  });
  after(async function () {
    this.timeout(120_000);
    // Each part is let go even if another one fails, so that no process outlives the run.
    const results = await Promise.allSettled([service?.interrupt(), terminal?.close()]);
    results.push(...(await Promise.allSettled([regtest?.stop(), esplora?.close(), project?.remove()])));
    const failure = results.find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
  });

  it("has the walk-through's commands: the service, a key, every flow", function () {
    const text = steps.map((step) => step.commands.join("\n")).join("\n");
    for (const part of ["npx hardhat serve", "apikey:create", "/api/v1/tokens", "/tokens/mint", "/v1/wallets", "regtest"])
      expect(text, part).to.include(part);
  });

  const laterAnswer = (step: Step) =>
    steps.find((other) => other.line > step.line && other.commands.join("\n") === step.commands.join("\n"))?.shown;

  function shapeDifferences(shown: ShownOutput, stdout: string): string[] {
    let actual: unknown;
    try {
      actual = JSON.parse(stdout);
    } catch {
      return [`not JSON: ${stdout.slice(0, 500)}`];
    }
    return jsonShapeDifferences(JSON.parse(shown.text), actual);
  }

  for (const step of steps) {
    const title = step.marker === "service" ? `first terminal: ${step.commands.join(" ; ")}` : step.commands.join(" ; ");
    it(title, async function () {
      this.timeout(240_000);
      if (broken) {
        console.log(`      not run: an earlier command failed (${broken})`);
        this.skip();
      }
      if (step.marker === "skip") {
        console.log(`      not run, as the README marks it: ${step.markerNote}`);
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
            cleanEnvironment(offlineEsplora(esplora.url)),
          );
          return;
        }
        const requests = commands.join("\n").match(/\bcurl /g)?.length ?? 0;
        const deadline = Date.now() + 60_000;
        for (;;) {
          const before = service?.loggedStatuses().length ?? 0;
          const result = await terminal.run(commands.join("\n"));
          const context = `${describeCommand(step)}\nprinted:\n${result.stdout}${result.stderr}`;
          expect(result.code, `exit code of ${context}`).to.equal(0);
          if (!step.shown) break;
          if (RECORD && step.marker !== "repeat") {
            recorded.push({ shown: step.shown, text: result.stdout });
            break;
          }
          // Recording: the shown output may be a stub that names only what must be true (`{"status":"mined"}`).
          const differences = shapeDifferences(step.shown, result.stdout).filter(
            (line) => !(RECORD && line.endsWith("present, but not shown")),
          );
          const later = step.marker === "racy" ? laterAnswer(step) : undefined;
          if (differences.length > 0 && later && shapeDifferences(later, result.stdout).length === 0) break;
          if (differences.length > 0 && step.marker === "repeat" && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 500)); // a reader's pause before asking again
            continue;
          }
          if (RECORD) {
            recorded.push({ shown: step.shown, text: result.stdout });
            break;
          }
          expect(differences, `${context}\nshown in the README:\n${step.shown.text}`).to.deep.equal([]);
          // The status class the shown answer implies: an error body comes with a 4xx, any other with a 2xx.
          const expectedClass = "error" in JSON.parse(step.shown.text) ? 4 : 2;
          const statusDeadline = Date.now() + 10_000;
          while ((service?.loggedStatuses().length ?? 0) < before + requests && Date.now() < statusDeadline)
            await new Promise((resolve) => setTimeout(resolve, 20));
          const statuses = service?.loggedStatuses().slice(before) ?? [];
          expect(statuses.length, `requests the service logged for ${describeCommand(step)}`).to.be.at.least(requests);
          expect(Math.floor(statuses.at(-1)! / 100), `status class of ${describeCommand(step)} (logged ${statuses.join(", ")})`).to.equal(
            expectedClass,
          );
          break;
        }
        await expectVariablesSet(terminal, step);
      } catch (error) {
        broken = step.commands.join(" ; ");
        throw error;
      }
    });
  }

  it("read Bitcoin testnet through the loopback stand-in for mempool.space, never the internet", function () {
    if (broken) this.skip();
    expect(
      esplora.requests.some((request) => /^\/address\/tb1/.test(request)),
      esplora.requests.join(", "),
    ).to.equal(true);
  });
});
