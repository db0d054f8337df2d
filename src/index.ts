import { task } from "hardhat/config";
import { ArgumentType } from "hardhat/types/arguments";
import type { HardhatPlugin } from "hardhat/types/plugins";

import "./type-extensions.js";

// Hardhat owns --network (which Hardhat network to connect to), so the token
// service's own network option is --chain-network.
const chainOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  builder
    .addOption({ name: "chain", description: "ethereum, binance_smart_chain or bitcoin", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
    .addOption({
      name: "chainNetwork",
      description: "mainnet, sepolia, holesky, hoodi, rinkeby, testnet (ethereum: sepolia), signet, regtest",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    });

const signerOptions = <T extends ReturnType<typeof task>>(builder: T) =>
  builder
    .addOption({ name: "sender", description: "Address that signs and pays (default: the key's address)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
    .addOption({
      name: "privateKeyEnv",
      description: "Name of the environment variable holding the sender's private key (else: the --network's configured accounts)",
      type: ArgumentType.STRING_WITHOUT_DEFAULT,
      defaultValue: undefined,
    })
    .addFlag({ name: "noWait", description: "Return once the node accepted the transaction, without waiting for it to be mined" });

const json = <T extends ReturnType<typeof task>>(builder: T) => builder.addFlag({ name: "json", description: "Print one JSON object" });

const plugin: HardhatPlugin = {
  id: "hardhat-token-service",
  hookHandlers: {
    config: () => import("./hooks/config.js"),
  },
  tasks: [
    json(chainOptions(task("wallet:create", "Create a wallet (address and private key) on a chain and network")))
      .addOption({ name: "addressType", description: "Bitcoin only: p2wpkh (default), p2tr or p2pkh", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .setAction(() => import("../tasks/wallet-create.js"))
      .build(),
    json(chainOptions(task("balance", "Read the native, ERC20 and ERC721 balances of an address")))
      .addOption({ name: "address", description: "The address to read", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "erc20", description: "Comma-separated ERC20 contract addresses", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "erc721", description: "Comma-separated ERC721 contract addresses (lists owned token ids)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .setAction(() => import("../tasks/balance.js"))
      .build(),
    json(chainOptions(task("faucet", "Give an address native currency on a simulated chain (or bitcoin regtest)")))
      .addOption({ name: "address", description: "The address to fund", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "amount", description: "Amount in whole units of the native currency, e.g. 5 or 0.25 (default: 10)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .setAction(() => import("../tasks/faucet.js"))
      .build(),
    json(signerOptions(chainOptions(task("token:launch", "Launch an OpenZeppelin-based ERC20 or ERC721 token contract"))))
      .addOption({ name: "type", description: "erc20 or erc721 (SERVICE_ERC20 / SERVICE_ERC721 also accepted)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "name", description: "Token name", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "symbol", description: "Token symbol", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "uri", description: "ERC721: base URI (tokenURI = uri + id)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "decimals", description: "ERC20: decimals (default 18)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "initialSupply", description: "ERC20: supply minted at launch, in whole tokens at --decimals, e.g. 1000 (default 0)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "totalSupply", description: "ERC20: supply cap, in whole tokens at --decimals (default: no cap)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "minter", description: "ERC20: receives the initial supply (default: sender)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "account", description: "ERC20: administers the token and may mint more (default: sender)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .setAction(() => import("../tasks/token-launch.js"))
      .build(),
    json(signerOptions(chainOptions(task("token:mint", "Mint an ERC721 token, or more ERC20 supply within the cap"))))
      .addOption({ name: "type", description: "erc20 or erc721", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "contract", description: "The token contract address", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "to", description: "Recipient (default: sender)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "tokenId", description: "ERC721: a chosen token id (default: the next free one)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "uri", description: "ERC721: this token's own URI", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "amount", description: "ERC20: amount in whole tokens at the token's decimals, e.g. 5 or 0.5", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .setAction(() => import("../tasks/token-mint.js"))
      .build(),
    task("serve", "Start the HTTP JSON service (the interface document's API) on the shared core")
      .addOption({ name: "host", description: "Address to bind", type: ArgumentType.STRING, defaultValue: "127.0.0.1" })
      .addOption({ name: "port", description: "Port to listen on", type: ArgumentType.INT, defaultValue: 8080 })
      .addOption({ name: "dataDir", description: "Database and simulated chain state (default: .token-service in the project)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "blockTime", description: "Seconds between blocks on simulated chains; 0 mines on send (default 2)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "waitTimeout", description: "Seconds a wait=mined request waits before answering 202 (default 60)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addFlag({ name: "noAuth", description: "Accept calls without an API key (refused unless bound to a loopback address)" })
      .setAction(() => import("../tasks/serve.js"))
      .build(),
    task("apikey:create", "Create an API key for the HTTP service; shown once, only its hash is stored")
      .addOption({ name: "label", description: "A name to recognise the key by", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addOption({ name: "dataDir", description: "The service's data directory (default: .token-service in the project)", type: ArgumentType.STRING_WITHOUT_DEFAULT, defaultValue: undefined })
      .addFlag({ name: "json", description: "Print one JSON object" })
      .setAction(() => import("../tasks/apikey-create.js"))
      .build(),
  ],
};

export default plugin;
