import { expect } from "chai";
import { JsonRpcProvider, Wallet as EthersWallet, parseEther, type AbstractProvider } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import type { Wallet } from "../../src/core/wallets.js";
import type { NewOperation } from "../../src/core/operations/types.js";
import { MemoryOperationStore } from "../../src/store/memory-store.js";
import { startAnvil, type AnvilNode } from "./anvil.js";
import type { ErrorCode, TokenServiceError } from "../../src/domain/errors.js";
import { expectServiceError } from "./errors.js";
import type { Pair } from "./service.js";

// The two chains the write tests run on: the service's own simulated chain, and anvil, a live node over JSON-RPC that
// no one here wrote. Each gives the test a node to read back from without the service (ethers straight against it).

export const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
/** Hardhat's (and anvil's) tenth default account: funds and deploys on anvil, never a sender of the service. */
const ANVIL_FUNDER_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

/** Remembers what was recorded: a refusal before signing records nothing. */
export class RecordingStore extends MemoryOperationStore {
  readonly inserted: NewOperation[] = [];
  override insertOperation(operation: NewOperation): Promise<void> {
    this.inserted.push(operation);
    return super.insertOperation(operation);
  }
}

export interface Environment {
  service: TokenService;
  store: RecordingStore;
  /** The node, read without the service: ethers straight against it. */
  node: AbstractProvider;
  /** Deploys the test-only tokens and mints them; never a sender of the service. */
  deployer: EthersWallet;
  /** A new wallet holding `ether` ETH. */
  funded(ether: string): Promise<Wallet>;
  close(): Promise<void>;
}

export const environments: Array<{ name: string; start(): Promise<Environment> }> = [
  {
    name: "the simulated chain",
    async start() {
      const store = new RecordingStore();
      const service = await createTokenService({ hre, env: {}, operationStore: store });
      const chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "test");
      const funded = async (ether: string) => {
        const wallet = service.createWallet(SEPOLIA);
        await service.faucet({ ...SEPOLIA, address: wallet.address, amount: parseEther(ether).toString() });
        return wallet;
      };
      const deployerWallet = await funded("100");
      return {
        service,
        store,
        node: chain.provider,
        deployer: new EthersWallet(deployerWallet.privateKey, chain.provider),
        funded,
        close: () => service.close(),
      };
    },
  },
  {
    name: "anvil (a live node over JSON-RPC)",
    async start() {
      const anvil: AnvilNode = await startAnvil({ chainId: 11155111 });
      const store = new RecordingStore();
      const service = await createTokenService({ hre, env: {}, operationStore: store, rpcUrls: { "ethereum/sepolia": anvil.url } });
      const node = new JsonRpcProvider(anvil.url, 11155111, { staticNetwork: true, cacheTimeout: -1 });
      const deployer = new EthersWallet(ANVIL_FUNDER_KEY, node);
      return {
        service,
        store,
        node,
        deployer,
        async funded(ether) {
          // The faucet refuses live networks: a real transfer funds the wallet.
          const wallet = service.createWallet(SEPOLIA);
          await (await deployer.sendTransaction({ to: wallet.address, value: parseEther(ether) })).wait();
          return wallet;
        },
        async close() {
          await service.close();
          node.destroy();
          await anvil.stop();
        },
      };
    },
  },
];

/**
 * Runs a write that must be refused before anything is signed, with `code` naming `field`: the sender's nonce is not
 * used, no record is written, and no surface of the error quotes a key of `secrets`.
 */
export async function expectRefusedBeforeSigning(
  env: Environment,
  sender: string,
  action: () => Promise<unknown>,
  code: ErrorCode,
  field: string | undefined,
  secrets: string[],
): Promise<TokenServiceError> {
  const [nonce, records] = [await env.node.getTransactionCount(sender, "pending"), env.store.inserted.length];
  const error = await expectServiceError(action, code, field, secrets);
  expect(await env.node.getTransactionCount(sender, "pending"), "the sender's nonce").to.equal(nonce);
  expect(env.store.inserted.length, "records written").to.equal(records);
  return error;
}
