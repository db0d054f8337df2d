import type { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";

import { BUILT_IN_CHAINS, CHAIN_NAMES } from "../src/domain/chains.js";

/** Every built-in network name, once (sepolia is ethereum's, base's, arbitrum's and optimism's). */
const NETWORK_NAMES = [...new Set(CHAIN_NAMES.flatMap((chain) => BUILT_IN_CHAINS.networkNames(chain)))];

// Hardhat owns --network (which Hardhat network to connect to), so the token
// service's own network option is --chain-network. An HTTP --network makes its
// pair live and may stand for both options.
export const chainOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  builder
    .addOption({
      name: "chain",
      description: `${CHAIN_NAMES.join(", ")}, or a chain of tokenService.chains or TOKEN_SERVICE_CHAINS (with an HTTP --network: its pair's, may be omitted)`,
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addOption({
      name: "chainNetwork",
      description: `The chain's network: ${NETWORK_NAMES.join(", ")}; testnet is each chain's test network (ethereum: sepolia, polygon: amoy, avalanche: fuji) (with an HTTP --network: its pair's)`,
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    });

export const signerOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  builder
    .addOption({
      name: "sender",
      description: "Address that signs and pays (default: the key's address)",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addOption({
      name: "privateKeyEnv",
      description: "Name of the environment variable holding the sender's private key (else: the --network's configured accounts)",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addOption({
      name: "from",
      description: "A held wallet's address: the service signs with the key it holds (docs/custody.md); no key is read",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addFlag({ name: "noWait", description: "Return once the node accepted the transaction, without waiting for it to be mined" })
    // Declared only to refuse it with a pointer to --private-key-env, instead of Hardhat's bare "unknown option" (a
    // hidden option cannot be given on the command line at all). The value is never read or printed.
    .addOption({
      name: "privateKey",
      description: "Not accepted (shell history would keep the key): put it in an environment variable and pass --private-key-env",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    });

export const json = <T extends ReturnType<typeof task>>(builder: T) =>
  builder.addFlag({ name: "json", description: "Print one JSON object" });
