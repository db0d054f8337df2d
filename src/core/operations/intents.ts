import { getCreateAddress, isAddress, getAddress } from "ethers";

import type { EvmChain } from "../../chains/evm/chain.js";
import { CREATE2_FACTORY, create2Address, create2Calldata, preflightCreate2 } from "../../chains/evm/write/create2.js";
import { deploymentData, firstUseVariant, gasShape, launchedByLauncher, upgradeableOf } from "../../chains/evm/write/launch.js";
import type { FirstUseCompiler } from "../../chains/evm/variants/first-use-compiler.js";
import { preflightAuthority } from "../../chains/evm/read/access-manager.js";
import { preflightMint } from "../../chains/evm/write/mint.js";
import { approveData, preflightApprove, preflightTransfer, transferData } from "../../chains/evm/write/transfer.js";
import type { EvmPair, LaunchCommand } from "../../domain/commands.js";
import { mintFields, type MintCommand } from "../../domain/mint-commands.js";
import type { OperationKind } from "../../domain/lifecycle.js";
import type { LaunchResult, MintResult } from "../../domain/requests.js";
import type { ApproveCommand, TransferCommand } from "../../domain/transfer-commands.js";
import type { ApproveResult, TransferResult } from "../../domain/transfer-requests.js";
import { amountWarnings, echoAmounts, supplyEcho, withWarnings } from "../../domain/amount-echo.js";
import { MAX_UINT256 } from "../../domain/units.js";
import { readErc20Decimals } from "../../chains/evm/read/balances.js";

/**
 * One write as data: what is sent (to, data, value), from whom on which pair, what its record holds, what would make
 * the chain refuse it (checked before anything is signed) and what the caller is answered once the node accepted it.
 * The pipeline (Operations with ChainWrites) records, signs, sends and tracks every intent the same way.
 */
export interface WriteIntent<Answer> {
  kind: Exclude<OperationKind, "faucet">;
  /** Who sends it, on which pair (the parsed command it was made from). */
  command: { pair: EvmPair; sender: string };
  transaction: {
    /** Absent: a deployment. */
    to?: string;
    /** Absent: the preflight chooses it (a mint's form depends on the functions the token has). */
    data?: string;
    /** Native currency sent with the call, in smallest units (a NATIVE transfer); absent: 0. */
    value?: bigint;
    /** Sends of one shape need the same gas but for their calldata (see gas-shapes.ts). */
    gasShape?: string;
  };
  /** The record's fields besides those of the pipeline, given the nonce the transaction was signed with. */
  record(nonce: number): { tokenType: string | null; params: Record<string, unknown>; contractAddress: string | null };
  /**
   * Refuses, with a typed error, what the chain would revert; runs before signing. Answers the call's data where it
   * depends on the contract, in place of `transaction.data`.
   */
  preflight?(chain: EvmChain): Promise<{ data: string } | void>;
  /** The answer once the node accepted the transaction. */
  answer(sent: { transactionHash: string; nonce: number }, chain: EvmChain): Answer;
}

/**
 * An answer with `uiAmount` beside each amount its `decimals` give a unit to, and the warnings of those amounts (a
 * token amount below one whole token, a native one below 1 gwei). `outcomeOf` rebuilds an answer from its record the
 * same way.
 */
export function echoed<T extends { type?: string }>(answer: T, nativeSymbol: string): T {
  const withUi = echoAmounts(answer as T & { amount?: unknown });
  return withWarnings(withUi, amountWarnings(answer.type ?? null, withUi, nativeSymbol));
}

/**
 * What a write sent from its sender's key answers once the node took it: the transaction, `pending`, the pair, then
 * `fields` (the write's own), the nonce and whether the chain is simulated, its amounts echoed (see `echoed`).
 */
export function sentAnswer<T extends { type?: string }>(
  pair: { chain: string; network: string; nativeSymbol: string },
  sent: { transactionHash: string; nonce: number },
  chain: EvmChain,
  fields: T,
) {
  return echoed(
    {
      transactionHash: sent.transactionHash,
      status: "pending" as const,
      chain: pair.chain,
      network: pair.network,
      ...fields,
      nonce: sent.nonce,
      simulated: chain.simulated,
    },
    pair.nativeSymbol,
  );
}

/**
 * The decimals an ERC20 amount is in, read in the preflight (cached per chain); the record keeps them beside the amount
 * (`fields.decimals`), so that the answer rebuilt from it for an idempotent retry echoes the same.
 */
