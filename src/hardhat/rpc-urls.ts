import type { HttpNetworkConfig, ResolvedConfigurationVariable } from "hardhat/types/config";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { isVariableSet } from "../config/environment.js";
import { rpcEnvironmentVariable, type ChainRegistry } from "../domain/chains.js";
import type { LazyEndpoint } from "../chains/evm/chain.js";
import { printableHost } from "../chains/evm/live-chain.js";

/**
 * The live endpoints configured in `tokenService.rpc` and `tokenService.chains`, read only when their pair is first
 * used: a configuration variable without a value then fails that pair alone, naming the variable, not every task of
 * the project. A list stays a list, tried in its order.
 */
export function configuredRpcUrls(hre: HardhatRuntimeEnvironment): Record<string, LazyEndpoint | LazyEndpoint[]> {
  const config = hre.config.tokenService;
  const lazy = (origin: string, url: ResolvedConfigurationVariable, variable: string | undefined, written: unknown): LazyEndpoint => ({
    origin,
    ...(variable !== undefined ? { variable } : typeof written === "string" ? { host: printableHost(written) } : {}),
    get: () => url.get(),
  });
  return Object.fromEntries(
    Object.entries(config?.rpc ?? {}).map(([pair, url]) => {
      const variable = config.rpcVariables?.[pair];
      const [chain = "", network = ""] = pair.split("/");
      const inRpc = hre.userConfig.tokenService?.rpc?.[chain]?.[network];
      const written = inRpc ?? hre.userConfig.tokenService?.chains?.[chain]?.networks?.[network]?.rpc;
      const origin = inRpc !== undefined ? "tokenService.rpc" : "tokenService.chains";
      if (Array.isArray(url)) {
        const variables = Array.isArray(variable) ? variable : [];
        const writtenList: unknown[] = Array.isArray(written) ? written : [];
        return [pair, url.map((entry, index) => lazy(origin, entry, variables[index], writtenList[index]))];
      }
      return [pair, lazy(origin, url, typeof variable === "string" ? variable : undefined, written)];
    }),
  );
}

/** The `url` of a Hardhat HTTP network as a lazy endpoint: a configuration variable in it is read only when its pair is used. */
export function hardhatNetworkEndpoint(hre: HardhatRuntimeEnvironment, name: string, config: HttpNetworkConfig): LazyEndpoint {
  const user = hre.userConfig.networks?.[name];
  const written = user?.type === "http" ? user.url : undefined;
  return {
    origin: `Hardhat network ${name}`,
    ...(written === undefined ? {} : typeof written === "string" ? { host: printableHost(written) } : { variable: written.name }),
    ...(Object.keys(config.httpHeaders).length > 0 ? { headers: config.httpHeaders } : {}),
    get: () => config.url.get(),
  };
}

/**
 * Every Hardhat HTTP network with a `chainId` of one of the service's pairs makes that pair live through its `url`.
 * Several for one chain id: the first in the config wins.
 */
export function hardhatNetworkRpcUrls(hre: HardhatRuntimeEnvironment, chains: ChainRegistry): Record<string, LazyEndpoint> {
  const endpoints: Record<string, LazyEndpoint> = {};
  for (const [name, config] of Object.entries(hre.config.networks)) {
    if (config.type !== "http" || config.chainId === undefined) continue;
    const pair = chains.pairOfChainId(config.chainId);
    if (pair === undefined) continue;
    endpoints[`${pair.chain}/${pair.network}`] ??= hardhatNetworkEndpoint(hre, name, config);
  }
  return endpoints;
}

/**
 * The endpoints of the project's configuration, each pair taking the first of: its `TOKEN_SERVICE_RPC_*` variable
 * (left out here: the core reads it), `tokenService.rpc`, a Hardhat HTTP network with the pair's chain id.
 */
export function liveEndpoints(
  hre: HardhatRuntimeEnvironment,
  env: NodeJS.ProcessEnv,
  chains: ChainRegistry,
): Record<string, LazyEndpoint | LazyEndpoint[]> {
  const configured = { ...hardhatNetworkRpcUrls(hre, chains), ...configuredRpcUrls(hre) };
  return Object.fromEntries(
    Object.entries(configured).filter(([pair]) => {
      const [chain = "", network = ""] = pair.split("/");
      return !isVariableSet(env, rpcEnvironmentVariable(chain, network));
    }),
  );
}
