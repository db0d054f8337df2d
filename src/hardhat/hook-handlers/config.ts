import type { ConfigHooks } from "hardhat/types/hooks";

import { resolveTokenServiceConfig, validateTokenServiceConfig } from "../config.js";

export default async (): Promise<Partial<ConfigHooks>> => ({
  validateUserConfig: (userConfig) => validateTokenServiceConfig(userConfig),
  async resolveUserConfig(userConfig, resolveConfigurationVariable, next) {
    const resolved = await next(userConfig, resolveConfigurationVariable);
    return resolveTokenServiceConfig(userConfig, resolved, resolveConfigurationVariable);
  },
});
