import type { AbstractProvider } from "ethers";

import type { NetworkInfo } from "../../domain/chains.js";
import type { EndpointProbe, EndpointStatus } from "./endpoint-pool.js";
import type { ChainFaults } from "./faults.js";
import type { HeadFollower } from "./follow/head-follower.js";

export type EvmNetworkInfo = NetworkInfo & { chainId: number };

/** One EVM (chain, network) pair, simulated in-process or live over JSON-RPC. */
export interface EvmChain {
  readonly info: EvmNetworkInfo;
  readonly simulated: boolean;
  /** Where the chain lives, safe to print: "in-process EDR" or the endpoint without credentials. */
  readonly endpoint: string;
  readonly provider: AbstractProvider;
  /**
   * Names the state a read at "latest" sees, cheaply and without asking a node: equal names, equal answers. Absent
   * where only the node knows when its state changed (live networks): there every read asks the node.
   */
  stateVersion?(): string | Promise<string>;
  /**
   * A JSON-RPC request straight to an in-process node, past ethers' request queue (which waits for a timer, about a
   * millisecond, before every request made on its own). Absent for nodes over the network.
   */
  rpc?(method: string, params: unknown[]): Promise<unknown>;
  /**
   * Several JSON-RPC calls to a node over the network in one request, each settling as the node answered it (errors
   * typed as ethers types them). Absent for in-process nodes.
   */
  requestAll?(calls: ReadonlyArray<{ method: string; params: unknown[] }>): Promise<Array<PromiseSettledResult<unknown>>>;
  /** How often to poll for receipts. */
  readonly pollingIntervalMs: number;
  /**
   * A live chain's head follower: what is read of its blocks (heads, hashes, receipts, the base fee) is read through it,
   * once per block. Absent on simulated chains (the service's own node, asked in-process).
   */
  readonly follower?: HeadFollower;
  /** Sends a signed transaction and resolves with its hash once the node accepted it. */
  broadcast(signedTransaction: string): Promise<string>;
  /**
   * Sends several at once, in this order, each settling as the node accepted or refused it. Only on a chain that takes
   * requests in the order they are made and mines each transaction as it accepts it, so that a refused one leaves no
   * later one waiting in a pool (a simulated chain mining on send); elsewhere undefined (see `broadcastBatch`).
   */
  broadcastAll?: ((signedTransactions: string[]) => Promise<Array<PromiseSettledResult<string>>>) | undefined;
  /**
   * Sends several in one request (a JSON-RPC batch), in this order, each settling as the node accepted or refused it; a
   * failure of the whole request (no answer) settles each with it. The node may take a batch's items in any order: its
   * pool holds a sender's higher nonce until the lower one comes. A refused one leaves the later ones it took waiting
   * there. Live nodes only.
   */
  broadcastBatch?(signedTransactions: string[]): Promise<Array<PromiseSettledResult<string>>>;
  /** Gives native currency to an address; only simulated chains have it. `grantId` names the grant in the chain's history. */
  fund?(address: string, amount: bigint, grantId?: string): Promise<bigint>;
  /** Whether the grant named `grantId` is part of the chain (a process that died mid-grant may not have made it). */
  hasGrant?(grantId: string): boolean;
  /** A live pair's endpoints, in the order requests try them, each with its state; absent on simulated chains. */
  endpointStatuses?(): EndpointStatus[];
  /** Asks each endpoint for its latest block within `timeoutMs` (a health check); absent on simulated chains. */
  probeEndpoints?(timeoutMs: number): Promise<EndpointProbe[]>;
  /** A simulated chain started with faults on: what makes it misbehave on purpose. */
  readonly faults?: ChainFaults | undefined;
  close(): Promise<void>;
}

/**
 * Whether fees can leave a transaction sent to the chain waiting unmined: on a live node, and on a simulated chain with
 * faults on (a fee spike, a stall). A simulated chain without faults includes every transaction at its next block.
 */
export function transactionsCanWait(chain: EvmChain): boolean {
  return !chain.simulated || chain.faults !== undefined;
}

/** An endpoint read only when its pair is first used, such as a configuration variable, and where it was configured. */
export interface LazyEndpoint {
  /** The configuration variable that holds the URL, named when it has no value; absent when the URL is written out. */
  variable?: string;
  /** The host of a URL written out, fit to print without reading anything. */
  host?: string;
  /** Where the endpoint was configured, said wherever the pair is shown: "Hardhat network sepolia", "tokenService.rpc". */
  origin?: string;
  /** Headers every request to it carries (a Hardhat network's `httpHeaders`, often a key): never printed. */
  headers?: Record<string, string>;
  get(): Promise<string>;
}

/**
 * A pair's live endpoint as configured: a URL, a lazy endpoint, or several of them, tried in that order (see
 * EndpointPool).
 */
export type EndpointSource = string | LazyEndpoint | ReadonlyArray<string | LazyEndpoint>;

/** Told of every call to a node: the pair ("ethereum/sepolia"), the JSON-RPC method, its duration and whether it answered. */
export type NodeCallObserver = (pair: string, method: string, seconds: number, ok: boolean) => void;

/** An EIP-1193 connection to a fresh in-process chain with the pair's chain id, mining on send. */
export interface SimulatedChainConnection {
  provider: { request(args: { method: string; params?: unknown[] }): Promise<unknown> };
  close(): Promise<void>;
  /** True when the chain was made with the genesis it was asked for; otherwise its accounts are set one call at a time. */
  genesisApplied?: boolean;
}

/** Accounts a fresh chain holds from its genesis block on: a checkpoint's state (see checkpoint.ts). */
export interface SimulatedGenesis {
  accounts: Array<{ address: string; balance: bigint; nonce: bigint; code?: string; storage?: Array<[slot: string, value: string]> }>;
}

/** Makes simulated chains; the core knows no Hardhat, the plugin supplies one backed by Hardhat's EDR. */
export type SimulatedChainFactory = (info: EvmNetworkInfo, genesis?: SimulatedGenesis) => Promise<SimulatedChainConnection>;
