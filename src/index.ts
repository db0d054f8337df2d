import type { HardhatPlugin } from "hardhat/types/plugins";

import { tokenServiceTasks } from "../tasks/index.js";
import "./type-extensions.js";

const plugin: HardhatPlugin = {
  id: "hardhat-token-service",
  npmPackage: "hardhat-token-service",
  hookHandlers: {
    config: () => import("./hardhat/hook-handlers/config.js"),
    hre: () => import("./hardhat/hook-handlers/hre.js"),
  },
  tasks: tokenServiceTasks,
};

export default plugin;
