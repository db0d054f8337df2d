import { task } from "hardhat/config";

import { chainOptions, cliAction, json, text } from "./options.js";

/** The options `token:speed-up` and `token:cancel` share: which operation, and the key for one signed by its caller. */
const replacementOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  json(chainOptions(builder))
    .addOption(
      text(
        "id",
        "The operation's id (token:launch, token:mint, token:transfer print it with --json), or a transaction hash it was sent as (with --chain and --chain-network)",
      ),
    )
    .addOption(
      text(
        "privateKeyEnv",
        "For an operation with no replacement signed ahead (sent with --no-wait by another process, or its steps used up): the environment variable holding the sender's key",
        "the --network's accounts",
      ),
    )
    .addFlag({
      name: "noWait",
      description: "Return once the node accepted the replacement, without waiting for the operation to be final",
    })
    // Declared only to refuse it with a pointer to --private-key-env, as the signing tasks do.
    .addOption(
      text("privateKey", "Not accepted (shell history would keep the key): put it in an environment variable and pass --private-key-env"),
    );

export const tokenSpeedUpTask = replacementOptions(
  task("token:speed-up", "Replace an operation's pending transaction with the same call at higher fees"),
)
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-speed-up.js")))
  .build();

export const tokenCancelTask = replacementOptions(
  task("token:cancel", "Cancel an operation's pending transaction: a zero-value transfer to the sender takes its nonce"),
)
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-cancel.js")))
  .build();
