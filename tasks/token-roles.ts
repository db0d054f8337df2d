import { task } from "hardhat/config";

import { chainOptions, cliAction, json, signerOptions, text } from "./options.js";

/** The options of token:grant-role and token:revoke-role. */
const roleOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  json(signerOptions(chainOptions(builder)))
    .addOption(text("contract", "The token contract address (launched with access roles)"))
    .addOption(text("role", "A role the token defines (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE), or its id as 32 bytes of 0x hex"))
    .addOption(text("account", "Who gains or loses the role"));

export const tokenGrantRoleTask = roleOptions(
  task("token:grant-role", "Grant a role of a token (MINTER_ROLE, PAUSER_ROLE, …) to an account"),
)
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-grant-role.js")))
  .build();

export const tokenRevokeRoleTask = roleOptions(task("token:revoke-role", "Revoke a role of a token from an account"))
  .setAction(cliAction(() => import("../src/hardhat/tasks/token-revoke-role.js")))
  .build();
