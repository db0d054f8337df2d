import { networks, type Network } from "bitcoinjs-lib";

/** bitcoinjs-lib parameters per network name; signet shares testnet's prefixes. */
export function bitcoinjsNetwork(network: string): Network {
  switch (network) {
    case "mainnet":
      return networks.bitcoin;
    case "regtest":
      return networks.regtest;
    default:
      return networks.testnet;
  }
}
