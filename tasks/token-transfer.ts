import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenTransferTask = json(
  signerOptions(chainOptions(task("token:transfer", "Send native currency, or an ERC20, ERC721 or ERC1155 token"))),
)
  .addOption(text("type", "native, erc20, erc721 or erc1155", "native"))
  .addOption(text("contract", "The token contract address (not for native)"))
  .addOption(text("to", "The recipient"))
  .addOption(
    text("amount", "native and erc20: whole units at the currency's or token's decimals, e.g. 5 or 0.25; erc1155: how many of --token-id"),
  )
  .addOption(text("tokenId", "erc721 and erc1155: which token"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-transfer.js")))
  .build();
