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
  feeCaps: {
    type: "`{ [chain]: { [network]: gwei } }` (a number or a string, above 0, up to 9 decimals)",
    default: "`{}`: no ceiling for a send; an operation's replacements go up to 8 times its first max fee",
    description:
      'Fee ceilings per EVM pair, e.g. `{ ethereum: { mainnet: 40 }, base: { mainnet: "0.05" } }`: the most a transaction may pay per gas (`maxFeePerGas`, or a legacy `gasPrice`). A send, prepare, speed-up or cancel that would need more is refused with `FEE_CAP_EXCEEDED` before anything is signed; a stuck transaction\'s replacements climb up to it. `TOKEN_SERVICE_FEE_CAP_<CHAIN>_<NETWORK>` wins over it.',
  },
  replaceAfterBlocks: {
    type: "`{ [chain]: { [network]: blocks } }` (whole numbers, 1 or more)",
    default: "`{}`: about 36 s of each chain's blocks (see `TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_<CHAIN>_<NETWORK>`)",
    description:
      "How many blocks a pending transaction of a pair waits for inclusion before the service replaces it with higher fees, or says it is stuck (`operation.stuck`). `TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_<CHAIN>_<NETWORK>` wins over it.",
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
