import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { replaceOperation } from "./support/replace-operation.js";

export default function tokenCancel(args: Parameters<typeof replaceOperation>[1], hre: HardhatRuntimeEnvironment): Promise<void> {
  return replaceOperation("cancel", args, hre);
}
