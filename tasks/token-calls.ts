import { task } from "hardhat/config";

import { TOKEN_CALL_KINDS } from "../src/domain/kinds/index.js";
import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

// A task for every write kind of src/domain/kinds/, made from its description: the chain and signer options every
// signed write takes, --contract, and an option per field of the kind. Its action loads only when it runs.

export const tokenCallTasks = TOKEN_CALL_KINDS.map((kind) => {
  let builder = json(signerOptions(chainOptions(task(kind.task.name, kind.task.description)))).addOption(
    text("contract", kind.task.contract),
  );
  for (const [name, field] of Object.entries(kind.fields)) builder = builder.addOption(text(name, field.option ?? field.description));
  return builder
    .setAction(cliAction(async () => ({ default: (await import("../src/hardhat/tasks/token-call.js")).tokenCallAction(kind.name) })))
    .build();
});
