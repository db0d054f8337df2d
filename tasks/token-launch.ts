import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

export const tokenLaunchTask = json(
  signerOptions(chainOptions(task("token:launch", "Launch an OpenZeppelin-based ERC20 or ERC721 token contract"))),
)
  .addOption({
    name: "type",
    description: "erc20 or erc721 (SERVICE_ERC20 / SERVICE_ERC721 also accepted)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({ name: "name", description: "Token name", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({ name: "symbol", description: "Token symbol", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
  .addOption({
    name: "uri",
    description: "ERC721: base URI (tokenURI = uri + id)",
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
  .setAction(() => import("../src/hardhat/tasks/token-launch.js"))
  .build();
