import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { configuredRpcUrls } from "../src/internal/rpc-urls.js";
import { hardhatSimulatedChains } from "../src/internal/simulated-chains.js";
import { createServer } from "../src/server/app.js";
import { isLoopbackHost, listen, shutdown } from "../src/server/listen.js";

interface Args {
  host: string;
  port: number;
  dataDir?: string;
  blockTime?: string;
  noAuth?: boolean;
  waitTimeout?: string;
}

function parseNonNegative(value: string, option: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${option} must be a number of seconds, 0 or more (got "${value}")`);
  return parsed;
}

export default async function serve(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  if (args.noAuth && !isLoopbackHost(args.host)) {
    console.error(`Error: --no-auth is refused on ${args.host}: it would let anyone on the network call the service. Bind to 127.0.0.1 or use API keys.`);
    process.exitCode = 1;
    return;
  }
  const dataDir = args.dataDir ? path.resolve(args.dataDir) : hre.config.tokenService.dataDir;
  const server = await createServer({
    simulatedChainFactory: hardhatSimulatedChains(hre),
    rpcUrls: await configuredRpcUrls(hre),
    dataDir,
    blockTimeSeconds: hre.config.tokenService.blockTime,
    auth: !args.noAuth,
    ...(args.blockTime !== undefined ? { blockTimeSeconds: parseNonNegative(args.blockTime, "--block-time") } : {}),
    ...(args.waitTimeout !== undefined ? { waitTimeoutMs: parseNonNegative(args.waitTimeout, "--wait-timeout") * 1000 } : {}),
  });
  const http = await listen(server, args.host, args.port);
  const address = http.address();
  const port = typeof address === "object" && address !== null ? address.port : args.port;
  const base = `http://${args.host.includes(":") ? `[${args.host}]` : args.host}:${port}`;

  server.dataDirectory.announce(base);
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
    `  auth        ${args.noAuth ? "OFF (--no-auth, loopback only)" : "API key required (apiKey query parameter or x-api-key header)"}`,
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
}
