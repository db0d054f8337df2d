import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenTransferOwnershipTask = json(
  signerOptions(chainOptions(task("token:transfer-ownership", "Hand a token launched with access ownable to a new owner"))),
)
  .addOption(text("contract", "The token contract address (launched with access ownable)"))
  .addOption(text("newOwner", "The new owner"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-transfer-ownership.js")))
  .build();
