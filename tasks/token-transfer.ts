import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenTransferTask = json(
  signerOptions(chainOptions(task("token:transfer", "Send native currency, or an ERC20, ERC721 or ERC1155 token"))),
)
  .addOption({
    name: "type",
    description: "native, erc20, erc721 or erc1155 (default: native)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "contract",
    description: "The token contract address (not for native)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({ name: "to", description: "The recipient", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "amount",
    description: "native and erc20: whole units at the currency's or token's decimals, e.g. 5 or 0.25; erc1155: how many of --token-id",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "tokenId",
    description: "erc721 and erc1155: which token",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/token-transfer.js"))
  .build();
