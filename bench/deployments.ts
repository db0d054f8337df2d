// The anchors' raw material: fresh simulated chains of the kind the service runs, and the service's ERC20
// deployment transactions signed beforehand with ethers.
import { BrowserProvider, Interface, Transaction, Wallet, hexlify, randomBytes, toQuantity, type Eip1193Provider } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { resolveNetwork } from "../src/domain/chains.js";
import type { EvmNetworkInfo, SimulatedChainConnection } from "../src/chains/evm/chain.js";
import { serviceErc20Artifact } from "../src/chains/evm/artifacts.js";
import { hardhatSimulatedChains } from "../src/hardhat/simulated-chains.js";
import { parseErc20Params } from "../src/domain/token-params.js";

/** Every chain figure is taken on this pair (simulated in-process, as `serve` does by default). */
export const PAIR = { chain: "ethereum", network: "sepolia" } as const;
export const PAIR_INFO = resolveNetwork(PAIR.chain, PAIR.network) as EvmNetworkInfo;

/** What each launch in the bench asks for: an ERC20 with a supply, so balance reads have something to read. */
export function erc20Token(index: number): { name: string; symbol: string; initialSupply: string } {
  return { name: `Bench ${index}`, symbol: `B${index}`, initialSupply: "1000000" };
}

const erc20Constructor = new Interface(serviceErc20Artifact.abi);

/** The bytes the service's launch sends for `erc20Token(index)` from `sender`: shipped bytecode + constructor arguments. */
export function erc20DeploymentData(sender: string, index: number): string {
  const { name, symbol, decimals, cap, minter, initialSupply, account } = parseErc20Params(erc20Token(index), sender);
  return (
    serviceErc20Artifact.bytecode + erc20Constructor.encodeDeploy([name, symbol, decimals, cap, minter, initialSupply, account]).slice(2)
  );
}

export interface FreshChain {
  connection: SimulatedChainConnection;
  provider: BrowserProvider;
  request(method: string, params: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

/** A new in-process EDR chain from the same factory the service uses, with the pair's chain id, mining on send. */
export async function freshChain(hre: HardhatRuntimeEnvironment): Promise<FreshChain> {
  const connection = await hardhatSimulatedChains(hre)(PAIR_INFO);
  const provider = new BrowserProvider(connection.provider as unknown as Eip1193Provider, PAIR_INFO.chainId, {
    cacheTimeout: -1,
    staticNetwork: true,
  });
  return {
    connection,
    provider,
    request: (method, params) => connection.provider.request({ method, params }),
    close: () => connection.close(),
  };
}

/** A signer with a random key (no mnemonic: that would only slow the set-up down). */
export function randomSigner(): Wallet {
  return new Wallet(hexlify(randomBytes(32)));
}

export async function setBalance(chain: FreshChain, address: string, wei = 10n ** 24n): Promise<void> {
  await chain.request("hardhat_setBalance", [address, toQuantity(wei)]);
}

/**
 * `perSender` ERC20 deployments from each wallet (nonces from 0), signed with ethers before anything is timed. Gas
 * limit and fees are what the service would use on `chain`: its estimate plus 20 % headroom, the node's fee data.
 * Returned interleaved by sender, the order the service's launches are fired in.
 */
export async function presignedDeployments(chain: FreshChain, senders: Wallet[], perSender: number): Promise<string[]> {
  const first = senders[0]!.address;
  await setBalance(chain, first);
  const estimate = await chain.provider.estimateGas({ from: first, data: erc20DeploymentData(first, 0) });
  const fees = await chain.provider.getFeeData();
  const gasLimit = (estimate * 120n) / 100n;
  const signed: string[] = [];
  for (let nonce = 0; nonce < perSender; nonce++) {
    for (const [senderIndex, sender] of senders.entries()) {
      const transaction = Transaction.from({
        type: 2,
        chainId: PAIR_INFO.chainId,
        nonce,
        gasLimit,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        data: erc20DeploymentData(sender.address, nonce * senders.length + senderIndex),
        value: 0n,
      });
      signed.push(await sender.signTransaction(transaction));
    }
  }
  return signed;
}
