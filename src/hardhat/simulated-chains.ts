import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { SimulatedChainFactory } from "../chains/evm/chain.js";

/**
 * The Hardhat network the simulated chains are made from. Not the selected one: `--network sepolia`
 * (chosen for its accounts) may be an HTTP network, whose type Hardhat does not let an override change.
 */
function simulatedNetworkName(hre: HardhatRuntimeEnvironment): string {
  if (hre.config.networks.default?.type === "edr-simulated") return "default";
  const simulated = Object.entries(hre.config.networks).find(([, config]) => config.type === "edr-simulated");
  if (simulated === undefined) throw new Error("the Hardhat config defines no edr-simulated network to run simulated chains on");
  return simulated[0];
}

/** What the plugin hands the core: fresh in-process EDR chains from the project's Hardhat runtime, one per pair. */
export function hardhatSimulatedChains(hre: HardhatRuntimeEnvironment): SimulatedChainFactory {
  return async (info) =>
    hre.network.create({
      network: simulatedNetworkName(hre),
      override: { chainId: info.chainId, mining: { auto: true, interval: 0 } },
    } as Parameters<typeof hre.network.create>[0]);
}
