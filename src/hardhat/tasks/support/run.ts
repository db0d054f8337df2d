import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { HARDHAT_NETWORK_FIELD, selectedNetwork } from "../../selected-network.js";
import { tokenServiceFor } from "../../token-service-for.js";
import { DataDirectory } from "../../../store/data-directory.js";
import { readVariable } from "../../../config/environment.js";
import { TokenServiceError } from "../../../domain/errors.js";
import type { TokenService } from "../../../core/token-service.js";
import { DEFAULT_TRACKER_SETTINGS } from "../../../core/operations/tracker.js";
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
  [HARDHAT_NETWORK_FIELD]: "--network",
};

function optionName(field: string): string {
  if (OPTION_NAMES[field]) return OPTION_NAMES[field];
  const base = field.replace(/^token\./, "").replace(/\[\d+\]$/, "");
  return `--${(OPTION_NAMES[base] ?? base).replace(/^--/, "").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** The options every chain task shares. */
export interface TaskOptions {
  chain?: string;
  chainNetwork?: string;
  json?: boolean;
  /**
   * Launches, mints and grants are recorded where `serve` keeps its own (DATABASE_URL, else the data directory's
   * embedded store), so what the task leaves unfinished (--no-wait, Ctrl-C, a crash) the service follows to the end.
   */
  recordsOperations?: boolean;
}

/** The pair a task works on: `--chain` and `--chain-network`, or the pair of the HTTP network chosen with `--network`. */
export interface TaskPair {
  chain: string;
  network: string;
}

/**
 * Opens the core on the project's data directory (so simulated chains carry
 * over between task runs), with the pair of an HTTP `--network` live through
 * its url, runs the action, prints typed errors plainly and sets a failing
 * exit code.
 */
export async function withService(
  hre: HardhatRuntimeEnvironment,
  options: TaskOptions,
  action: (service: TokenService, pair: TaskPair) => Promise<void>,
): Promise<void> {
  // Claimed only when a simulated chain opens: a wallet, or a live network, needs no data directory.
  const dataDirectory = new DataDirectory(
    hre.config.tokenService.dataDir,
    "a hardhat task",
    "while `hardhat serve` runs on it, make this call through the service's HTTP API (see the README), or stop the service first",
  );
  let service: TokenService | undefined;
  if (options.recordsOperations) createFilesPrivately();
  const store = options.recordsOperations
    ? // Loaded only by the tasks that record: a wallet or a balance read needs no store.
      await (
        await import("../../../store/open-store.js")
      ).openStore({
        dataDir: dataDirectory.path,
        databaseUrl: readVariable(process.env, "DATABASE_URL"),
      })
    : undefined;
  try {
    const selected = await selectedNetwork(hre, { chain: options.chain, network: options.chainNetwork });
    const pair = selected ? { chain: selected.pair.chain, network: selected.pair.network } : undefined;
    service = await tokenServiceFor(hre, {
      dataDirectory,
      blockTimeSeconds: 0,
      ...(store
        ? { operationStore: store, senderLock: store.senderLock(), tracker: { ...DEFAULT_TRACKER_SETTINGS, ownRecordsOnly: true } }
        : {}),
      ...(selected && pair ? { rpcUrls: { [`${pair.chain}/${pair.network}`]: selected.endpoint } } : {}),
    });
    await action(service, pair ?? { chain: options.chain ?? "", network: options.chainNetwork ?? "" });
  } catch (error) {
    if (!(error instanceof TokenServiceError)) throw error;
    if (options.json) {
      console.log(JSON.stringify({ error: error.toJSON() }));
    } else {
      const where = error.field === undefined ? "" : ` (${optionName(error.field)})`;
      console.error(`Error ${error.code}${where}: ${error.message}`);
    }
    process.exitCode = 1;
  } finally {
    await service?.close();
    await store?.close();
    dataDirectory.release();
  }
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** "simulated" or "live", and for live which endpoint and where it was configured, as every human-readable result says. */
export function chainLabel(result: { chain: string; network: string; simulated: boolean }, service: TokenService): string {
  if (result.chain === "bitcoin" && result.network === "regtest") return "bitcoin/regtest (local regtest node)";
  if (result.simulated) return `${result.chain}/${result.network} (simulated in-process chain)`;
  const endpoint = service.networks().find((pair) => pair.chain === result.chain && pair.network === result.network)?.endpoint;
  return `${result.chain}/${result.network} (live network${endpoint === undefined ? "" : `: ${endpoint}`})`;
}
