import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenMintTask = json(
  signerOptions(chainOptions(task("token:mint", "Mint an ERC721 token, or more ERC20 supply within the cap"))),
)
  .addOption({ name: "type", description: "erc20 or erc721", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "contract",
    description: "The token contract address",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({ name: "to", description: "Recipient (default: sender)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "tokenId",
    description: "ERC721: a chosen token id (default: the next free one)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "uri",
    description: "ERC721: this token's own URI",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "amount",
    description: "ERC20: amount in whole tokens at the token's decimals, e.g. 5 or 0.5",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/token-mint.js"))
  .build();
