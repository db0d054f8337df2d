import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import type { AmountPair } from "../../domain/units.js";

export interface BitcoinBalance extends AmountPair {
  confirmed: AmountPair;
  unconfirmed: AmountPair;
}

/** A source of Bitcoin balances for one network: Esplora REST or Bitcoin Core JSON-RPC. */
export interface BitcoinBackend {
  readonly kind: "esplora" | "bitcoind";
  /** Where it lives, safe to print (no credentials). */
  readonly endpoint: string;
  getBalance(address: string): Promise<BitcoinBalance>;
  /** Readiness probe: resolves when the backend answers. */
  ping?(): Promise<void>;
  /** Regtest only: sends `amount` satoshis from a node wallet and mines a block. */
  fund?(address: string, amount: bigint): Promise<{ transactionHash: string }>;
  close?(): Promise<void>;
}

export interface BitcoinBackends {
  /** The backend for a network, or undefined when none is configured. */
  get(network: string): BitcoinBackend | undefined;
  /** The environment variables that configure a network, for error messages. */
  configurationHint(network: string): string;
  describe(network: string): { backend: string; endpoint: string } | undefined;
  close(): Promise<void>;
}

/** Until backends are configured every Bitcoin balance read says what to set. */
export const noBitcoinBackends: BitcoinBackends = {
  get: () => undefined,
  configurationHint: (network) =>
    `TOKEN_SERVICE_BITCOIND_BITCOIN_${network.toUpperCase()} or TOKEN_SERVICE_ESPLORA_BITCOIN_${network.toUpperCase()}`,
  describe: () => undefined,
  close: async () => undefined,
};

/** The backend configured for a network, or BACKEND_NOT_CONFIGURED naming what to set. */
export function requireBitcoinBackend(backends: BitcoinBackends, network: string): BitcoinBackend {
  const backend = backends.get(network);
  if (backend === undefined) {
    throw new TokenServiceError(
      ErrorCode.BACKEND_NOT_CONFIGURED,
      `no backend configured for bitcoin/${network}: set ${backends.configurationHint(network)}`,
      { field: "network" },
    );
  }
  return backend;
}
