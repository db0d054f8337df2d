import { bitcoinBackendsFromEnv } from "./chains/bitcoin/backends.js";
import { TokenService, type TokenServiceOptions } from "./core/token-service.js";
import { DataDirectory } from "./store/data-directory.js";
import { MemoryOperationStore } from "./store/memory-store.js";
import type { OperationStore } from "./core/operations/types.js";
import { chainRegistry } from "./config/chain-registry.js";

export type ComposeOptions = Omit<TokenServiceOptions, "operationStore"> & {
  /** Where launch, mint and faucet records live; default this process's memory (the HTTP service passes its database). */
  operationStore?: OperationStore;
  /** Simulated chains keep their state here between runs when set; `dataDirectory` (already claimed by its owner) wins. */
  dataDir?: string;
};

/**
 * The one composition root: every door (the programmatic API, the Hardhat tasks, `serve`) builds its core here, from
 * what that door knows (its chains, simulated-chain factory, endpoints, store and lock) and the environment for the
 * rest: a door without chains of its own serves the built-in ones and those of `TOKEN_SERVICE_CHAINS`.
 */
export function composeTokenService(options: ComposeOptions): TokenService {
  const env = options.env ?? process.env;
  const chains = options.chains ?? chainRegistry({ env });
  const bitcoin =
    options.bitcoin ?? bitcoinBackendsFromEnv(env, options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {});
  const { dataDir, ...rest } = options;
  // A data directory named by path is opened here, for this service alone, and released when it closes.
  const opened =
    options.dataDirectory === undefined && dataDir !== undefined
      ? new DataDirectory(dataDir, "a token service (programmatic API)")
      : undefined;
  return new TokenService({
    ...rest,
    env,
    bitcoin,
    chains,
    operationStore: options.operationStore ?? new MemoryOperationStore(),
    ...(opened !== undefined ? { dataDirectory: opened, releaseDataDirectory: true } : {}),
  });
}
