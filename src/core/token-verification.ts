import { Transaction, dataSlice, getAddress } from "ethers";

import { CREATE2_FACTORY } from "../chains/evm/write/create2.js";
import { tokenVerification, type TokenVerification } from "../chains/evm/verification/verification-input.js";
import { upgradeableVerification } from "../chains/evm/verification/upgradeable-verification.js";
import type { EvmNetworkInfo } from "../chains/evm/chain.js";
import { ErrorCode, TokenServiceError } from "../domain/errors.js";
import type { OperationRecord } from "../domain/lifecycle.js";
import {
  isPrecompiled,
  parseErc1155Options,
  parseErc20Options,
  parseErc721Options,
  variantOf,
  type TokenKind,
  type Variant,
} from "../domain/token-options.js";
import type { FirstUseCompiler } from "../chains/evm/variants/first-use-compiler.js";

// A launched token's verification input (docs/tokens.md#verifying-a-token): the launch record of the API key is found by
// the contract's address, and its creation code read back from the transaction the record signed (through the CREATE2
// factory, after the salt), so the constructor arguments are what was deployed, whatever defaults applied then.

export interface LaunchedTokenVerification extends TokenVerification {
  chain: string;
  network: string;
  address: string;
  /** The launch it answers for: its record, its status and the transaction that deploys the contract. */
  launch: { operationId: string; status: OperationRecord["status"]; transactionHash: string | null };
  /**
   * An upgradeable token's (the top is then its proxy's): the implementation the launch deployed behind it, or the one
   * the caller's newest mined upgrade deployed (then `upgrade` names that record).
   */
  implementation?: TokenVerification & { address: string; upgrade?: { operationId: string } };
}

/**
 * The variant compiled on first use that a launch's recorded options name, if they name one: its creation code is then
 * checked to start with that variant's bytecode (tokenVerification), so the options only say where to look.
 */
function firstUseVariantOf(record: OperationRecord): Variant | undefined {
  const kind = record.tokenType as TokenKind;
  const options = (record.params as { options?: unknown }).options;
  if (options === undefined || options === null) return undefined;
  const parse = kind === "ERC20" ? parseErc20Options : kind === "ERC721" ? parseErc721Options : parseErc1155Options;
  try {
    const variant = variantOf(kind, parse(options));
    return isPrecompiled(variant) ? undefined : variant;
  } catch {
    return undefined;
  }
}

/** The caller's newest mined upgrade of a token: its record, the variant it deployed and where. */
export type FindUpgrade = (
  contractAddress: string,
) => Promise<{ record: OperationRecord; variant: Variant; implementation: string } | undefined>;

export async function launchedTokenVerification(
  findLaunch: (contractAddress: string) => Promise<OperationRecord | undefined>,
  info: EvmNetworkInfo,
  address: string,
  variants: FirstUseCompiler,
  findUpgrade?: FindUpgrade,
): Promise<LaunchedTokenVerification> {
  const contractAddress = getAddress(address);
  const record = await findLaunch(contractAddress);
  if (record === undefined) {
    throw new TokenServiceError(
      ErrorCode.LAUNCH_NOT_FOUND,
      `no launch made with this API key deployed ${contractAddress} on ${info.chain}/${info.network}`,
      { field: "address" },
    );
  }
  const unavailable = (reason: string) =>
    new TokenServiceError(ErrorCode.VERIFICATION_UNAVAILABLE, `the launch's verification input cannot be given: ${reason}`, {
      details: { reason },
    });
  if (record.rawTransaction === null) throw unavailable("the launch has no signed transaction yet");
  const transaction = Transaction.from(record.rawTransaction);
  const initCode =
    transaction.to === null ? transaction.data : transaction.to === CREATE2_FACTORY ? dataSlice(transaction.data, 32) : undefined;
  const firstUse = firstUseVariantOf(record);
  const contract = firstUse === undefined || initCode === undefined ? undefined : await variants.contract(firstUse);
  const launch = { operationId: record.id, status: record.status, transactionHash: record.transactionHash };
  const base = { chain: info.chain, network: info.network, address: contractAddress, launch };
  if (firstUse?.upgradeable !== undefined && initCode !== undefined && contract !== undefined) {
    // A launcher's creation code: the proxy's verification at the top, the implementation's beside it.
    const launcher = await variants.launcherContract(firstUse.upgradeable);
    const salt = transaction.to === CREATE2_FACTORY ? dataSlice(transaction.data, 0, 32) : undefined;
    const deployment = { initCode, salt, sender: transaction.from!, nonce: transaction.nonce };
    const verified = upgradeableVerification(firstUse.kind, firstUse.upgradeable, deployment, launcher, contract);
    if (verified === undefined || verified.proxy !== contractAddress)
      throw unavailable("the launch's creation code is not the launcher this version compiles for its options");
    // Upgraded since (docs/decisions/0066-upgrade-write.md): the implementation it runs is the upgrade's, deployed
    // through the CREATE2 factory with no constructor arguments, from the variant's own input.
    const upgraded = await findUpgrade?.(contractAddress);
    if (upgraded !== undefined) {
      const current = await variants.contract(upgraded.variant);
      const verification = tokenVerification(firstUse.kind, current.artifact.bytecode, current);
      if (verification !== undefined) {
        const upgrade = { operationId: upgraded.record.id };
        return { ...base, ...verified.proxyVerification, implementation: { address: upgraded.implementation, ...verification, upgrade } };
      }
    }
    return { ...base, ...verified.proxyVerification, implementation: verified.implementation };
  }
  const verification = initCode === undefined ? undefined : tokenVerification(record.tokenType as TokenKind, initCode, contract);
  if (verification === undefined) throw unavailable("the launch's creation code is not one of the contracts this version ships");
  return { ...base, ...verification };
}
