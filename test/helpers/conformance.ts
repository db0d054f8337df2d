import { expect } from "chai";
import { Contract, HDNodeWallet, JsonRpcProvider, type InterfaceAbi } from "ethers";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  http,
  parseEventLogs,
  type Abi,
  type Address,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
} from "viem";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "./anvil.js";
import { startServer, type RunningServer } from "./http-server.js";

/**
 * What the EIP conformance suite (test/integration/conformance/) shares: one anvil node and one service per file,
 * tokens launched and minted through the service's HTTP API by anvil's first account, acted on straight at the node
 * by anvil's other default accounts with ethers, and read back with viem, a client the service does not use.
 */

export const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
export const KEY = { sender: ANVIL_ACCOUNT.address, privateKey: ANVIL_ACCOUNT.privateKey };
/** anvil's default accounts come from this mnemonic; account 0 is ANVIL_ACCOUNT, which the service signs with. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
export const ZERO = "0x0000000000000000000000000000000000000000" as Address;

export interface Conformance {
  node: AnvilNode;
  api: RunningServer;
  viem: PublicClient;
  provider: JsonRpcProvider;
  /** anvil's default account `index` (1 and up: 0 is the service's), connected to the node. */
  wallet(index: number): HDNodeWallet;
  /** Launches a token through the service and waits for it to be mined; its address. */
  launch(type: "ERC20" | "ERC721" | "ERC1155", token: Record<string, unknown>): Promise<Address>;
  /** Mints through the service (POST /tokens/mint, mined); the answer's body. */
  mint(type: "ERC20" | "ERC721" | "ERC1155", contractAddress: Address, fields: Record<string, unknown>): Promise<any>;
  /** Sends `fn(args)` to `address` from `from` with ethers, waits for it and reads the receipt back with viem. */
  send(from: HDNodeWallet, address: Address, abi: InterfaceAbi, fn: string, args: unknown[]): Promise<TransactionReceipt>;
  stop(): Promise<void>;
}

export async function startConformance(): Promise<Conformance> {
  const node = await startAnvil();
  const api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url } });
  // cacheTime 0: viem otherwise answers getBlockNumber from a cache up to 4 s old, a head before the last launch.
  const viem = createPublicClient({ transport: http(node.url), cacheTime: 0 }) as PublicClient;
  const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
  return {
    node,
    api,
    viem,
    provider,
    wallet: (index) => {
      if (index < 1) throw new Error("account 0 signs for the service: use another one");
      return HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`).connect(provider);
    },
    async launch(type, token) {
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", { ...SEPOLIA, type, token, ...KEY });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      return launched.body.contractAddress as Address;
    },
    async mint(type, contractAddress, fields) {
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", { ...SEPOLIA, type, contractAddress, ...fields, ...KEY });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
      return minted.body;
    },
    async send(from, address, abi, fn, args) {
      const sent = await new Contract(address, abi, from).getFunction(fn)(...args);
      await sent.wait();
      const receipt = await viem.getTransactionReceipt({ hash: sent.hash as Hash });
      expect(receipt.status, `${fn} was mined and succeeded`).to.equal("success");
      return receipt;
    },
    async stop() {
      await api.stop();
      await node.stop();
    },
  };
}

/** The events of `abi` a receipt holds (viem decodes them), in log order. */
export function eventsOf(abi: Abi, receipt: TransactionReceipt, address?: Address) {
  return parseEventLogs({ abi, logs: receipt.logs })
    .filter((log) => address === undefined || log.address.toLowerCase() === address.toLowerCase())
    .map((log) => ({ eventName: log.eventName, args: log.args as Record<string, unknown> }));
}

/**
 * Awaits a call that must revert (viem's simulateContract or readContract): the custom error's name and arguments
 * decoded with the ABI given to the call (undefined when it reverted without data or with an error the ABI lacks).
 * Anything else (no revert, a transport failure) fails the test.
 */
export async function revertOf(attempt: Promise<unknown>): Promise<{ errorName: string | undefined; args: readonly unknown[] }> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof BaseError) {
      const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
      if (reverted instanceof ContractFunctionRevertedError) {
        return { errorName: reverted.data?.errorName, args: reverted.data?.args ?? [] };
      }
    }
    throw error;
  }
  throw new Error("expected the call to revert; it succeeded");
}
