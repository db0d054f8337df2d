import { BITCOIN_NETWORKS, bitcoindVariable, esploraVariable } from "../../config/variable-families.js";
import { EnvironmentError, readFamilyVariable } from "../../config/environment.js";
import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import type { BitcoinBackend, BitcoinBackends } from "./backend.js";
import { BitcoindBackend } from "./bitcoind.js";
import { parseBitcoindUrl } from "./bitcoind-rpc.js";
import { DEFAULT_ESPLORA_URLS, EsploraBackend } from "./esplora.js";

export { BITCOIN_NETWORKS, bitcoindVariable, esploraVariable };

export interface BitcoinBackendsOptions {
  /** Bound of one request to a backend. */
  timeoutMs?: number;
}

/** A backend whose variable is set but unusable: every call says which variable to fix. */
function misconfigured(kind: "esplora" | "bitcoind", variable: string, error: TokenServiceError): BitcoinBackend {
  return {
    kind,
    endpoint: `misconfigured (fix ${variable})`,
    getBalance: () => Promise.reject(error),
    listUnspent: () => Promise.reject(error),
    broadcast: () => Promise.reject(error),
    transactionStatus: () => Promise.reject(error),
    transactionHex: () => Promise.reject(error),
    feeRate: () => Promise.reject(error),
    tipHeight: () => Promise.reject(error),
    tip: () => Promise.reject(error),
    blockHeader: () => Promise.reject(error),
    blockTransactions: () => Promise.reject(error),
    ping: () => Promise.reject(error),
  };
}

/**
 * Per network: bitcoind when `TOKEN_SERVICE_BITCOIND_BITCOIN_<NETWORK>` is set,
 * else Esplora (`TOKEN_SERVICE_ESPLORA_BITCOIN_<NETWORK>`, or mempool.space's
 * public API; none for regtest). Backends are built on first use.
 */
export function bitcoinBackendsFromEnv(env: NodeJS.ProcessEnv, options: BitcoinBackendsOptions = {}): BitcoinBackends {
  const built = new Map<string, BitcoinBackend | undefined>();

  /** A family variable through the environment schema; a bad value becomes a backend that names it on every call. */
  const read = (family: "bitcoind" | "esplora", variable: string): { value?: string; refusal?: BitcoinBackend } => {
    try {
      const value = readFamilyVariable(env, family, variable);
      return value === undefined ? {} : { value };
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      const refusal = new TokenServiceError(ErrorCode.BACKEND_NOT_CONFIGURED, error.message, { field: "network", details: { variable } });
      return { refusal: misconfigured(family, variable, refusal) };
    }
  };

  const build = (network: string): BitcoinBackend | undefined => {
    const bitcoind = read("bitcoind", bitcoindVariable(network));
    if (bitcoind.refusal) return bitcoind.refusal;
    if (bitcoind.value !== undefined) {
      try {
        const connection = parseBitcoindUrl(bitcoind.value, bitcoindVariable(network));
        return new BitcoindBackend({ network, connection, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
      } catch (error) {
        if (error instanceof TokenServiceError) return misconfigured("bitcoind", bitcoindVariable(network), error);
        throw error;
      }
    }
    const esplora = read("esplora", esploraVariable(network));
    if (esplora.refusal) return esplora.refusal;
    const override = esplora.value;
    const baseUrl = override ?? DEFAULT_ESPLORA_URLS[network];
    if (baseUrl === undefined) return undefined;
    try {
      return new EsploraBackend({
        baseUrl,
        ...(override ? {} : { endpoint: baseUrl }),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
    } catch {
      return misconfigured(
        "esplora",
        esploraVariable(network),
        new TokenServiceError(
          ErrorCode.BACKEND_NOT_CONFIGURED,
          `${esploraVariable(network)} must be an http(s) URL like https://mempool.space/api`,
          { field: "network" },
        ),
      );
    }
  };

  const get = (network: string): BitcoinBackend | undefined => {
    if (!(BITCOIN_NETWORKS as readonly string[]).includes(network)) return undefined;
    if (!built.has(network)) built.set(network, build(network));
    return built.get(network);
  };

  return {
    get,
    configurationHint: (network) =>
      network === "regtest" ? bitcoindVariable(network) : `${bitcoindVariable(network)} (or ${esploraVariable(network)})`,
    describe: (network) => {
      const backend = get(network);
      return backend === undefined ? undefined : { backend: backend.kind, endpoint: backend.endpoint };
    },
    close: async () => {
      await Promise.all([...built.values()].map((backend) => backend?.close?.()));
    },
  };
}
