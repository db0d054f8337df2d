import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenApproveTask = json(
  signerOptions(chainOptions(task("token:approve", "Let a spender move the sender's ERC20, ERC721 or ERC1155 tokens"))),
)
  .addOption({
    name: "type",
    description: "erc20, erc721 or erc1155 (default: erc20)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "contract",
    description: "The token contract address",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "spender",
    description: "Who may move the tokens",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "amount",
    description: "erc20: the allowance in whole tokens at the token's decimals, e.g. 100 or 2.5 (0 revokes it)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "tokenId",
    description: "erc721: approve the spender for this one token",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "all",
    description: "erc721 and erc1155: true makes the spender an operator of all the sender's tokens of the contract, false revokes it",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/token-approve.js"))
  .build();
