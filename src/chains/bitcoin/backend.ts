import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import type { AmountPair } from "../../domain/units.js";

export interface BitcoinBalance extends AmountPair {
  confirmed: AmountPair;
  unconfirmed: AmountPair;
}

/** An unspent output of an address. */
export interface BitcoinUtxo {
  txid: string;
  vout: number;
  /** Satoshis. */
  value: bigint;
  /** Blocks since it was mined, counting its own; 0 while its transaction waits in the mempool. */
  confirmations: number;
  /** The output's script, hex, when the backend tells it (bitcoind does, Esplora does not). */
  scriptPubKey?: string;
}

/**
 * Where a transaction stands as the backend sees it now. `unknown`: neither in its mempool nor in its best chain
 * (never arrived, evicted, replaced, or its block was reorganised away and it did not return to the mempool).
 */
export type BitcoinTransactionStatus =
  { state: "mempool" } | { state: "confirmed"; blockHeight: number; blockHash: string; confirmations: number } | { state: "unknown" };

/** A block of the best chain, as a notification scan follows it: where it is and what it follows. */
export interface BitcoinBlockHeader {
  height: number;
  hash: string;
  /** The previous block's hash; 64 zeros for the genesis block. */
  previousHash: string;
}

/** An output a transaction pays, or one its input spends: to whom (null for a script with no address) and how much. */
export interface BitcoinOutput {
  /** The address its script pays; null when the script has none (OP_RETURN, bare multisig, non-standard). */
  address: string | null;
  /** Satoshis. */
  value: bigint;
}

/** A transaction of a block: its outputs, and for each input the output it spends (null for the coinbase's). */
export interface BitcoinBlockTransaction {
  txid: string;
  /** The outputs its inputs spend, in input order; a coinbase has one null. */
  inputs: Array<BitcoinOutput | null>;
  /** Its outputs, in order: `vout` is the index. */
  outputs: Array<BitcoinOutput & { vout: number }>;
}

/** The genesis block's previous hash. */
export const NO_PREVIOUS_BLOCK = "0".repeat(64);

/** A source of Bitcoin balances, coins, transactions and fee rates for one network: Esplora REST or Bitcoin Core JSON-RPC. */
export interface BitcoinBackend {
  readonly kind: "esplora" | "bitcoind";
  /** Where it lives, safe to print (no credentials). */
  readonly endpoint: string;
  getBalance(address: string): Promise<BitcoinBalance>;
  /** The address's unspent outputs, mempool ones included; outputs a mempool transaction spends are left out. */
  listUnspent(address: string): Promise<BitcoinUtxo[]>;
  /**
   * Sends a signed transaction (hex) to the network and answers its txid; a transaction the node already holds (in
   * its mempool or chain) answers the same. A refusal is TRANSACTION_REJECTED with `details.reason` and
   * `details.retryable` (broadcast-refusals.ts: broadcastOutcome tells final from try-again); not answering is
   * UPSTREAM_UNAVAILABLE or UPSTREAM_TIMEOUT, after which the node may or may not hold it.
   */
  broadcast(rawHex: string): Promise<string>;
  transactionStatus(txid: string): Promise<BitcoinTransactionStatus>;
  /** The full transaction, hex, or undefined when the backend cannot find it (a p2pkh input needs its previous transaction). */
  transactionHex(txid: string): Promise<string | undefined>;
  /** sat/vB to confirm within `targetBlocks`, never below what the backend relays (1 sat/vB when it has no estimate). */
  feeRate(targetBlocks: number): Promise<number>;
  /** The height of the best block. */
  tipHeight(): Promise<number>;
  /** The best block: its height and hash (read together, so that they agree). Block reads: chain notifications. */
  tip?(): Promise<{ height: number; hash: string }>;
  /** The best chain's block at `height`; undefined above the tip. */
  blockHeader?(height: number): Promise<BitcoinBlockHeader | undefined>;
  /** The transactions of the block `hash`, in block order, each input with the output it spends. */
  blockTransactions?(hash: string): Promise<BitcoinBlockTransaction[]>;
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
