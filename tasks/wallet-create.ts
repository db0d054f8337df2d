import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json } from "./options.js";

export const walletCreateTask = json(
  chainOptions(task("wallet:create", "Create a wallet (address and private key) on a chain and network")),
)
  .addOption({
    name: "addressType",
    description: "Bitcoin only: p2wpkh (default), p2tr or p2pkh",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "custody",
    description: "caller (default): the key is printed once and stored nowhere; service: a held wallet, its key kept by the service",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "apiKeyId",
    description:
      "With --custody service: the API key that owns the wallet (its id, as apikey:create prints it): its HTTP requests list it, set its policy and send from it; default: the operator's, used by tasks only",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/wallet-create.js"))
  .build();
