import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

export const serveTask = task("serve", "Start the HTTP JSON service (the interface document's API) on the shared core")
  .addOption({ name: "host", description: "Address to bind", type: ArgumentType.STRING, defaultValue: "127.0.0.1" })
  .addOption({ name: "port", description: "Port to listen on", type: ArgumentType.INT, defaultValue: 8080 })
  .addOption({
    name: "dataDir",
    description: "Database and simulated chain state (default: .token-service in the project)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "blockTime",
    description: "Seconds between blocks on simulated chains; 0 mines on send (default 2)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addOption({
    name: "waitTimeout",
    description: "Seconds a wait=mined request waits before answering 202 (default 60)",
    type: ArgumentType.STRING_WITHOUT_DEFAULT,
    defaultValue: undefined,
  })
  .addFlag({ name: "noAuth", description: "Accept calls without an API key (refused unless bound to a loopback address)" })
  .setAction(() => import("../src/hardhat/tasks/serve.js"))
  .build();
