import { task } from "hardhat/config";

import { chainOptions, cliAction, json, text } from "./options.js";

export const tokenVerifyTask = json(
  chainOptions(task("token:verify", "Submit a token this service launched to Etherscan, Blockscout or Sourcify and wait for the verdict")),
)
  .addOption(text("address", "The token contract address (a launch the tasks recorded)"))
  .addOption(
    text("explorer", "etherscan (TOKEN_SERVICE_ETHERSCAN_API_KEY), blockscout (TOKEN_SERVICE_BLOCKSCOUT_<CHAIN>_<NETWORK>) or sourcify"),
  )
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-verify.js")))
  .build();
