import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { chainRegistry } from "../config/chain-registry.js";
import type { ChainRegistry } from "../domain/chains.js";

/** The chains of a Hardhat project: the built-in ones, `tokenService.chains`, and `TOKEN_SERVICE_CHAINS` from `env`. */
export function projectChains(hre: HardhatRuntimeEnvironment, env: NodeJS.ProcessEnv): ChainRegistry {
  return chainRegistry({ configured: hre.config.tokenService?.chains ?? {}, env });
}
