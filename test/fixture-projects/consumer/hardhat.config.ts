// A project that uses hardhat-token-service as a plugin. It has no contracts of its own and never
// compiles the plugin's: token launches use the artifacts shipped in the package.
import { configVariable, defineConfig } from "hardhat/config";

// From the sources on purpose: test/plugin.test.ts builds this project's runtime in-process to test the plugin's wiring
// (tasks, config hook, --network accounts) on every change without a build. What users install, the packed tarball
// with the config of docs/plugin.md, is tested by test/package.test.ts.
import tokenService from "../../../src/index.js";

export default defineConfig({
  plugins: [tokenService],
  networks: {
    // `--network sepolia` makes ethereum/sepolia live through this url (the node is asked its chain id, there
    // being no chainId here) and the token tasks sign with this account. Without it, every pair is simulated.
    sepolia: {
      type: "http",
      url: configVariable("CONSUMER_SEPOLIA_RPC_URL"),
      accounts: [configVariable("CONSUMER_SEPOLIA_PRIVATE_KEY")],
    },
  },
  tokenService: {
    // Tests point each run at a fresh directory; a real project would usually leave the default.
    ...(process.env.CONSUMER_TOKEN_SERVICE_DATA_DIR ? { dataDir: process.env.CONSUMER_TOKEN_SERVICE_DATA_DIR } : {}),
    blockTime: 0,
  },
});
