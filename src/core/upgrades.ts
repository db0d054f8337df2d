import { Transaction, dataSlice, getAddress, getCreateAddress } from "ethers";

import type { EvmChain } from "../chains/evm/chain.js";
import { codeAt } from "../chains/evm/read/view-call.js";
import { firstUseInput, type FirstUseCompiler } from "../chains/evm/variants/first-use-compiler.js";
import { upgradeSafetyReasons, type UpgradeContract } from "../chains/evm/variants/upgrade-safety.js";
import { variantPath } from "../chains/evm/variants/variant-source.js";
import { CREATE2_FACTORY, create2Address } from "../chains/evm/write/create2.js";
import { launchedByLauncher } from "../chains/evm/write/launch.js";
import { currentImplementation, implementationDeployment, preflightUpgrader } from "../chains/evm/write/upgrade.js";
import { parseEvmAddress } from "../domain/addresses.js";
import { requireEvm, type ChainRegistry, type NetworkInfo } from "../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../domain/errors.js";
import type { OperationRecord } from "../domain/lifecycle.js";
import { variantName, type TokenKind, type Upgradeable, type Variant } from "../domain/token-options.js";
import {
  checkUpgradeChange,
  upgradeVariantOf,
  type UpgradeAwaitingImplementation,
  type UpgradeRequest,
  type UpgradeResult,
} from "../domain/upgrades.js";
import type { Operations, OperationContext, Outcome } from "./operations/operations.js";

// An upgrade of a token the service launched behind a proxy (docs/decisions/0066-upgrade-write.md): checked whole
// before anything is signed (the launch is the caller's, the new options may replace the current ones, the sender may
// upgrade, upgrades-core finds the new implementation safe), then two writes of the one pipeline, each one transaction
// and one record: the new implementation through the CREATE2 factory (skipped when its code is already there), waited
// for as `wait=mined` waits, then the upgrade call.

/** The records an upgrade reads: the caller's launch of the token, and its earlier upgrades and deployments. */
export interface UpgradeRecords {
  findOwnLaunch(apiKeyId: string | null, chain: string, network: string, contractAddress: string): Promise<OperationRecord | undefined>;
  listOperations(
    apiKeyId: string | null,
    options: {
      limit: number;
      cursor?: string;
      filter?: { kinds?: readonly string[]; statuses?: readonly string[]; chain?: string; network?: string };
    },
  ): Promise<{ items: OperationRecord[]; nextCursor: string | null }>;
}

export type UpgradeOutcome =
  | { upgraded: Outcome<UpgradeResult> }
  /** The implementation's deployment is not mined (or failed) within the wait: nothing else was signed. */
  | { awaiting: UpgradeAwaitingImplementation };

export interface TokenUpgradesOptions {
  chains: ChainRegistry;
  evmChain(info: NetworkInfo): Promise<EvmChain>;
  operations: Operations;
  variants: FirstUseCompiler;
}

