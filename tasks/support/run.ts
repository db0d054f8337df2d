import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { createTokenService } from "../../src/api.js";
import { TokenServiceError } from "../../src/errors.js";
import type { TokenService } from "../../src/service.js";

/** Core field names as the options a task user typed. */
const OPTION_NAMES: Record<string, string> = {
  network: "--chain-network",
  chain: "--chain",
  privateKey: "--private-key-env",
  erc20TokenContractAddresses: "--erc20",
  tokenAddress: "--erc721",
  contractAddress: "--contract",
  transactionHash: "--tx",
};

function optionName(field: string): string {
  if (OPTION_NAMES[field]) return OPTION_NAMES[field];
  const base = field.replace(/^token\./, "").replace(/\[\d+\]$/, "");
  return `--${(OPTION_NAMES[base] ?? base).replace(/^--/, "").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * Opens the core on the project's data directory (so simulated chains carry
 * over between task runs), runs the action, prints typed errors plainly and
 * sets a failing exit code.
 */
export async function withService(
  hre: HardhatRuntimeEnvironment,
  json: boolean,
  action: (service: TokenService) => Promise<void>,
): Promise<void> {
  const service = await createTokenService({ hre, persistSimulatedChains: true, blockTimeSeconds: 0 });
  try {
    await action(service);
  } catch (error) {
    if (!(error instanceof TokenServiceError)) throw error;
    if (json) {
      console.log(JSON.stringify({ error: error.toJSON() }));
    } else {
      const where = error.field === undefined ? "" : ` (${optionName(error.field)})`;
      console.error(`Error ${error.code}${where}: ${error.message}`);
    }
    process.exitCode = 1;
  } finally {
    await service.close();
  }
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** "simulated" or "live", as every human-readable result says. */
export function chainLabel(result: { chain: string; network: string; simulated: boolean }): string {
  if (result.chain === "bitcoin" && result.network === "regtest") return "bitcoin/regtest (local regtest node)";
  return `${result.chain}/${result.network} (${result.simulated ? "simulated in-process chain" : "live network"})`;
}
