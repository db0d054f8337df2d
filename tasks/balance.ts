import { task } from "hardhat/config";

import { chainOptions, cliAction, json, text } from "./options.js";

export const balanceTask = json(chainOptions(task("balance", "Read the native, ERC20 and ERC721 balances of an address")))
  .addOption(text("address", "The address to read"))
  .addOption(text("erc20", "Comma-separated ERC20 contract addresses"))
  .addOption(text("erc721", "Comma-separated ERC721 contract addresses (lists owned token ids)"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/balance.js")))
  .build();
