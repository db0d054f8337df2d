import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { CHAIN_NAMES, allNetworks, isChainName, resolveNetwork, type NetworkInfo } from "../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument, isTokenServiceError } from "../domain/errors.js";
import type { LazyEndpoint } from "../chains/evm/chain.js";
import { readEndpoint } from "../chains/evm/chains-registry.js";
import { askChainId } from "../chains/evm/live-chain.js";
import { hardhatNetworkEndpoint, pairOfChainId } from "./rpc-urls.js";

/** What a task was told: `--chain` and `--chain-network`, either may be missing. */
export interface PairOptions {
  chain?: string | undefined;
  network?: string | undefined;
}

export interface SelectedNetwork {
  /** The Hardhat network's name (`--network`). */
  name: string;
  pair: NetworkInfo & { chainId: number };
  endpoint: LazyEndpoint;
}

/** The field a task prints as `--network`. */
export const HARDHAT_NETWORK_FIELD = "hardhatNetwork";

const REQUEST_TIMEOUT_MS = 15_000;

function knownChainIds(): string {
  return allNetworks()
    .filter((info) => info.kind === "evm")
    .map((info) => `${info.chainId} (${info.chain}/${info.network})`)
    .join(", ");
}

function unknownChainId(name: string, chainId: number, how: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.UNSUPPORTED_NETWORK,
    `Hardhat network ${name} ${how} chain id ${chainId}, which is none of the service's pairs: ${knownChainIds()}`,
    { field: HARDHAT_NETWORK_FIELD, details: { chainId } },
  );
}

/** The service's pairs a network name names, e.g. sepolia → ethereum/sepolia (testnet names one per chain). */
function pairsNamed(network: string, chain: string | undefined): NetworkInfo[] {
  const chains = chain !== undefined && isChainName(chain) ? [chain] : CHAIN_NAMES;
  return chains.flatMap((name) => {
    try {
      return [resolveNetwork(name, network)];
    } catch {
      return [];
    }
  });
}

/**
 * For `--network sepolia` typed where `--chain-network sepolia` was meant: which options select the service's own
 * pair, and that `--network` selects a Hardhat network instead.
 */
export function chainNetworkHint(name: string, options: PairOptions, what = "a live node"): string {
  // The pairs the network's name names (sepolia), else those the options name.
  const [network, pairs] = ((): [string, NetworkInfo[]] => {
    const named = pairsNamed(name, options.chain);
    if (named.length > 0 || options.network === undefined) return [name, named];
    return [options.network, pairsNamed(options.network, options.chain)];
  })();
  const [only] = pairs;
  const chain = pairs.length === 1 ? only!.chain : pairs.length > 1 ? `<${pairs.map((pair) => pair.chain).join("|")}>` : "CHAIN";
  const pair = pairs.length === 1 ? `the service's ${only!.chain}/${only!.network} pair` : "one of the service's pairs";
  return (
    `Hint: --network selects a Hardhat network (here ${name}, ${what}); ` +
    `--chain ${chain} --chain-network ${pairs.length > 0 ? network : "NETWORK"} without --network selects ${pair}, ` +
    "simulated in-process unless an endpoint is configured for it."
  );
}

/** `--chain` and `--chain-network` may be left out after `--network`; given, they must name its pair. */
function checkAgreement(selected: SelectedNetwork, options: PairOptions): void {
  const { chain, network, chainId } = selected.pair;
  const is = `--network ${selected.name} is ${chain}/${network} (chain id ${chainId})`;
  if (options.chain && options.chain !== chain) {
    throw invalidArgument(
      "chain",
      `--chain ${options.chain} disagrees with --network ${selected.name}: ${is}; omit --chain or make it agree`,
    );
  }
  if (options.network) {
    let named: string | undefined;
    try {
      named = resolveNetwork(chain, options.network).network;
    } catch {
      named = undefined;
    }
    if (named !== network) {
      throw invalidArgument(
        "network",
        `--chain-network ${options.network} disagrees with --network ${selected.name}: ${is}; omit --chain-network or make it agree`,
      );
    }
  }
}

/** The pair a Hardhat network serves: its configured `chainId`, else the pair options, else the node's answer to `eth_chainId`. */
async function pairOfNetwork(
  name: string,
  configuredChainId: number | undefined,
  endpoint: LazyEndpoint,
  url: string,
  options: PairOptions,
): Promise<NetworkInfo & { chainId: number }> {
  if (configuredChainId !== undefined) {
    const pair = pairOfChainId(configuredChainId);
    if (pair === undefined) throw unknownChainId(name, configuredChainId, "is configured with");
    return pair as NetworkInfo & { chainId: number };
  }
  if (options.chain && options.network) {
    // The node's chain id is checked when the pair connects: a node of another chain is refused (CHAIN_ID_MISMATCH).
    const pair = resolveNetwork(options.chain, options.network);
    if (pair.kind !== "evm" || pair.chainId === undefined) {
      throw invalidArgument("chain", `--network ${name} is a Hardhat HTTP network, an EVM node: it cannot serve ${pair.chain}`);
    }
    return pair as NetworkInfo & { chainId: number };
  }
  const chainId = await askChainId(url, {
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    upstream: `the node of Hardhat network ${name}`,
    ...(endpoint.headers ? { headers: endpoint.headers } : {}),
  });
  const pair = pairOfChainId(chainId);
  if (pair === undefined) throw unknownChainId(name, chainId, "serves");
  return pair as NetworkInfo & { chainId: number };
}

/**
 * The Hardhat network chosen with `--network`, when it is an HTTP network: its pair goes live through its `url`,
 * ahead of every other configuration of that pair. Undefined for a simulated (`edr-simulated`) network. Choosing it
 * uses it: its url is read now, and a configuration variable without a value is an error naming it.
 */
export async function selectedNetwork(hre: HardhatRuntimeEnvironment, options: PairOptions): Promise<SelectedNetwork | undefined> {
  const name = hre.globalOptions.network;
  if (name === undefined) return undefined;
  const config = hre.config.networks[name];
  if (config === undefined) {
    throw new TokenServiceError(
      ErrorCode.UNSUPPORTED_NETWORK,
      `--network ${name} is no Hardhat network of this project (it has: ${Object.keys(hre.config.networks).join(", ")}). ${chainNetworkHint(name, options, "which this project does not configure")}`,
      { field: HARDHAT_NETWORK_FIELD },
    );
  }
  if (config.type !== "http") return undefined;
  const configured = hardhatNetworkEndpoint(hre, name, config);
  let url: string;
  try {
    url = await readEndpoint(`--network ${name} connects`, configured, HARDHAT_NETWORK_FIELD);
  } catch (error) {
    // Asked for a variable the user may never have meant to set: say how to reach the pair without that network.
    if (!isTokenServiceError(error, ErrorCode.BACKEND_NOT_CONFIGURED)) throw error;
    throw new TokenServiceError(error.code, `${error.message}. ${chainNetworkHint(name, options)}`, {
      field: HARDHAT_NETWORK_FIELD,
      ...(error.details ? { details: error.details } : {}),
    });
  }
  const pair = await pairOfNetwork(name, config.chainId, configured, url, options);
  const selected = { name, pair, endpoint: { ...configured, get: async () => url } };
  checkAgreement(selected, options);
  return selected;
}
