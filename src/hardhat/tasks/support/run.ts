import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { HARDHAT_NETWORK_FIELD, selectedNetwork } from "../../selected-network.js";
import { tokenServiceFor } from "../../token-service-for.js";
import { projectChains } from "../../project-chains.js";
import { DataDirectory } from "../../../store/data-directory.js";
import { EnvironmentError, readVariable } from "../../../config/environment.js";
import { TokenServiceError } from "../../../domain/errors.js";
import type { TokenService } from "../../../core/token-service.js";
import type { Store } from "../../../store/types.js";
import { DEFAULT_TRACKER_SETTINGS } from "../../../core/operations/tracker-settings.js";
import { pluginError } from "./plugin-error.js";

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
  // The pause task says --unpause for paused: false; a token already in the state asked for names it.
  paused: "--unpause",
};

function optionName(field: string): string {
  if (OPTION_NAMES[field]) return OPTION_NAMES[field];
  // A list's item names its list's option: `recipients[3].tokenId` is in --recipients (the message names the item).
  const base = field.replace(/^token\./, "").replace(/\[\d+\].*$/, "");
  return `--${(OPTION_NAMES[base] ?? base).replace(/^--/, "").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * A typed error as a Hardhat plugin error (see plugin-error.ts), keeping its code and naming the option the user
 * typed: `INVALID_ADDRESS (--address): …`. An environment variable's error names the variable.
 */
export function taskError(error: TokenServiceError | EnvironmentError): Error {
  if (error instanceof EnvironmentError) return pluginError(error.message, error);
  const where = error.field === undefined ? "" : ` (${optionName(error.field)})`;
  return pluginError(`${error.code}${where}: ${error.message}`, error);
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
  /** `token:verify`: the core keeps verifications in the store `recordsOperations` opens. */
  verifies?: boolean;
  /** `--private-key` of the signing tasks: only ever refused, never read. */
  privateKey?: string;
}

/** `--private-key 0x…`: refused before anything runs, pointing to `--private-key-env`; the value is never printed. */
export function refusePrivateKeyOption(options: { privateKey?: string }): void {
  if (options.privateKey === undefined) return;
  throw pluginError(
    "INVALID_ARGUMENT (--private-key): a private key is not taken on the command line, where shell history and the process " +
      "list would keep it. Put it in an environment variable and pass that variable's name instead: " +
      "export DEPLOYER_KEY=0x… then --private-key-env DEPLOYER_KEY (or list the key in the --network's accounts).",
  );
}

/** The pair a task works on: `--chain` and `--chain-network`, or the pair of the HTTP network chosen with `--network`. */
export interface TaskPair {
  chain: string;
  network: string;
}

/**
 * Opens the core on the project's data directory (so simulated chains carry
 * over between task runs), with the pair of an HTTP `--network` live through
 * its url, and runs the action. A typed error becomes a HardhatPluginError
 * with its code and the option concerned (with --json, its JSON object is
 * printed on stdout first); anything else is a bug, which Hardhat shows with
 * its stack.
 */
export async function withService(
  hre: HardhatRuntimeEnvironment,
  options: TaskOptions,
  /** `store`: the service's store, opened for the tasks that record (`recordsOperations`). */
  action: (service: TokenService, pair: TaskPair, store: Store | undefined) => Promise<void>,
): Promise<void> {
  refusePrivateKeyOption(options);
  // Claimed only when a simulated chain opens: a wallet, or a live network, needs no data directory.
  const dataDirectory = new DataDirectory(
    hre.config.tokenService.dataDir,
    "a hardhat task",
    "while `hardhat serve` runs on it, make this call through the service's HTTP API (docs/http-api.md), or stop the service first",
  );
  let service: TokenService | undefined;
  let store: Store | undefined;
  try {
    if (options.recordsOperations) {
      // Loaded only by the tasks that record: a wallet or a balance read needs no store.
      const { openStore } = await import("../../../store/open-store.js");
      store = await openStore({ dataDir: dataDirectory.path, databaseUrl: readVariable(process.env, "DATABASE_URL") });
    }
    const chains = projectChains(hre, process.env);
    const selected = await selectedNetwork(hre, { chain: options.chain, network: options.chainNetwork }, chains);
    const pair = selected ? { chain: selected.pair.chain, network: selected.pair.network } : undefined;
    service = await tokenServiceFor(hre, {
      chains,
      dataDirectory,
      blockTimeSeconds: 0,
      ...(store
        ? {
            operationStore: store,
            custodyStore: store.custody,
            senderLock: store.senderLock(),
            tracker: { ...DEFAULT_TRACKER_SETTINGS, ownRecordsOnly: true },
            ...(options.verifies ? { verificationStore: store.verifications } : {}),
          }
        : {}),
      ...(selected && pair ? { rpcUrls: { [`${pair.chain}/${pair.network}`]: selected.endpoint } } : {}),
    });
    await action(service, pair ?? { chain: options.chain ?? "", network: options.chainNetwork ?? "" }, store);
  } catch (error) {
    if (error instanceof EnvironmentError) throw taskError(error);
    if (!(error instanceof TokenServiceError)) throw error;
    if (options.json) console.log(JSON.stringify({ error: error.toJSON() }));
    throw taskError(error);
  } finally {
    await service?.close();
    await store?.close();
    dataDirectory.release();
  }
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/**
 * A result's warnings (an amount below one whole token, a grant below 1 gwei), on stderr, each naming the option typed:
 * the task did what was asked, and says what it came to. `--json` carries them in the result's `warnings` instead.
 */
export function printWarnings(result: { warnings?: ReadonlyArray<{ code: string; field: string; message: string }> }): void {
  for (const warning of result.warnings ?? []) console.warn(`Warning ${warning.code} (${optionName(warning.field)}): ${warning.message}`);
}

/** "simulated" or "live", and for live which endpoint and where it was configured, as every human-readable result says. */
export function chainLabel(result: { chain: string; network: string; simulated: boolean }, service: TokenService): string {
  if (result.chain === "bitcoin" && result.network === "regtest") return "bitcoin/regtest (local regtest node)";
  if (result.simulated) return `${result.chain}/${result.network} (simulated in-process chain)`;
  const endpoint = service.networks().find((pair) => pair.chain === result.chain && pair.network === result.network)?.endpoint;
  return `${result.chain}/${result.network} (live network${endpoint === undefined ? "" : `: ${endpoint}`})`;
}
