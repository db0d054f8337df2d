import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenBurnTask = json(signerOptions(chainOptions(task("token:burn", "Burn the sender's ERC20, ERC721 or ERC1155 tokens"))))
  .addOption(text("type", "erc20, erc721 or erc1155"))
  .addOption(text("contract", "The token contract address (launched with the burnable option)"))
  .addOption(text("amount", "erc20: whole tokens at the token's decimals, e.g. 5 or 0.25; erc1155: how many of --token-id"))
  .addOption(text("tokenId", "erc721 and erc1155: which token"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-burn.js")))
  .build();
