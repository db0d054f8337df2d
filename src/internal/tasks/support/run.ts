import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { tokenServiceFor } from "../../token-service-for.js";
import { DataDirectory } from "../../../data-directory.js";
import { TokenServiceError } from "../../../errors.js";
import type { TokenService } from "../../../service.js";
import { DEFAULT_TRACKER_SETTINGS } from "../../../operations/tracker.js";
import { openStore } from "../../../server/store/open-store.js";
import { createFilesPrivately } from "./private-files.js";

/** How long a task waits for mining before it reports the status as it stands. */
export const TASK_WAIT_MS = 120_000;

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
  options: { recordsOperations?: boolean } = {},
): Promise<void> {
  // Claimed only when a simulated chain opens: a wallet, or a live network, needs no data directory.
  const dataDirectory = new DataDirectory(
    hre.config.tokenService.dataDir,
    "a hardhat task",
    "while `hardhat serve` runs on it, make this call through the service's HTTP API (see the README), or stop the service first",
  );
  // Launches, mints and grants are recorded where `serve` keeps its own (DATABASE_URL, else the data directory's
  // embedded store), so what the task leaves unfinished (--no-wait, Ctrl-C, a crash) the service follows to the end.
  if (options.recordsOperations) createFilesPrivately();
  const store = options.recordsOperations
    ? await openStore({ dataDir: dataDirectory.path, databaseUrl: process.env.DATABASE_URL })
    : undefined;
  const service = await tokenServiceFor(hre, {
    dataDirectory,
    blockTimeSeconds: 0,
    ...(store
      ? { operationStore: store, senderLock: store.senderLock(), tracker: { ...DEFAULT_TRACKER_SETTINGS, ownRecordsOnly: true } }
      : {}),
  }).catch(async (error: unknown) => {
    await store?.close();
    throw error;
  });
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
    await store?.close();
    dataDirectory.release();
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
