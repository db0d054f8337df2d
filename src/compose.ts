import { bitcoinBackendsFromEnv } from "./chains/bitcoin/backends.js";
import { TokenService, type TokenServiceOptions } from "./core/token-service.js";

export type ComposeOptions = TokenServiceOptions;

/**
 * The one composition root: every door (the programmatic API, the Hardhat tasks, `serve`) builds its core here, from
 * what that door knows (its simulated-chain factory, endpoints, store and lock) and the environment for the rest.
 */
export function composeTokenService(options: ComposeOptions): TokenService {
  const env = options.env ?? process.env;
  const bitcoin =
    options.bitcoin ?? bitcoinBackendsFromEnv(env, options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {});
  return new TokenService({ ...options, env, bitcoin });
}
