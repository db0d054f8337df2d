import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenMintTask = json(
  signerOptions(chainOptions(task("token:mint", "Mint ERC20 supply within the cap, an ERC721 token or an ERC1155 id"))),
)
  .addOption(text("type", "erc20, erc721 or erc1155"))
  .addOption(text("contract", "The token contract address"))
  .addOption(text("to", "Recipient", "the sender"))
  .addOption(text("tokenId", "ERC721: a chosen token id, else the next free one; ERC1155: which id (required)"))
  .addOption(text("uri", "ERC721: this token's own URI"))
  .addOption(text("amount", "ERC20: amount in whole tokens at the token's decimals, e.g. 5 or 0.5; ERC1155: how many of --token-id"))
  .addOption(
    text(
      "recipients",
      'A batch in one transaction (the token\'s airdrop), all minted or none: a JSON array, inline or the path of a JSON file, of at most 50 {"to", "amount" | "tokenId" | "uri"} (ERC20 amounts in whole tokens). Not with --to, --amount, --token-id or --uri',
    ),
  )
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-mint.js")))
  .build();
