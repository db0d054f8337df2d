import { globalAgent as httpAgent } from "node:http";
import { globalAgent as httpsAgent } from "node:https";
import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { EnvironmentError } from "../../config/environment.js";
import type { ChainRegistry } from "../../domain/chains.js";
import { isTokenServiceError } from "../../domain/errors.js";
import { projectChains } from "../project-chains.js";
import { liveEndpoints } from "../rpc-urls.js";
import { selectedNetwork } from "../selected-network.js";
import { hardhatSimulatedChains } from "../simulated-chains.js";
import { createServer, StartRefused } from "../../http/app.js";
import { isLoopbackHost, listen, shutdown } from "../../http/listen.js";
import { loadSettings, SettingsError, type Settings } from "../../http/settings.js";
import { makePrivate } from "./support/private-files.js";

interface Args {
  host: string;
  port: number;
  dataDir?: string;
  blockTime?: string;
  noAuth?: boolean;
  waitTimeout?: string;
}

/** A reason not to start, printed as one line without a stack trace. */
class StartError extends Error {}

/** After shutdown, whatever still holds the process (a socket to a node that never answered) gets this long. */
const EXIT_DEADLINE_MS = 5_000;

function parseNonNegative(value: string, option: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new StartError(`${option} must be a number of seconds, 0 or more (got "${value}")`);
  return parsed;
}

function checkedSettings(): Settings {
  try {
    return loadSettings(process.env);
  } catch (error) {
    throw error instanceof SettingsError ? new StartError(error.message) : error;
  }
}

function listenFailure(error: unknown, host: string, port: number): StartError | undefined {
  switch ((error as NodeJS.ErrnoException).code) {
    case "EADDRINUSE":
      return new StartError(`${host}:${port} is already in use; stop the process that listens there or choose another --port`);
    case "EACCES":
      return new StartError(`not allowed to listen on ${host}:${port}; ports below 1024 need privileges, choose another --port`);
    case "EADDRNOTAVAIL":
      return new StartError(`${host} is not an address of this machine; choose another --host`);
    default:
      return undefined;
  }
}

export default async function serve(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  try {
    await run(args, hre);
  } catch (error) {
    if (!(error instanceof StartError)) throw error;
    console.error(`Error: ${error.message}`);
    process.exitCode = 1;
  }
}

