import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { readNewPassphraseVariable, readVariable } from "../../config/environment.js";
import { invalidArgument } from "../../domain/errors.js";
import { printJson, withService } from "./support/run.js";

export default async function custodyPassphrase(
  args: { newPassphraseEnv?: string; json?: boolean },
  hre: HardhatRuntimeEnvironment,
): Promise<void> {
  await withService(hre, { recordsOperations: true }, async (service) => {
    if (args.newPassphraseEnv === undefined) throw invalidArgument("newPassphraseEnv", "--new-passphrase-env NAME is required");
    const next = readNewPassphraseVariable(process.env, args.newPassphraseEnv);
    if (next === undefined) throw invalidArgument("newPassphraseEnv", `environment variable ${args.newPassphraseEnv} is not set`);
    const current = readVariable(process.env, "TOKEN_SERVICE_KEYSTORE_PASSPHRASE");
    if (current === undefined)
      throw invalidArgument("newPassphraseEnv", "TOKEN_SERVICE_KEYSTORE_PASSPHRASE (the current passphrase) is not set");
    const { importedKeys } = await service.custody.rotate(current, next);
    if (args.json) return printJson({ rotated: true, importedKeys });
    console.log(
      `The keystore's seed and ${importedKeys} imported key${importedKeys === 1 ? "" : "s"} are encrypted under the new passphrase.`,
    );
    console.log("Restart every serve with it as TOKEN_SERVICE_KEYSTORE_PASSPHRASE.");
  });
}
