import { task } from "hardhat/config";

import { chainOptions, cliAction, json, text } from "./options.js";

export const walletCreateTask = json(
  chainOptions(task("wallet:create", "Create a wallet (address and private key) on a chain and network")),
)
  .addOption(text("addressType", "Bitcoin only: p2wpkh, p2tr or p2pkh", "p2wpkh"))
  .addOption(
    text("custody", "caller: the key is printed once and stored nowhere; service: a held wallet, its key kept by the service", "caller"),
  )
  .addOption(
    text(
      "apiKeyId",
      "With --custody service: the API key that owns the wallet (its id, as apikey:create prints it): its HTTP requests list it, set its policy and send from it",
      "the operator's",
    ),
  )
  .setAction(cliAction(() => import("../src/hardhat/tasks/wallet-create.js")))
  .build();
