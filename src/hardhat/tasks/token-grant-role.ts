import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { tokenRole, type RoleArgs } from "./token-role.js";

export default function tokenGrantRole(args: RoleArgs, hre: HardhatRuntimeEnvironment): Promise<void> {
  return tokenRole(args, hre, true);
}
