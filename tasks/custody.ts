import { task } from "hardhat/config";

import { cliAction, text } from "./options.js";

// The keystore of held wallets (docs/custody.md), from the command line only: its seed never crosses the HTTP API. Each
// opens the service's store (DATABASE_URL, else the data directory's) and reads TOKEN_SERVICE_KEYSTORE_PASSPHRASE.

export const custodyInitTask = task("custody:init", "Make the keystore of held wallets now, under TOKEN_SERVICE_KEYSTORE_PASSPHRASE")
  .addFlag({ name: "json", description: "Print one JSON object" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/custody-init.js")))
  .build();

export const custodyBackupTask = task(
  "custody:backup",
  "Print the keystore's seed (24 words): every derived held key comes back from it; keep it offline",
)
  .addFlag({ name: "json", description: "Print one JSON object" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/custody-backup.js")))
  .build();

export const custodyRestoreTask = task("custody:restore", "Make the keystore from a backed-up seed, in a store that has none")
  .addOption(text("mnemonicEnv", "Name of the environment variable holding the 24 words (never the words themselves)"))
  .addFlag({ name: "json", description: "Print one JSON object" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/custody-restore.js")))
  .build();

export const custodyPassphraseTask = task(
  "custody:passphrase",
  "Encrypt the keystore (seed and imported keys) under a new passphrase; restart every serve with it after",
)
  .addOption(text("newPassphraseEnv", "Name of the environment variable holding the new passphrase"))
  .addFlag({ name: "json", description: "Print one JSON object" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/custody-passphrase.js")))
  .build();
