// A project that declares an EVM chain the service does not build in, `acme`, in `tokenService.chains`: one network
// simulated, one live through a configuration variable. A Hardhat network with a chain id no chain has shows what
// `--network` says of it.
import { configVariable, defineConfig } from "hardhat/config";

import tokenService from "../../../src/index.js";

export default defineConfig({
  plugins: [tokenService],
  networks: {
    orphan: { type: "http", chainId: 990309, url: configVariable("CHAINS_ORPHAN_RPC_URL") },
  },
  tokenService: {
    chains: {
      acme: {
        nativeSymbol: "ACM",
        networks: {
          mainnet: { chainId: 990301 },
          devnet: { chainId: 990302, rpc: configVariable("CHAINS_ACME_DEVNET_RPC_URL") },
        },
      },
    },
    ...(process.env.CHAINS_TOKEN_SERVICE_DATA_DIR ? { dataDir: process.env.CHAINS_TOKEN_SERVICE_DATA_DIR } : {}),
    blockTime: 0,
  },
});
