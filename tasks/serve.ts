import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { cliAction, text } from "./options.js";

export const serveTask = task("serve", "Start the HTTP JSON API (docs/http-api.md) on the project's chains and data directory")
  .addOption({ name: "host", description: "Address to bind", type: ArgumentType.STRING, defaultValue: "127.0.0.1" })
  .addOption({ name: "port", description: "Port to listen on", type: ArgumentType.INT, defaultValue: 8080 })
  .addOption(text("dataDir", "Database and simulated chain state", "tokenService.dataDir"))
  .addOption(text("blockTime", "Seconds between blocks on simulated chains; 0 mines on send", "tokenService.blockTime"))
  .addOption(text("waitTimeout", "Seconds a wait=mined request waits before answering 202", "60"))
  .addFlag({ name: "noAuth", description: "Accept calls without an API key (refused unless bound to a loopback address)" })
  .setAction(cliAction(() => import("../src/hardhat/tasks/serve.js")))
  .build();