/** The records of `kinds` of the caller on the pair, newest first, that `match`; read a page of 100 at a time. */
async function* recordsOf(
  records: UpgradeRecords,
  apiKeyId: string | null,
  filter: { kinds: string[]; statuses: string[]; chain: string; network: string },
) {
  let cursor: string | undefined;
  do {
    const page = await records.listOperations(apiKeyId, { limit: 100, ...(cursor !== undefined ? { cursor } : {}), filter });
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** The implementation a launcher deployed for the launch: the launcher's first CREATE (0065). */
function launchImplementation(record: OperationRecord): string | undefined {
  if (record.rawTransaction === null) return undefined;
  const transaction = Transaction.from(record.rawTransaction);
  const launcher =
    transaction.to === null
      ? getCreateAddress({ from: transaction.from!, nonce: transaction.nonce })
      : transaction.to === CREATE2_FACTORY
        ? create2Address(dataSlice(transaction.data, 0, 32), dataSlice(transaction.data, 32))
        : undefined;
  return launcher === undefined ? undefined : launchedByLauncher(launcher).implementation;
}

/** A launch's (or an upgrade's) variant from its recorded options; undefined when it has none. */
function recordedVariant(record: OperationRecord): Variant | undefined {
  const options = (record.params as { options?: unknown }).options;
  if (options === undefined || options === null || record.tokenType === null) return undefined;
  try {
    return upgradeVariantOf(record.tokenType as TokenKind, options);
  } catch {
    return undefined;
  }
}

/**
 * The caller's newest mined upgrade of the token, and the variant it deployed: the implementation the token runs unless
 * it was upgraded since by other tools (the verification read answers its input).
 */
export async function latestUpgrade(
  records: UpgradeRecords,
  apiKeyId: string | null,
  pair: { chain: string; network: string },
  contractAddress: string,
): Promise<{ record: OperationRecord; variant: Variant; implementation: string } | undefined> {
  const filter = { kinds: ["upgrade"], statuses: ["mined"], chain: pair.chain, network: pair.network };
  for await (const record of recordsOf(records, apiKeyId, filter)) {
    if (record.contractAddress !== contractAddress) continue;
    const variant = recordedVariant(record);
    const implementation = (record.params as { implementation?: { address?: string } }).implementation?.address;
    return variant === undefined || implementation === undefined ? undefined : { record, variant, implementation };
  }
  return undefined;
}

const contractOf = (variant: Variant): UpgradeContract => ({
  input: firstUseInput(variant),
  unit: variantPath(variant),
  contractName: variantName(variant),
});

export class TokenUpgrades {
  constructor(private readonly options: TokenUpgradesOptions) {}

  /**
   * Upgrades the token to the implementation `request.options` make, or answers why not before anything is signed.
   * `waitMs` bounds the wait for the implementation's deployment to be mined (the `wait=mined` bound).
   */
  async upgrade(request: UpgradeRequest, records: UpgradeRecords, context: OperationContext, waitMs: number): Promise<UpgradeOutcome> {
    const pair = requireEvm(this.options.chains.resolve(request.chain, request.network), "an upgrade");
    const sender = parseEvmAddress(request.sender, "sender");
    const proxy = parseEvmAddress(request.contractAddress, "contractAddress");
    // Two transactions, each signed with the sender's nonce when its turn comes: one signature cannot cover both.
    if (request.signedTransaction !== undefined) {
      throw invalidArgument(
        "signedTransaction",
        "an upgrade cannot be sent as a signed transaction: it may deploy its implementation first, then upgrade, two transactions the service signs in turn; give privateKey, or upgrade from a held wallet",
      );
    }
    const apiKeyId = context.apiKeyId ?? null;
    const launch = await records.findOwnLaunch(apiKeyId, pair.chain, pair.network, proxy);
    if (launch === undefined) {
      throw new TokenServiceError(
        ErrorCode.LAUNCH_NOT_FOUND,
        `no launch made with this API key deployed ${proxy} on ${pair.chain}/${pair.network}: only the service's own upgradeable launches are upgraded (it knows their sources)`,
        { field: "contractAddress" },
      );
    }
    const launched = recordedVariant(launch);
    if (launched?.upgradeable === undefined) {
      throw new TokenServiceError(
        ErrorCode.UPGRADE_INCOMPATIBLE,
        `${proxy} is not upgradeable: it was launched without token.options.upgradeable; nothing was signed or sent`,
        { field: "contractAddress" },
      );
    }
    const chain = await this.options.evmChain(pair);
    const implementation = await currentImplementation(chain, proxy);
    const current = await this.currentVariant(records, apiKeyId, launch, launched, implementation);
    const next = upgradeVariantOf(launched.kind, request.options);
    checkUpgradeChange(current, next, implementation);
    const upgradeable = current.upgradeable as Upgradeable;
    // Nothing is compiled or signed for a sender the proxy would refuse.
    await preflightUpgrader(chain, upgradeable, proxy, implementation, sender);
    const reasons = await upgradeSafetyReasons(contractOf(current), contractOf(next), upgradeable, (input) =>
      this.options.variants.solcOutput(input),
    );
    if (reasons.length > 0) {
      throw new TokenServiceError(
        ErrorCode.UPGRADE_UNSAFE,
        `OpenZeppelin's upgrade checks refuse ${variantName(next)} as the implementation after ${variantName(current)}: ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ""}; nothing was signed or sent`,
        { field: "options", details: { reasons } },
      );
    }
    const signing = { ...(request.privateKey !== undefined ? { privateKey: request.privateKey } : {}) };
    const common = { chain: request.chain, network: request.network, sender, type: launched.kind, options: request.options };
    const { address } = implementationDeployment((await this.options.variants.artifact(next)).bytecode);
    let deployment: OperationRecord | undefined;
    if ((await codeAt(chain, address)) === "0x") {
      // A deployment of ours still under way (an earlier call answered 202) is waited for, not sent twice.
      deployment = await this.pendingDeployment(records, apiKeyId, pair, address);
      if (deployment === undefined) {
        const sent = await this.options.operations.write("deployImplementation", { ...common, ...signing }, { apiKeyId });
        deployment = await this.options.operations.wait(sent.id, waitMs);
      } else deployment = await this.options.operations.wait(deployment.id, waitMs);
      if (deployment.status !== "mined") {
        return {
          awaiting: {
            chain: pair.chain,
            network: pair.network,
            contractAddress: proxy,
            sender,
            implementation: {
              address,
              operationId: deployment.id,
              status: deployment.status,
              transactionHash: deployment.transactionHash,
            },
            previousImplementation: implementation,
          },
        };
      }
    }
    const upgraded = await this.options.operations.write(
      "upgrade",
      { ...common, contractAddress: proxy, implementationOperationId: deployment?.id ?? null, ...signing },
      context,
    );
    return { upgraded: upgraded as Outcome<UpgradeResult> };
  }

  /**
   * The variant the proxy runs now: the launch's, while the proxy points at the implementation its launcher deployed;
   * else the newest mined upgrade of the caller to that implementation. Anything else was upgraded by other tools.
   */
  private async currentVariant(
    records: UpgradeRecords,
    apiKeyId: string | null,
    launch: OperationRecord,
    launched: Variant,
    implementation: string,
  ): Promise<Variant> {
    if (launchImplementation(launch) === implementation) return launched;
    const filter = { kinds: ["upgrade"], statuses: ["mined"], chain: launch.chain, network: launch.network };
    for await (const record of recordsOf(records, apiKeyId, filter)) {
      const to = (record.params as { implementation?: { address?: string } }).implementation?.address;
      if (record.contractAddress === launch.contractAddress && to !== undefined && getAddress(to) === implementation) {
        const variant = recordedVariant(record);
        if (variant !== undefined) return variant;
      }
    }
    throw new TokenServiceError(
      ErrorCode.UPGRADE_INCOMPATIBLE,
      `${launch.contractAddress} points at ${implementation}, an implementation this service did not deploy for it (upgraded by other tools?): its storage layout is unknown, so no upgrade is checked or signed`,
      { field: "contractAddress", details: { implementation } },
    );
  }

  /** The caller's deployment of the implementation at `address` that is not final yet, if any. */
  private async pendingDeployment(
    records: UpgradeRecords,
    apiKeyId: string | null,
    pair: { chain: string; network: string },
    address: string,
  ): Promise<OperationRecord | undefined> {
    const filter = { kinds: ["deployImplementation"], statuses: ["signed", "pending"], chain: pair.chain, network: pair.network };
    for await (const record of recordsOf(records, apiKeyId, filter)) if (record.contractAddress === address) return record;
    return undefined;
  }
}
