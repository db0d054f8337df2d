import { task } from "hardhat/config";

import { cliAction, text } from "./options.js";

export const apikeyCreateTask = task("apikey:create", "Create an API key for the HTTP service; shown once, only its hash is stored")
  .addOption(text("label", "A name to recognise the key by"))
  .addOption(text("dataDir", "The service's data directory", "tokenService.dataDir"))
  .addFlag({ name: "json", description: "Print one JSON object" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/apikey-create.js")))
  .build();
