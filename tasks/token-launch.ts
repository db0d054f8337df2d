import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

export const tokenLaunchTask = json(
  signerOptions(chainOptions(task("token:launch", "Launch an OpenZeppelin-based ERC20, ERC721 or ERC1155 token contract"))),
)
  .addOption(text("type", "erc20, erc721 or erc1155 (SERVICE_ERC20 / SERVICE_ERC721 / SERVICE_ERC1155 also accepted)"))
  .addOption(text("name", "Token name"))
  .addOption(text("symbol", "Token symbol"))
  .addOption(text("uri", "ERC721: base URI (tokenURI = uri + id); ERC1155: every id's URI, {id} replaced by clients"))
  .addOption(text("decimals", "ERC20: decimals", "18"))
  .addOption(text("initialSupply", "ERC20: supply minted at launch, in whole tokens at --decimals, e.g. 1000", "0"))
  .addOption(text("totalSupply", "ERC20: supply cap, in whole tokens at --decimals", "no cap"))
  .addOption(text("minter", "ERC20: receives the initial supply", "the sender"))
  .addOption(text("account", "ERC20: administers the token and may mint more", "the sender"))
  .addOption(
    text(
      "options",
      "OpenZeppelin extensions, comma-separated: ERC20 burnable,pausable,permit,capped,mintable,votes,flashmint,callback; ERC721 burnable,pausable,enumerable,uriStorage,votes; ERC1155 burnable,pausable,supply,updatableUri; votes=timestamp (votes by block timestamps); royalty=<receiver>:<basisPoints> (ERC721, ERC1155); access=ownable|roles|managed (managed needs --authority). Or a JSON object (docs/tokens.md)",
    ),
  )
  .addOption(text("authority", 'The AccessManager contract of a token with access=managed (its "initialAuthority")'))
  .addOption(text("salt", "32-byte hex: deploy through the CREATE2 factory, at an address the same on every chain"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-launch.js")))
  .build();
