import type { Network } from "bitcoinjs-lib";

import { bitcoinLibraries } from "./libraries.js";

/** bitcoinjs-lib parameters per network name; signet shares testnet's prefixes. */
export function bitcoinjsNetwork(network: string): Network {
  const { networks } = bitcoinLibraries().lib;
  switch (network) {
    case "mainnet":
      return networks.bitcoin;
    case "regtest":
      return networks.regtest;
    default:
      return networks.testnet;
  }
}
