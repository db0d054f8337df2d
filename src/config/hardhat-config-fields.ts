/**
 * The fields of the Hardhat config's `tokenService` object, described once: the config validation's messages
 * (src/hardhat/config.ts) name them from here, and docs/reference/configuration.md lists them. The types users write
 * are in src/types.ts. Pure: no Hardhat.
 */
import { BUILT_IN_CHAINS } from "../domain/chains.js";

export interface ConfigFieldSpec {
  type: string;
  default: string;
  description: string;
}

export const HARDHAT_CONFIG_FIELDS = {
  rpc: {
    type: `\`{ [chain]: { [network]: url | configVariable(NAME) | [url | configVariable(NAME), …] } }\` (EVM chains: ${BUILT_IN_CHAINS.evmNames.join(", ")}, and those of \`chains\`)`,
    default: "`{}`: every EVM pair simulated, unless a Hardhat HTTP network with its chain id or `TOKEN_SERVICE_RPC_*` gives it a node",
    description:
      'Live JSON-RPC endpoints, e.g. `{ ethereum: { sepolia: configVariable("SEPOLIA_RPC_URL") } }`; a list is tried in its order, a request moving to the next endpoint when one fails (see `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>`). A configuration variable is read only when its pair is first used, so an unset one fails that pair alone, naming it. `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>` wins over it.',
  },
  chains: {
    type: "`{ [chain]: { nativeSymbol, nativeDecimals?, rollup?, networks: { [network]: { chainId, rpc?, note? } } } }`",
    default: "`{}`: the built-in chains only",
    description:
      'EVM chains besides the built-in ones, e.g. `{ linea: { nativeSymbol: "ETH", networks: { mainnet: { chainId: 59144, rpc: configVariable("LINEA_RPC_URL") } } } }` (docs/chains/custom.md). Names: lowercase letters, digits and underscores. `nativeDecimals` defaults to 18; `rollup: "op-stack"` counts the L1 data fee in the funds check. A pair without `rpc` is simulated unless `tokenService.rpc`, `TOKEN_SERVICE_RPC_<CHAIN>_<NETWORK>` or a Hardhat HTTP network with its chain id gives it a node. A built-in name or a chain id another pair has is refused. `TOKEN_SERVICE_CHAINS` declares chains the same way from the environment.',
  },
  dataDir: {
    type: "path (relative to the project root)",
    default: "`.token-service`",
    description:
      "Where the simulated chains keep their state between runs and the embedded database lives (API keys, operation records); `serve --data-dir` overrides it.",
  },
  blockTime: {
    type: "seconds, 0 or more",
    default: "2",
    description:
      "Seconds between blocks on the simulated chains of `serve` (`serve --block-time` overrides it); 0 mines on send. The tasks always mine on send.",
  },
} as const satisfies Record<string, ConfigFieldSpec>;

export type TokenServiceConfigField = keyof typeof HARDHAT_CONFIG_FIELDS;

export const HARDHAT_CONFIG_FIELD_NAMES = Object.keys(HARDHAT_CONFIG_FIELDS) as TokenServiceConfigField[];
