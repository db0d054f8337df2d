import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { printJson, withService } from "./support/run.js";

export default async function custodyInit(args: { json?: boolean }, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { recordsOperations: true }, async (service) => {
    const made = await service.custody.init();
    const status = await service.custody.status();
    if (args.json) return printJson({ made, ...status });
    console.log(made ? "Made the keystore of held wallets." : `The keystore is there already (${status.state}).`);
    if (made) console.log("Back its seed up now, offline: npx hardhat custody:backup");
  });
}
