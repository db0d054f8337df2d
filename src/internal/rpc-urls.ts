import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { LazyEndpoint } from "../evm/chain.js";

/**
 * The live endpoints configured in `tokenService.rpc`, read only when their pair is first used: a configuration
 * variable without a value then fails that pair alone, naming the variable, not every task of the project.
 */
export function configuredRpcUrls(hre: HardhatRuntimeEnvironment): Record<string, LazyEndpoint> {
  const config = hre.config.tokenService;
  return Object.fromEntries(
    Object.entries(config?.rpc ?? {}).map(([pair, variable]) => [
      pair,
      { variable: config.rpcVariables?.[pair] ?? `tokenService.rpc["${pair}"]`, get: () => variable.get() },
    ]),
  );
}
