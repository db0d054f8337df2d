import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenBurnTask = json(signerOptions(chainOptions(task("token:burn", "Burn the sender's ERC20, ERC721 or ERC1155 tokens"))))
  .addOption({ name: "type", description: "erc20, erc721 or erc1155", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "contract",
    description: "The token contract address (launched with the burnable option)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "amount",
    description: "erc20: whole tokens at the token's decimals, e.g. 5 or 0.25; erc1155: how many of --token-id",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "tokenId",
    description: "erc721 and erc1155: which token",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/token-burn.js"))
  .build();
