import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { ChainRegistry, NetworkInfo } from "../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument, isTokenServiceError } from "../domain/errors.js";
import type { LazyEndpoint } from "../chains/evm/chain.js";
import { readEndpoint } from "../chains/evm/chains-registry.js";
import { askChainId } from "../chains/evm/live-chain.js";
import { hardhatNetworkEndpoint } from "./rpc-urls.js";

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

/** A chain name (lowercase, digits, underscores) made from a Hardhat network's name: lineaSepolia → linea_sepolia. */
function suggestedChainName(network: string): string {
  const name = network
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 40);
  return /^[a-z]/.test(name) ? name : `chain_${name}`.slice(0, 40);
}

/**
 * A chain id no pair has: the service does not guess a chain from it (its currency, and the name its records keep),
 * it says how to declare one, in the Hardhat config or in the environment, ready to paste.
 */
function unknownChainId(chains: ChainRegistry, name: string, chainId: number, how: string): TokenServiceError {
  const suggested = suggestedChainName(name);
  // A network named like a chain the service has (base) but serving another chain id needs a name of its own.
  const chain = chains.isChain(suggested) ? `${suggested.slice(0, 30)}_${chainId}`.slice(0, 40) : suggested;
  const declaration = { [chain]: { nativeSymbol: "ETH", nativeDecimals: 18, networks: { mainnet: { chainId } } } };
  return new TokenServiceError(
    ErrorCode.UNSUPPORTED_NETWORK,
    `Hardhat network ${name} ${how} chain id ${chainId}, which no chain of the service has. Declare the chain, with its ` +
      `currency's symbol and decimals and names of your choice, in hardhat.config.ts: tokenService: { chains: { ${chain}: ` +
      `{ nativeSymbol: "ETH", nativeDecimals: 18, networks: { mainnet: { chainId: ${chainId} } } } } }, or in the environment: ` +
      `TOKEN_SERVICE_CHAINS='${JSON.stringify(declaration)}'; then --network ${name} serves ${chain}/mainnet (docs/chains/custom.md)`,
    { field: HARDHAT_NETWORK_FIELD, details: { chainId } },
  );
}

/** The service's pairs a network name names, e.g. sepolia → ethereum/sepolia, base/sepolia, … (testnet names one per chain). */
function pairsNamed(chains: ChainRegistry, network: string, chain: string | undefined): NetworkInfo[] {
  const names = chain !== undefined && chains.isChain(chain) ? [chain] : chains.names;
  return names.flatMap((name) => {
    try {
      return [chains.resolve(name, network)];
    } catch {
      return [];
    }
  });
}

/**
 * For `--network sepolia` typed where `--chain-network sepolia` was meant: which options select the service's own
 * pair, and that `--network` selects a Hardhat network instead.
 */
export function chainNetworkHint(chains: ChainRegistry, name: string, options: PairOptions, what = "a live node"): string {
  // The pairs the network's name names (sepolia), else those the options name.
  const [network, pairs] = ((): [string, NetworkInfo[]] => {
    const named = pairsNamed(chains, name, options.chain);
    if (named.length > 0 || options.network === undefined) return [name, named];
    return [options.network, pairsNamed(chains, options.network, options.chain)];
  })();
  // Several chains may have a network of that name (sepolia): the first (ethereum's) is named, the others listed.
  const [first, ...others] = pairs;
  const chain = first?.chain ?? "CHAIN";
  const pair = first === undefined ? "one of the service's pairs" : `the service's ${first.chain}/${first.network} pair`;
  const alsoOn =
    others.length === 0
      ? ""
      : ` (${others.map((other) => other.chain).join(", ")} ${others.length === 1 ? "has" : "have"} one too: --chain ${others[0]!.chain} …)`;
  return (
    `Hint: --network selects a Hardhat network (here ${name}, ${what}); ` +
    `--chain ${chain} --chain-network ${first !== undefined ? network : "NETWORK"} without --network selects ${pair}${alsoOn}, ` +
    "simulated in-process unless an endpoint is configured for it."
  );
}

/** `--chain` and `--chain-network` may be left out after `--network`; given, they must name its pair. */
function checkAgreement(chains: ChainRegistry, selected: SelectedNetwork, options: PairOptions): void {
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
      named = chains.resolve(chain, options.network).network;
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
  chains: ChainRegistry,
  name: string,
  configuredChainId: number | undefined,
  endpoint: LazyEndpoint,
  url: string,
  options: PairOptions,
): Promise<NetworkInfo & { chainId: number }> {
  if (configuredChainId !== undefined) {
    const pair = chains.pairOfChainId(configuredChainId);
    if (pair === undefined) throw unknownChainId(chains, name, configuredChainId, "is configured with");
    return pair;
  }
  if (options.chain && options.network) {
    // The node's chain id is checked when the pair connects: a node of another chain is refused (CHAIN_ID_MISMATCH).
    const pair = chains.resolve(options.chain, options.network);
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
  const pair = chains.pairOfChainId(chainId);
  if (pair === undefined) throw unknownChainId(chains, name, chainId, "serves");
  return pair;
}

/**
 * The Hardhat network chosen with `--network`, when it is an HTTP network: its pair goes live through its `url`,
 * ahead of every other configuration of that pair. Undefined for a simulated (`edr-simulated`) network. Choosing it
 * uses it: its url is read now, and a configuration variable without a value is an error naming it.
 */
export async function selectedNetwork(
  hre: HardhatRuntimeEnvironment,
  options: PairOptions,
  chains: ChainRegistry,
): Promise<SelectedNetwork | undefined> {
  const name = hre.globalOptions.network;
  if (name === undefined) return undefined;
  const config = hre.config.networks[name];
  if (config === undefined) {
    throw new TokenServiceError(
      ErrorCode.UNSUPPORTED_NETWORK,
      `--network ${name} is no Hardhat network of this project (it has: ${Object.keys(hre.config.networks).join(", ")}). ${chainNetworkHint(chains, name, options, "which this project does not configure")}`,
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
    throw new TokenServiceError(error.code, `${error.message}. ${chainNetworkHint(chains, name, options)}`, {
      field: HARDHAT_NETWORK_FIELD,
      ...(error.details ? { details: error.details } : {}),
    });
  }
  const pair = await pairOfNetwork(chains, name, config.chainId, configured, url, options);
  const selected = { name, pair, endpoint: { ...configured, get: async () => url } };
  checkAgreement(chains, selected, options);
  return selected;
}
