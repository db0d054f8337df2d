import path from "node:path";
import type { HardhatUserConfig } from "hardhat/config";
import type { ConfigurationVariableResolver, HardhatConfig } from "hardhat/types/config";
import type { HardhatUserConfigValidationError } from "hardhat/types/hooks";

import { isChainName, networkNames } from "./chains.js";

export async function validateTokenServiceConfig(userConfig: HardhatUserConfig): Promise<HardhatUserConfigValidationError[]> {
  const config = userConfig.tokenService;
  if (config === undefined) return [];
  const errors: HardhatUserConfigValidationError[] = [];
  if (typeof config !== "object" || config === null) {
    return [{ path: ["tokenService"], message: "Expected an object with optional rpc, dataDir and blockTime." }];
  }
  if (config.blockTime !== undefined && (typeof config.blockTime !== "number" || !(config.blockTime >= 0))) {
    errors.push({ path: ["tokenService", "blockTime"], message: "Expected a number of seconds, 0 or more." });
  }
  if (config.dataDir !== undefined && (typeof config.dataDir !== "string" || config.dataDir === "")) {
    errors.push({ path: ["tokenService", "dataDir"], message: "Expected a non-empty path." });
  }
  for (const [chain, networks] of Object.entries(config.rpc ?? {})) {
    if (!isChainName(chain) || chain === "bitcoin") {
      errors.push({ path: ["tokenService", "rpc", chain], message: "Expected ethereum or binance_smart_chain." });
      continue;
    }
    for (const network of Object.keys(networks ?? {})) {
      if (!networkNames(chain).includes(network)) {
        errors.push({ path: ["tokenService", "rpc", chain, network], message: `Expected one of: ${networkNames(chain).join(", ")}.` });
      }
    }
  }
  return errors;
}

export async function resolveTokenServiceConfig(
  userConfig: HardhatUserConfig,
  resolved: HardhatConfig,
  resolveConfigurationVariable: ConfigurationVariableResolver,
): Promise<HardhatConfig> {
  const user = userConfig.tokenService ?? {};
  const rpc: HardhatConfig["tokenService"]["rpc"] = {};
  const rpcVariables: Record<string, string> = {};
  for (const [chain, networks] of Object.entries(user.rpc ?? {})) {
    for (const [network, url] of Object.entries(networks)) {
      rpc[`${chain}/${network}`] = resolveConfigurationVariable(url);
      if (typeof url === "object" && url !== null && "name" in url) rpcVariables[`${chain}/${network}`] = String(url.name);
    }
  }
  return {
    ...resolved,
    tokenService: {
      rpc,
      rpcVariables,
      dataDir: path.resolve(resolved.paths.root, user.dataDir ?? ".token-service"),
      blockTime: user.blockTime ?? 2,
    },
  };
}
