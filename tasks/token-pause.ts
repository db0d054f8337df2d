import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenPauseTask = json(
  signerOptions(chainOptions(task("token:pause", "Pause a token (every transfer, mint and burn stops), or unpause it with --unpause"))),
)
  .addOption(text("contract", "The token contract address (launched with the pausable option)"))
  .addFlag({ name: "unpause", description: "Unpause the token instead" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-pause.js")))
  .build();