async function run(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  if (args.noAuth && !isLoopbackHost(args.host)) {
    throw new StartError(
      `--no-auth is refused on ${args.host}: it would let anyone on the network call the service. Bind to 127.0.0.1 or use API keys.`,
    );
  }
  const settings = checkedSettings();
  const blockTimeSeconds = args.blockTime === undefined ? undefined : parseNonNegative(args.blockTime, "--block-time");
  const waitTimeoutMs = args.waitTimeout === undefined ? undefined : parseNonNegative(args.waitTimeout, "--wait-timeout") * 1000;
  const dataDir = args.dataDir ? path.resolve(args.dataDir) : hre.config.tokenService.dataDir;
  let chains: ChainRegistry;
  try {
    chains = projectChains(hre, process.env);
  } catch (error) {
    throw error instanceof EnvironmentError ? new StartError(error.message) : error;
  }
  const rpcUrls = liveEndpoints(hre, process.env, chains);
  try {
    // `--network` names one HTTP network to serve its pair, ahead of every other configuration of that pair.
    const selected = await selectedNetwork(hre, {}, chains);
    if (selected !== undefined) rpcUrls[`${selected.pair.chain}/${selected.pair.network}`] = selected.endpoint;
  } catch (error) {
    if (isTokenServiceError(error)) throw new StartError(error.message);
    throw error;
  }
  let server: Awaited<ReturnType<typeof createServer>>;
  try {
    server = await createServer({
      chains,
      simulatedChainFactory: hardhatSimulatedChains(hre),
      rpcUrls,
      feeCaps: hre.config.tokenService.feeCaps,
      replaceAfterBlocks: hre.config.tokenService.replaceAfterBlocks,
      dataDir,
      settings,
      blockTimeSeconds: blockTimeSeconds ?? hre.config.tokenService.blockTime,
      auth: !args.noAuth,
      ...(waitTimeoutMs !== undefined ? { waitTimeoutMs } : {}),
    });
  } catch (error) {
    // Another holder of the data directory, or a replica that would simulate private chains: one line, no stack trace.
    if (isTokenServiceError(error, "DATA_DIR_IN_USE") || error instanceof StartRefused) throw new StartError(error.message);
    throw error;
  }
  await makePrivate(dataDir);
  let http: Awaited<ReturnType<typeof listen>>;
  try {
    http = await listen(server, args.host, args.port);
  } catch (error) {
    // Closing releases the data directory's lock, so the next start on it succeeds.
    await server.close();
    throw listenFailure(error, args.host, args.port) ?? error;
  }
  const address = http.address();
  const port = typeof address === "object" && address !== null ? address.port : args.port;
  const base = `http://${args.host.includes(":") ? `[${args.host}]` : args.host}:${port}`;

  server.dataDirectory.announce(base);
  const keystore = await server.service.custody.status().then(
    ({ signer, state, reason }) =>
      `${signer === "aws-kms" ? "AWS KMS; imported keys: " : ""}local keystore ${state === "empty" ? "none yet" : state.toUpperCase()}${reason ? ` (${reason})` : ""}`,
    (error: unknown) => `local keystore not read yet (${(error as Error).message})`,
  );
  const lines = [`hardhat-token-service listening on ${base}`, ""];
  for (const pair of server.service.networks()) {
    const mode = pair.backend === "none" ? "NOT SERVED" : pair.kind === "bitcoin" ? "LIVE" : pair.simulated ? "SIMULATED" : "LIVE";
    const id = pair.chainId === undefined ? "" : `chain id ${pair.chainId}`;
    lines.push(`  ${`${pair.chain}/${pair.network}`.padEnd(30)} ${id.padEnd(18)} ${mode.padEnd(10)} ${pair.endpoint}`);
  }
  lines.push(
    "",
    `  docs        ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  database    ${server.store.kind} ${server.store.location}`,
    `  chains      ${path.join(dataDir, "chains")} (simulated chain state)`,
    ...server.journals.map(
      (journal) =>
        `              ${path.basename(journal.path)}: ${journal.entries} entries, ${(journal.bytes / 1024).toFixed(1)} KiB, replayed in ${(journal.milliseconds / 1000).toFixed(2)} s${journal.tornBytes > 0 ? ` (dropped a ${journal.tornBytes}-byte line cut short by a crash)` : ""}`,
    ),
    `  auth        ${args.noAuth ? "OFF (--no-auth, loopback only)" : "API key required (x-api-key header or apiKey query parameter; create one: npx hardhat apikey:create)"}`,
    `  signer      ${keystore}: held wallets' keys (docs/custody.md)`,
    ...(settings.chainFaults
      ? [
          `  faults      ON (TOKEN_SERVICE_CHAIN_FAULTS=on): simulated chains misbehave on request, ${base}/api/v1/chains/{chain}/{network}/faults`,
        ]
      : []),
  );
  console.log(lines.join("\n"));

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.log(`\n${signal}: finishing in-flight requests…`);
      shutdown(http, server).then(resolve, (error) => {
        console.error("shutdown failed:", error instanceof Error ? error.message : error);
        resolve();
      });
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  await makePrivate(dataDir);
  // Requests to a node that stopped answering keep their sockets after timing out; nothing of this process needs them now.
  httpAgent.destroy();
  httpsAgent.destroy();
  setTimeout(() => {
    console.error(`exiting: something still held the process ${EXIT_DEADLINE_MS / 1000} s after shutdown`);
    process.exit(process.exitCode ?? 0);
  }, EXIT_DEADLINE_MS).unref();
}
