import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { printJson, withService } from "./support/run.js";

export default async function custodyBackup(args: { json?: boolean }, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { recordsOperations: true }, async (service) => {
    const phrase = await service.custody.backupPhrase();
    if (args.json) return printJson({ mnemonic: phrase });
    console.log("The keystore's seed (BIP-39, 24 words). Anyone with it holds every derived held wallet: write it down offline,");
    console.log("never in a chat, a ticket or a repository. Imported keys are not in it: back the store up for those.");
    console.log("");
    console.log(`  ${phrase}`);
  });
}
