import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenUpgradeTask = json(
  signerOptions(
    chainOptions(
      task(
        "token:upgrade",
        "Upgrade a token the tasks launched behind a proxy to the implementation of new options, checked by OpenZeppelin's upgrades-core first",
      ),
    ),
  ),
)
  .addOption(text("contract", "The token's (proxy's) contract address, launched with the upgradeable option"))
  .addOption(
    text(
      "options",
      'The new implementation\'s options, as token:launch takes them: upgradeable and access as the token has them, e.g. "burnable,pausable,access=ownable,upgradeable=uups", or a JSON object',
    ),
  )
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-upgrade.js")))
  .build();
