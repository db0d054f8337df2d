import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenMintTask = json(
  signerOptions(chainOptions(task("token:mint", "Mint ERC20 supply within the cap, an ERC721 token or an ERC1155 id"))),
)
  .addOption({
    name: "type",
    description: "erc20, erc721 or erc1155",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "contract",
    description: "The token contract address",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({ name: "to", description: "Recipient (default: sender)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "tokenId",
    description: "ERC721: a chosen token id (default: the next free one); ERC1155: which id (required)",
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
    description: "ERC20: amount in whole tokens at the token's decimals, e.g. 5 or 0.5; ERC1155: how many of --token-id",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "recipients",
    description:
      'A batch in one transaction (the token\'s airdrop), all minted or none: a JSON array, inline or the path of a JSON file, of at most 50 {"to", "amount" | "tokenId" | "uri"} (ERC20 amounts in whole tokens). Not with --to, --amount, --token-id or --uri',
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/token-mint.js"))
  .build();
