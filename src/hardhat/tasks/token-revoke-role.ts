import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { tokenRole, type RoleArgs } from "./token-role.js";

export default function tokenRevokeRole(args: RoleArgs, hre: HardhatRuntimeEnvironment): Promise<void> {
  return tokenRole(args, hre, false);
}
