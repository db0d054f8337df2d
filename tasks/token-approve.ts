import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenApproveTask = json(
  signerOptions(chainOptions(task("token:approve", "Let a spender move the sender's ERC20, ERC721 or ERC1155 tokens"))),
)
  .addOption(text("type", "erc20, erc721 or erc1155", "erc20"))
  .addOption(text("contract", "The token contract address"))
  .addOption(text("spender", "Who may move the tokens"))
  .addOption(text("amount", "erc20: the allowance in whole tokens at the token's decimals, e.g. 100 or 2.5 (0 revokes it)"))
  .addOption(text("tokenId", "erc721: approve the spender for this one token"))
  .addOption(
    text("all", "erc721 and erc1155: true makes the spender an operator of all the sender's tokens of the contract, false revokes it"),
  )
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-approve.js")))
  .build();
