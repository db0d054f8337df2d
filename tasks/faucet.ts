import { task } from "hardhat/config";

import { chainOptions, cliAction, json, text } from "./options.js";

export const faucetTask = json(chainOptions(task("faucet", "Give an address native currency on a simulated chain (or bitcoin regtest)")))
  .addOption(text("address", "The address to fund"))
  .addOption(text("amount", "Amount in whole units of the native currency, e.g. 5 or 0.25", "10"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/faucet.js")))
  .build();
