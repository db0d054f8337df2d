import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json } from "./options.js";

export const faucetTask = json(chainOptions(task("faucet", "Give an address native currency on a simulated chain (or bitcoin regtest)")))
  .addOption({ name: "address", description: "The address to fund", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "amount",
    description: "Amount in whole units of the native currency, e.g. 5 or 0.25 (default: 10)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/faucet.js"))
  .build();
