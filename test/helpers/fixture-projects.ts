import path from "node:path";

import { createHardhatRuntimeEnvironment, importUserConfig, resolveHardhatConfigPath } from "hardhat/hre";
import type { HardhatUserConfig } from "hardhat/config";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

export const fixtureProjectRoot = (name: string) => path.resolve(import.meta.dirname, "..", "fixture-projects", name);

/**
 * A Hardhat runtime for a fixture project, as that project's own `npx hardhat` would build it, without
 * touching the global HRE or the working directory. `adjust` edits the user config first (the config
 * module is imported once per process, so per-test values such as a temporary data directory go here).
 */
export async function createFixtureProjectHRE(
  name: string,
  options: { adjust?: (config: HardhatUserConfig) => HardhatUserConfig; network?: string } = {},
): Promise<HardhatRuntimeEnvironment> {
  const root = fixtureProjectRoot(name);
  const configPath = await resolveHardhatConfigPath(path.join(root, "hardhat.config.ts"));
  const userConfig = await importUserConfig(configPath);
  return createHardhatRuntimeEnvironment(
    options.adjust ? options.adjust(userConfig) : userConfig,
    { config: configPath, ...(options.network !== undefined ? { network: options.network } : {}) },
    root,
  );
}
