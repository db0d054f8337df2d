import { Transaction, dataSlice, getAddress } from "ethers";

import { CREATE2_FACTORY } from "../chains/evm/write/create2.js";
import { tokenVerification, type TokenVerification } from "../chains/evm/verification/verification-input.js";
import type { EvmNetworkInfo } from "../chains/evm/chain.js";
import { ErrorCode, TokenServiceError } from "../domain/errors.js";
import type { OperationRecord } from "../domain/lifecycle.js";
import type { TokenKind } from "../domain/token-options.js";

// A launched token's verification input (docs/tokens.md#verifying-a-token): the launch record of the API key is found by
// the contract's address, and its creation code read back from the transaction the record signed (through the CREATE2
// factory, after the salt), so the constructor arguments are what was deployed, whatever defaults applied then.

export interface LaunchedTokenVerification extends TokenVerification {
  chain: string;
  network: string;
  address: string;
  /** The launch it answers for: its record, its status and the transaction that deploys the contract. */
  launch: { operationId: string; status: OperationRecord["status"]; transactionHash: string | null };
}

export async function launchedTokenVerification(
  findLaunch: (contractAddress: string) => Promise<OperationRecord | undefined>,
  info: EvmNetworkInfo,
  address: string,
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
  const verification = initCode === undefined ? undefined : tokenVerification(record.tokenType as TokenKind, initCode);
  if (verification === undefined) throw unavailable("the launch's creation code is not one of the contracts this version ships");
  return {
    chain: info.chain,
    network: info.network,
    address: contractAddress,
    launch: { operationId: record.id, status: record.status, transactionHash: record.transactionHash },
    ...verification,
  };
}
