// A project whose live networks are configured the Hardhat way, in `networks`: each url is a configuration
// variable, read only when its pair is used.
import { configVariable, defineConfig } from "hardhat/config";

import tokenService from "../../../src/index.js";

export default defineConfig({
  plugins: [tokenService],
  networks: {
    // No chainId: `--network sepolia` asks the node which chain it serves, or takes --chain/--chain-network.
    sepolia: {
      type: "http",
      url: configVariable("NETWORKS_SEPOLIA_RPC_URL"),
      accounts: [configVariable("NETWORKS_DEPLOYER_KEY")],
    },
    // A chainId of one of the service's pairs (ethereum/hoodi) makes that pair live for every task and for serve;
    // its httpHeaders go with every request (a provider's key, say).
    hoodi: {
      type: "http",
      chainId: 560048,
      url: configVariable("NETWORKS_HOODI_RPC_URL"),
      httpHeaders: { "x-node-key": "networks-fixture-key" },
    },
    // binance_smart_chain/testnet, wherever its url points.
    bscTestnet: { type: "http", chainId: 97, url: configVariable("NETWORKS_BSC_TESTNET_RPC_URL") },
  },
  tokenService: {
    ...(process.env.NETWORKS_TOKEN_SERVICE_DATA_DIR ? { dataDir: process.env.NETWORKS_TOKEN_SERVICE_DATA_DIR } : {}),
    blockTime: 0,
  },
});
