import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenPauseTask = json(
  signerOptions(chainOptions(task("token:pause", "Pause a token (every transfer, mint and burn stops), or unpause it with --unpause"))),
)
  .addOption({
    name: "contract",
    description: "The token contract address (launched with the pausable option)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addFlag({ name: "unpause", description: "Unpause the token instead" })
  .setAction(() => import("../src/hardhat/tasks/token-pause.js"))
  .build();
