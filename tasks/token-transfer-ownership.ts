import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenTransferOwnershipTask = json(
  signerOptions(chainOptions(task("token:transfer-ownership", "Hand a token launched with access ownable to a new owner"))),
)
  .addOption({
    name: "contract",
    description: "The token contract address (launched with access ownable)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({ name: "newOwner", description: "The new owner", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .setAction(() => import("../src/hardhat/tasks/token-transfer-ownership.js"))
  .build();
