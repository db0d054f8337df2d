import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { chainOptions, json, signerOptions } from "./options.js";

/** The options of token:grant-role and token:revoke-role. */
const roleOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  json(signerOptions(chainOptions(builder)))
    .addOption({
      name: "contract",
      description: "The token contract address (launched with access roles)",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addOption({
      name: "role",
      description: "A role the token defines (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE), or its id as 32 bytes of 0x hex",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addOption({
      name: "account",
      description: "Who gains or loses the role",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    });

export const tokenGrantRoleTask = roleOptions(
  task("token:grant-role", "Grant a role of a token (MINTER_ROLE, PAUSER_ROLE, …) to an account"),
)
  .setAction(() => import("../src/hardhat/tasks/token-grant-role.js"))
  .build();

export const tokenRevokeRoleTask = roleOptions(task("token:revoke-role", "Revoke a role of a token from an account"))
  .setAction(() => import("../src/hardhat/tasks/token-revoke-role.js"))
  .build();
