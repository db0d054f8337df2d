import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { composeTokenService } from "../compose.js";
import type { TokenService } from "../core/token-service.js";
import type { ComposeOptions } from "../compose.js";
import { projectChains } from "./project-chains.js";
import { liveEndpoints } from "./rpc-urls.js";
import { hardhatSimulatedChains } from "./simulated-chains.js";

export type CreateTokenServiceOptions = Partial<ComposeOptions> & {
  /** A Hardhat runtime with this plugin; one is created when omitted. */
  hre?: HardhatRuntimeEnvironment;
  /** Keep simulated chains in `hre.config.tokenService.dataDir` (as the tasks and `serve` do). Default false: in memory. */
  persistSimulatedChains?: boolean;
};

/**
 * The core, composed from a Hardhat project: its chains (built in, `tokenService.chains`, `TOKEN_SERVICE_CHAINS`); its
 * EDR for simulated chains; live endpoints from `options.rpcUrls`, `TOKEN_SERVICE_RPC_*`, `tokenService.rpc` and the
 * Hardhat HTTP networks, in that order; its fee ceilings and replace-after blocks (`tokenService.feeCaps`,
 * `tokenService.replaceAfterBlocks`, under their environment variables); the environment's Bitcoin backends.
 */
export async function tokenServiceFor(hre: HardhatRuntimeEnvironment, options: CreateTokenServiceOptions = {}): Promise<TokenService> {
  const env = options.env ?? process.env;
  const chains = options.chains ?? projectChains(hre, env);
  const rpcUrls = { ...liveEndpoints(hre, env, chains), ...options.rpcUrls };
  const dataDir = options.dataDirectory
    ? undefined
    : (options.dataDir ?? (options.persistSimulatedChains ? hre.config.tokenService.dataDir : undefined));
  return composeTokenService({
    ...options,
    feeCaps: options.feeCaps ?? hre.config.tokenService.feeCaps,
    replaceAfterBlocks: options.replaceAfterBlocks ?? hre.config.tokenService.replaceAfterBlocks,
    chains,
    simulatedChainFactory: options.simulatedChainFactory ?? hardhatSimulatedChains(hre),
    rpcUrls,
    ...(dataDir !== undefined ? { dataDir } : {}),
  });
}
