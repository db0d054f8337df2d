import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { readMnemonicVariable } from "../../config/environment.js";
import { invalidArgument } from "../../domain/errors.js";
import { printJson, withService } from "./support/run.js";

export default async function custodyRestore(
  args: { mnemonicEnv?: string; json?: boolean },
  hre: HardhatRuntimeEnvironment,
): Promise<void> {
  await withService(hre, { recordsOperations: true }, async (service) => {
    if (args.mnemonicEnv === undefined)
      throw invalidArgument("mnemonicEnv", "--mnemonic-env NAME is required: the variable holding the 24 words");
    const phrase = readMnemonicVariable(process.env, args.mnemonicEnv);
    if (phrase === undefined) throw invalidArgument("mnemonicEnv", `environment variable ${args.mnemonicEnv} is not set`);
    const { heldWallets } = await service.custody.restore(phrase);
    if (args.json) return printJson({ restored: true, heldWallets });
    console.log(`Restored the keystore: ${heldWallets} held wallet${heldWallets === 1 ? "" : "s"} in the store derive from it.`);
  });
}
