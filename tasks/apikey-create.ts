import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

export const apikeyCreateTask = task("apikey:create", "Create an API key for the HTTP service; shown once, only its hash is stored")
  .addOption({
    name: "label",
    description: "A name to recognise the key by",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "dataDir",
    description: "The service's data directory (default: .token-service in the project)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addFlag({ name: "json", description: "Print one JSON object" })
  .setAction(() => import("../src/hardhat/tasks/apikey-create.js"))
  .build();
