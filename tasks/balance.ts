import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json } from "./options.js";

export const balanceTask = json(chainOptions(task("balance", "Read the native, ERC20 and ERC721 balances of an address")))
  .addOption({ name: "address", description: "The address to read", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "erc20",
    description: "Comma-separated ERC20 contract addresses",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "erc721",
    description: "Comma-separated ERC721 contract addresses (lists owned token ids)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/balance.js"))
  .build();
