import { Interface, getCreateAddress, type TransactionLike } from "ethers";

import type { TokenType } from "../../../domain/token-params.js";
import { serviceErc20Artifact, serviceErc721Artifact } from "../artifacts.js";
import type { EvmChain } from "../chain.js";
import { stringShape } from "./gas-shapes.js";
import { prepareTransaction, sendTransaction, type BroadcastHooks, type SignedTransactionInfo } from "./send-transaction.js";
import type { SenderLock } from "../sender-lock.js";

import type { LaunchParams, Signing } from "../../../domain/commands.js";

export type { LaunchParams, Signing } from "../../../domain/commands.js";

export interface LaunchHooks extends Pick<BroadcastHooks, "heldNonces" | "acceptSigned"> {
  /** Runs after signing, before broadcasting: the transaction hash and contract address are final from here on. */
  beforeBroadcast?(info: SignedTransactionInfo & { contractAddress: string }): Promise<void>;
}

export interface LaunchResult {
  transactionHash: string;
  contractAddress: string;
  status: "pending";
  chain: string;
  network: string;
  type: TokenType;
  sender: string;
  nonce: number;
  simulated: boolean;
}

// Parsed once: a launch only encodes its constructor arguments after the shipped bytecode.
const erc20Constructor = new Interface(serviceErc20Artifact.abi);
const erc721Constructor = new Interface(serviceErc721Artifact.abi);

const isZero = (value: bigint | number | string) => BigInt(value) === 0n;

/** What the gas of a deployment depends on besides its calldata's bytes (see gas-shapes.ts). */
export function gasShape(params: LaunchParams): string {
  if (params.type === "ERC20") {
    const { name, symbol, decimals, cap, minter, initialSupply, account } = params.token;
    const zeros = [decimals, cap, minter, initialSupply, account].map((value) => (isZero(value) ? "0" : "x")).join("");
    return `ERC20 ${stringShape(name)} ${stringShape(symbol)} ${zeros}`;
  }
  const { name, symbol, uri } = params.token;
  return `ERC721 ${stringShape(name)} ${stringShape(symbol)} ${stringShape(uri)}`;
}

export function deploymentData(params: LaunchParams, sender: string): string {
  if (params.type === "ERC20") {
    const { name, symbol, decimals, cap, minter, initialSupply, account } = params.token;
    const encoded = erc20Constructor.encodeDeploy([name, symbol, decimals, cap, minter, initialSupply, account]);
    return serviceErc20Artifact.bytecode + encoded.slice(2);
  }
  const { name, symbol, uri } = params.token;
  return serviceErc721Artifact.bytecode + erc721Constructor.encodeDeploy([name, symbol, uri, sender]).slice(2);
}

/**
 * Deploys a token from `sender` and returns as soon as the node accepted the
 * transaction; the contract address follows from sender and nonce.
 */
export async function launchToken(
  chain: EvmChain,
  lock: SenderLock,
  sender: string,
  signing: Signing,
  params: LaunchParams,
  hooks: LaunchHooks = {},
): Promise<LaunchResult> {
  const { beforeBroadcast, ...rest } = hooks;
  const sent = await sendTransaction(
    chain,
    lock,
    { sender, ...signing, data: deploymentData(params, sender), gasShape: gasShape(params) },
    {
      ...rest,
      beforeBroadcast: async (info) =>
        beforeBroadcast?.({ ...info, contractAddress: getCreateAddress({ from: sender, nonce: info.nonce }) }),
    },
  );
  return {
    transactionHash: sent.transactionHash,
    contractAddress: getCreateAddress({ from: sender, nonce: sent.nonce }),
    status: "pending",
    chain: chain.info.chain,
    network: chain.info.network,
    type: params.type,
    sender,
    nonce: sent.nonce,
    simulated: chain.simulated,
  };
}

export interface PreparedLaunch {
  transaction: TransactionLike;
  contractAddress: string;
  expiresAt: string;
}

/** The deployment as `sender` should sign it, its nonce reserved by `hooks.reserve`. */
export async function prepareLaunch(
  chain: EvmChain,
  lock: SenderLock,
  sender: string,
  params: LaunchParams,
  hooks: Parameters<typeof prepareTransaction>[3],
): Promise<PreparedLaunch> {
  const { transaction, expiresAt } = await prepareTransaction(
    chain,
    lock,
    { sender, data: deploymentData(params, sender), gasShape: gasShape(params) },
    hooks,
  );
  return { transaction, expiresAt, contractAddress: getCreateAddress({ from: sender, nonce: Number(transaction.nonce) }) };
}
