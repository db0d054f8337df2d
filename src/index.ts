import type { HardhatPlugin } from "hardhat/types/plugins";

import { tokenServiceTasks } from "../tasks/index.js";
import "./type-extensions.js";

const plugin: HardhatPlugin = {
  id: "hardhat-token-service",
  npmPackage: "hardhat-token-service",
  hookHandlers: {
    config: () => import("./internal/hook-handlers/config.js"),
    hre: () => import("./internal/hook-handlers/hre.js"),
  },
  tasks: tokenServiceTasks,
};

export default plugin;
