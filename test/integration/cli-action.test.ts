import { expect } from "chai";
import { task } from "hardhat/config";
import { HardhatPluginError } from "hardhat/plugins";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { cliAction, cliTask, text } from "../../tasks/options.js";
import { pluginError } from "../../src/hardhat/tasks/support/plugin-error.js";

// The wrapper every task's action runs in (tasks/options.ts): the help's "not given" words back to undefined, the
// plugin's refusals returned as a failed Result (so Hardhat prints no --show-stack-traces footer), anything else thrown.

const hre = {} as HardhatRuntimeEnvironment;

/** A task as tasks/index.ts declares one, and its action as Hardhat would load it. */
async function taskAction(action: (args: Record<string, unknown>) => Promise<void>) {
  const definition = cliTask(
    task("cli-action-test")
      .addOption(text("to", "Recipient", "the sender"))
      .addOption(text("type", "erc20 or erc721"))
      .setAction(cliAction(async () => ({ default: action })))
      .build(),
  );
  return (await definition.action()).default as (args: Record<string, unknown>, hre: HardhatRuntimeEnvironment) => Promise<unknown>;
}

async function quietly<T>(work: () => Promise<T>): Promise<{ value: T; stderr: string[] }> {
  const stderr: string[] = [];
  const { error } = console;
  console.error = (...args: unknown[]) => void stderr.push(args.map(String).join(" "));
  try {
    return { value: await work(), stderr };
  } finally {
    console.error = error;
  }
}

describe("cliAction: a task action as the CLI runs it", function () {
  it("declares a STRING option whose default is the word for not given, and hands the action undefined for it", async function () {
    expect(text("to", "Recipient", "the sender")).to.include({ type: "STRING", defaultValue: "the sender" });
    let seen: Record<string, unknown> = {};
    const action = await taskAction(async (args) => {
      seen = args;
    });
    await action({ to: "the sender", type: "none", json: false }, hre);
    expect(seen).to.deep.equal({ to: undefined, type: undefined, json: false });
    // Only this task's own word for the option: "the sender" typed for --type is a value, as "none" is for --to.
    await action({ to: "none", type: "the sender" }, hre);
    expect(seen).to.deep.equal({ to: "none", type: "the sender" });
  });

  it("refuses to run an action whose task was not registered with cliTask", async function () {
    const loader = cliAction(async () => ({ default: async () => undefined }));
    const caught = await loader().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(caught)).to.match(/not registered with cliTask/);
  });

  it("returns a refusal as a failed Result and prints its one line on stderr", async function () {
    const refusal = pluginError("INVALID_ADDRESS (--to): to must be a 0x-prefixed 20-byte hex address");
    const action = await taskAction(async () => {
      throw refusal;
    });
    const { value, stderr } = await quietly(() => action({}, hre));
    expect(value).to.deep.equal({ success: false, error: refusal });
    expect(stderr.join("\n")).to.match(/Error in community plugin hardhat-token-service:.* INVALID_ADDRESS \(--to\): to must be/);
    expect(stderr.join("\n")).not.to.include("--show-stack-traces");
  });

  it("throws anything else: a bug, or another plugin's error, keeps Hardhat's stack trace and footer", async function () {
    const bug = new TypeError("cannot read properties of undefined");
    const other = new HardhatPluginError("another-plugin", "its own refusal");
    for (const thrown of [bug, other]) {
      const action = await taskAction(async () => {
        throw thrown;
      });
      const caught = await action({}, hre).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(caught).to.equal(thrown);
    }
  });
});
