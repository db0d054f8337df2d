import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenLaunchTask = json(
  signerOptions(chainOptions(task("token:launch", "Launch an OpenZeppelin-based ERC20, ERC721 or ERC1155 token contract"))),
)
  .addOption({
    name: "type",
    description: "erc20, erc721 or erc1155 (SERVICE_ERC20 / SERVICE_ERC721 / SERVICE_ERC1155 also accepted)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({ name: "name", description: "Token name", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({ name: "symbol", description: "Token symbol", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "uri",
    description: "ERC721: base URI (tokenURI = uri + id); ERC1155: every id's URI, {id} replaced by clients",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "decimals",
    description: "ERC20: decimals (default 18)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "initialSupply",
    description: "ERC20: supply minted at launch, in whole tokens at --decimals, e.g. 1000 (default 0)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "totalSupply",
    description: "ERC20: supply cap, in whole tokens at --decimals (default: no cap)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "minter",
    description: "ERC20: receives the initial supply (default: sender)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "account",
    description: "ERC20: administers the token and may mint more (default: sender)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "options",
    description:
      "OpenZeppelin extensions, comma-separated: ERC20 burnable,pausable,permit,capped,mintable,votes; ERC721 burnable,pausable,enumerable,uriStorage; ERC1155 burnable,pausable,supply; royalty=<receiver>:<basisPoints> (ERC721, ERC1155); access=ownable|roles. Or a JSON object (docs/tokens.md)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "salt",
    description: "32-byte hex: deploy through the CREATE2 factory, at an address the same on every chain",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .setAction(() => import("../src/hardhat/tasks/token-launch.js"))
  .build();