async function keepErc20Decimals(chain: EvmChain, contract: string, fields: { decimals?: number }): Promise<void> {
  const decimals = await readErc20Decimals(chain, contract);
  if (decimals !== undefined) fields.decimals = decimals;
}

/** Records hold addresses checksummed, however the caller wrote them (the command checked them). */
export function checksummed(params: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const normalized = { ...params };
  for (const field of fields) {
    const value = normalized[field];
    if (typeof value === "string" && isAddress(value)) normalized[field] = getAddress(value);
  }
  return normalized;
}

/**
 * A token deployment: the shipped contract's bytecode (or the variant `variants` compiles on its first use) and
 * constructor arguments. Its address follows from the nonce, or, with a salt, from the salt and the creation code alone
 * (sent through the CREATE2 factory, checked free before signing). An upgradeable token is deployed by a launcher
 * (variants/launcher-source.ts) whose address follows the same way; the token's address is its proxy's, the launcher's
 * second CREATE.
 */
export async function launchIntent(
  command: LaunchCommand,
  requestedToken: unknown,
  variants: FirstUseCompiler,
): Promise<WriteIntent<LaunchResult>> {
  const { pair, sender, params, salt } = command;
  const firstUse = firstUseVariant(params);
  const upgradeable = upgradeableOf(params);
  const initCode = deploymentData(
    params,
    sender,
    firstUse === undefined ? undefined : await variants.artifact(firstUse),
    upgradeable === undefined ? undefined : await variants.launcher(upgradeable),
  );
  // The token's address given the deployed contract's: itself, or for a launcher the proxy it deploys.
  const tokenAt = (deployed: string) => (upgradeable === undefined ? deployed : launchedByLauncher(deployed).proxy);
  const deterministic = salt === undefined ? undefined : tokenAt(create2Address(salt, initCode));
  // Asked for the record and again for the answer, with the same nonce: derived once (three keccak hashes in ethers).
  let derived: { nonce: number; address: string } | undefined;
  const contractAddress = (nonce: number) => {
    if (deterministic !== undefined) return deterministic;
    if (derived?.nonce !== nonce) derived = { nonce, address: tokenAt(getCreateAddress({ from: sender, nonce })) };
    return derived.address;
  };
  // The token fields as the caller gave them (amounts as strings), addresses checksummed; the salt beside them.
  const recorded = checksummed((requestedToken ?? {}) as Record<string, unknown>, ["minter", "account", "authority"]);
  const authority = params.token.authority;
  return {
    kind: "launch",
    command,
    transaction:
      salt === undefined
        ? { data: initCode, gasShape: gasShape(params) }
        : { to: CREATE2_FACTORY, data: create2Calldata(salt, initCode), gasShape: `CREATE2 ${gasShape(params)}` },
    record: (nonce) => ({
      tokenType: params.type,
      params: salt === undefined ? recorded : { ...recorded, salt },
      contractAddress: contractAddress(nonce),
    }),
    // A managed token's authority must be an AccessManager, else its restricted functions would revert forever.
    ...(deterministic !== undefined || authority !== undefined
      ? {
          preflight: async (chain: EvmChain) => {
            if (authority !== undefined) await preflightAuthority(chain, authority, sender);
            if (deterministic !== undefined) await preflightCreate2(chain, deterministic);
          },
        }
      : {}),
    answer: (sent, chain) => ({
      transactionHash: sent.transactionHash,
      contractAddress: contractAddress(sent.nonce),
      status: "pending",
      chain: pair.chain,
      network: pair.network,
      type: params.type,
      sender,
      nonce: sent.nonce,
      simulated: chain.simulated,
      // An ERC20's supply as it was understood: smallest units, whole tokens, decimals (and a warning for a fraction).
      ...(params.type === "ERC20"
        ? supplyEcho(
            params.token.initialSupply,
            params.token.cap === MAX_UINT256 ? undefined : params.token.cap,
            params.token.decimals,
            params.token.symbol,
          )
        : {}),
    }),
  };
}

/**
 * A mint on a token this service's contracts launched: one recipient, several ERC1155 ids to one holder (mintBatch), or
 * several recipients in one transaction (airdrop). Its call's form depends on the token's functions, so the preflight,
 * which reads them and refuses what the chain would revert, chooses it.
 */
