import { z } from "zod/v4";

import {
  BUILT_IN_CHAINS,
  type ChainRegistry,
  DECLARED_CHAIN_REPLACE_AFTER_BLOCKS,
  feeCapEnvironmentVariable,
  REPLACE_AFTER_SECONDS,
  replaceAfterBlocksEnvironmentVariable,
  rpcEnvironmentVariable,
} from "../domain/chains.js";
import { DEFAULT_CEILING_MULTIPLE, parseGwei } from "../domain/fee-ladder.js";
import { ALL_DOORS_WITH_CHAINS, type VariableSpec } from "./variables.js";
import { url, urlList } from "./variable-values.js";

// The variables whose names vary: a family per chain/network pair (or Bitcoin network), and those a task's option
// names (`--private-key-env NAME`), each read by that task alone.

export const BITCOIN_NETWORKS = ["mainnet", "testnet", "signet", "regtest"] as const;

export function bitcoindVariable(network: string): string {
  return `TOKEN_SERVICE_BITCOIND_BITCOIN_${network.toUpperCase()}`;
}

/** The Blockscout instance of an EVM pair: `TOKEN_SERVICE_BLOCKSCOUT_ETHEREUM_SEPOLIA`. */
export function blockscoutVariable(chain: string, network: string): string {
  return `TOKEN_SERVICE_BLOCKSCOUT_${chain}_${network}`.toUpperCase();
}

export function esploraVariable(network: string): string {
  return `TOKEN_SERVICE_ESPLORA_BITCOIN_${network.toUpperCase()}`;
}

/** A family of variables: one per chain/network pair (or Bitcoin network), each read when its pair is first used. */
export interface VariableFamily extends VariableSpec<string | undefined> {
  /** Every name of the family, for the built-in chains or those of `chains`. */
  names(chains?: ChainRegistry): string[];
}

export const FAMILIES = {
  rpc: {
    name: "TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>",
    type: "http(s) URL of a JSON-RPC node, or several separated by commas",
    default: "unset: the pair is simulated in-process (unless the Hardhat config gives it an endpoint)",
    description:
      "A live endpoint for an EVM pair, e.g. `TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA`; it wins over `tokenService.rpc` and the Hardhat networks. Several, comma-separated, are tried in that order: a connection error, a timeout, HTTP 429 or 5xx moves a request to the next one, and an endpoint that keeps failing is skipped for a cool-down (`TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD`, `TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS`). Each node's chain id is checked before it is used; one that serves another chain is never used.",
    readBy: ALL_DOORS_WITH_CHAINS,
    secret: true,
    schema: urlList(["http:", "https:"], "https://sepolia.example.org/v2/KEY"),
    names: (chains = BUILT_IN_CHAINS) =>
      chains.all().flatMap((info) => (info.kind === "evm" ? [rpcEnvironmentVariable(info.chain, info.network)] : [])),
  },
  feeCap: {
    name: "TOKEN_SERVICE_FEE_CAP_<CHAIN>_<NETWORK>",
    type: "gwei > 0, up to 9 decimals (`30`, `0.05`)",
    default: `unset: no ceiling for a send; an operation's replacements go up to ${DEFAULT_CEILING_MULTIPLE} times its first max fee`,
    description:
      "The most an EVM pair's transactions may pay per gas (`maxFeePerGas`, or a legacy `gasPrice`), e.g. `TOKEN_SERVICE_FEE_CAP_ETHEREUM_MAINNET=40`: a send, prepare, speed-up or cancel that would need more is refused with `FEE_CAP_EXCEEDED` before anything is signed, and a stuck transaction's replacements climb up to it (docs/operations.md#stuck-transactions). It wins over `tokenService.feeCaps`.",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: z
      .string()
      .trim()
      .refine((value) => (parseGwei(value) ?? 0n) > 0n, "must be a number of gwei above 0, like 30 or 0.05")
      .optional(),
    names: (chains = BUILT_IN_CHAINS) =>
      chains.all().flatMap((info) => (info.kind === "evm" ? [feeCapEnvironmentVariable(info.chain, info.network)] : [])),
  },
  replaceAfterBlocks: {
    name: "TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_<CHAIN>_<NETWORK>",
    type: "whole number ≥ 1",
    default: `about ${REPLACE_AFTER_SECONDS} s of the chain's blocks (ethereum 3, polygon, base, optimism and avalanche 18, binance_smart_chain 48, arbitrum 144; a declared chain ${DECLARED_CHAIN_REPLACE_AFTER_BLOCKS})`,
    description:
      "How many blocks a pending transaction of an EVM pair waits for inclusion before the service replaces it at the same nonce with higher fees (a key-in-body send's next signed step), or, when it has none left, says it is stuck (`operation.stuck`). It wins over `tokenService.replaceAfterBlocks`.",
    readBy: ALL_DOORS_WITH_CHAINS,
    schema: z
      .string()
      .trim()
      .regex(/^[1-9]\d{0,5}$/, "must be a whole number of blocks, 1 or more")
      .optional(),
    names: (chains = BUILT_IN_CHAINS) =>
      chains.all().flatMap((info) => (info.kind === "evm" ? [replaceAfterBlocksEnvironmentVariable(info.chain, info.network)] : [])),
  },
  blockscout: {
    name: "TOKEN_SERVICE_BLOCKSCOUT_<CHAIN>_<NETWORK>",
    type: "http(s) URL of a Blockscout instance",
    default: "unset: verification on Blockscout is refused for the pair (`EXPLORER_NOT_CONFIGURED`)",
    description:
      "The Blockscout instance of an EVM pair, e.g. `TOKEN_SERVICE_BLOCKSCOUT_ETHEREUM_SEPOLIA=https://eth-sepolia.blockscout.com`: verifications with `explorer: blockscout` are submitted to its Etherscan-compatible API (`/api`), and its contract pages are linked.",
    readBy: ["serve", "createServer", "verifyTask"],
    schema: url(["http:", "https:"], "https://eth-sepolia.blockscout.com"),
    names: (chains = BUILT_IN_CHAINS) =>
      chains.all().flatMap((info) => (info.kind === "evm" ? [blockscoutVariable(info.chain, info.network)] : [])),
  },
  bitcoind: {
    name: "TOKEN_SERVICE_BITCOIND_BITCOIN_<NETWORK>",
    type: "http(s) URL of bitcoind's RPC, with its credentials",
    default: "unset: Esplora",
    description:
      "A bitcoind node (`http://user:password@host:port`) for a Bitcoin network: mainnet, testnet, signet or regtest. Needed for the regtest faucet.",
    readBy: ALL_DOORS_WITH_CHAINS,
    secret: true,
    schema: url(["http:", "https:"], "http://user:password@host:port"),
    names: () => BITCOIN_NETWORKS.map(bitcoindVariable),
  },
  esplora: {
    name: "TOKEN_SERVICE_ESPLORA_BITCOIN_<NETWORK>",
    type: "http(s) URL of an Esplora API",
    default: "mempool.space's public API for mainnet, testnet (testnet4) and signet; none for regtest",
    description: "The Esplora API a Bitcoin network's balances are read from, when no bitcoind is configured for it.",
    readBy: ALL_DOORS_WITH_CHAINS,
    secret: true,
    schema: url(["http:", "https:"], "https://mempool.space/api"),
    names: () => BITCOIN_NETWORKS.map(esploraVariable),
  },
} as const satisfies Record<string, VariableFamily>;

