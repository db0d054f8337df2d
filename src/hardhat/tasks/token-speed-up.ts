import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { replaceOperation } from "./support/replace-operation.js";

export default function tokenSpeedUp(args: Parameters<typeof replaceOperation>[1], hre: HardhatRuntimeEnvironment): Promise<void> {
  return replaceOperation("speed-up", args, hre);
}