export function mintIntent(command: MintCommand): WriteIntent<MintResult> {
  const { pair, sender, params } = command;
  const fields = mintFields(params);
  return {
    kind: "mint",
    command,
    transaction: { to: params.contractAddress },
    record: () => ({ tokenType: params.type, params: fields, contractAddress: params.contractAddress }),
    preflight: async (chain) => {
      const data = await preflightMint(chain, sender, params);
      if (params.type === "ERC20") await keepErc20Decimals(chain, params.contractAddress, fields);
      return { data };
    },
    answer: (sent, chain) => {
      // The answer names what was minted; a single mint's own URI stays in the record (as it always has).
      const { contractAddress: _contract, uri: _uri, ...minted } = fields;
      const answer = {
        transactionHash: sent.transactionHash,
        status: "pending" as const,
        chain: pair.chain,
        network: pair.network,
        type: params.type,
        contractAddress: params.contractAddress,
        ...minted,
        simulated: chain.simulated,
      };
      return echoed(answer, pair.nativeSymbol);
    },
  };
}

/** A transfer's parameters as its record keeps them (and an idempotent retry after a crash answers them): amounts as strings. */
function transferFields(params: TransferCommand["params"]): {
  contractAddress?: string;
  to: string;
  tokenId?: string;
  amount?: string;
  decimals?: number;
} {
  return {
    ...(params.type !== "NATIVE" ? { contractAddress: params.contractAddress } : {}),
    to: params.to,
    ...(params.type === "ERC721" || params.type === "ERC1155" ? { tokenId: params.tokenId.toString() } : {}),
    ...(params.type !== "ERC721" ? { amount: params.amount.toString() } : {}),
  };
}

/** The fields' amount is in the native currency's decimals, known from the pair. */
const nativeDecimals = <T extends object>(fields: T, pair: EvmPair): T & { decimals?: number } => ({
  ...fields,
  decimals: pair.nativeDecimals,
});

/**
 * Moves native currency (a value transfer to `to`, no data) or a token: ERC20 `transfer`, ERC721 and ERC1155
 * `safeTransferFrom` from the sender; refused before signing when the sender lacks what it would move.
 */
export function transferIntent(command: TransferCommand): WriteIntent<TransferResult> {
  const { pair, sender, params } = command;
  const native = params.type === "NATIVE";
  const fields = native ? nativeDecimals(transferFields(params), pair) : transferFields(params);
  return {
    kind: "transfer",
    command,
    transaction: native
      ? { to: params.to, data: transferData(sender, params), value: params.amount }
      : { to: params.contractAddress, data: transferData(sender, params) },
    record: () => ({ tokenType: params.type, params: fields, contractAddress: native ? null : params.contractAddress }),
    preflight: async (chain) => {
      await preflightTransfer(chain, sender, params);
      if (params.type === "ERC20") await keepErc20Decimals(chain, params.contractAddress, fields);
    },
    answer: (sent, chain) => sentAnswer(pair, sent, chain, { type: params.type, sender, ...fields }),
  };
}

function approveFields(params: ApproveCommand["params"]): {
  spender: string;
  amount?: string;
  tokenId?: string;
  all?: boolean;
  decimals?: number;
} {
  if ("all" in params) return { spender: params.spender, all: params.all };
  if (params.type === "ERC20") return { spender: params.spender, amount: params.amount.toString() };
  return { spender: params.spender, tokenId: params.tokenId.toString() };
}

/** ERC20 `approve(spender, amount)`, ERC721 `approve(spender, tokenId)`, or `setApprovalForAll(spender, all)`. */
export function approveIntent(command: ApproveCommand): WriteIntent<ApproveResult> {
  const { pair, sender, params } = command;
  const fields = approveFields(params);
  return {
    kind: "approve",
    command,
    transaction: { to: params.contractAddress, data: approveData(params) },
    record: () => ({
      tokenType: params.type,
      params: { contractAddress: params.contractAddress, ...fields },
      contractAddress: params.contractAddress,
    }),
    preflight: async (chain) => {
      await preflightApprove(chain, sender, params);
      if (params.type === "ERC20") await keepErc20Decimals(chain, params.contractAddress, fields);
    },
    answer: (sent, chain) =>
      sentAnswer(pair, sent, chain, { type: params.type, contractAddress: params.contractAddress, sender, ...fields }),
  };
}
