import { createRequire } from "node:module";
import { defineConfig } from "hardhat/config";
import hardhatEthers from "@nomicfoundation/hardhat-ethers";
import hardhatMocha from "@nomicfoundation/hardhat-mocha";

import tokenService from "./src/index.js";

const require = createRequire(import.meta.url);

export default defineConfig({
  plugins: [hardhatEthers, hardhatMocha, tokenService],
  solidity: {
    compilers: [
      {
        // Offline: compile with the solc npm package instead of downloading a compiler.
        version: require("solc/package.json").version,
        path: require.resolve("solc/soljson.js"),
        settings: {
          // Many EVM chains and private networks lag behind mainnet; shanghai artifacts deploy on all of them.
          evmVersion: "shanghai",
          optimizer: { enabled: true, runs: 200 },
        },
      },
    ],
  },
  paths: { tests: { mocha: "test" } },
  test: {
    mocha: {
      timeout: 120_000,
      // The throwaway PostgreSQL server a run may have started (test/helpers/postgres-server.ts) stops with the run.
      rootHooks: { afterAll: async () => (await import("./test/helpers/postgres-server.js")).stopTestPostgres() },
    },
  },
});