export type FamilyName = keyof typeof FAMILIES;

/** The variable a signing task's `--private-key-env NAME` names: read by that task alone, never printed. */
export const PRIVATE_KEY_VARIABLE: VariableSpec<string | undefined> = {
  name: "the NAME given to `--private-key-env`",
  type: "32-byte hex private key, 0x optional",
  default: "unset: the key of `--sender` among the selected Hardhat network's accounts",
  description: "The sender's signing key, kept off the command line (and out of shell history and process lists).",
  readBy: ["signingTasks"],
  secret: true,
  schema: z.string().trim().optional(),
};

/** The variable `chain:fault --api-key-env NAME` names: the API key it calls `serve` with, never printed. */
export const API_KEY_VARIABLE: VariableSpec<string | undefined> = {
  name: "the NAME given to `--api-key-env`",
  type: "an API key of the running service",
  default: "unset: no key (a `serve --no-auth`)",
  description: "The key `chain:fault` sends to the `serve` whose chain it disturbs, kept off the command line.",
  readBy: ["faultTask"],
  secret: true,
  schema: z.string().trim().optional(),
};

/** The variable `custody:restore --mnemonic-env NAME` names: the seed's backed-up words, kept off the command line. */
export const MNEMONIC_VARIABLE: VariableSpec<string | undefined> = {
  name: "the NAME given to `--mnemonic-env`",
  type: "24 BIP-39 words (English), as `custody:backup` printed them",
  default: "unset: `custody:restore` refuses",
  description: "The keystore's seed, for `custody:restore` to make the keystore from, kept off the command line.",
  readBy: ["custodyTasks"],
  secret: true,
  schema: z.string().trim().optional(),
};

/** The variable `custody:passphrase --new-passphrase-env NAME` names: the keystore's next passphrase. */
export const NEW_PASSPHRASE_VARIABLE: VariableSpec<string | undefined> = {
  name: "the NAME given to `--new-passphrase-env`",
  type: "text, at least 12 characters",
  default: "unset: `custody:passphrase` refuses",
  description:
    "The passphrase `custody:passphrase` encrypts the keystore under instead of TOKEN_SERVICE_KEYSTORE_PASSPHRASE; restart every `serve` with it as TOKEN_SERVICE_KEYSTORE_PASSPHRASE after.",
  readBy: ["custodyTasks"],
  secret: true,
  schema: z.string().min(12, "must be at least 12 characters (a long random passphrase)").optional(),
};
