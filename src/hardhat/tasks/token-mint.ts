import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { TokenServiceError, isTokenServiceError } from "../../domain/errors.js";
import type { TokenService } from "../../core/token-service.js";
import { parseTokenType } from "../../domain/token-params.js";
import { parseDecimalUnits } from "../../domain/units.js";
import { resolveSigner } from "./support/private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, withService } from "./support/run.js";
import { withSpinner } from "./support/spinner.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  type?: string;
  contract?: string;
  to?: string;
  tokenId?: string;
  uri?: string;
  amount?: string;
  sender?: string;
  privateKeyEnv?: string;
  /** Refused: see refusePrivateKeyOption. */
  privateKey?: string;
  noWait?: boolean;
  json?: boolean;
}

function isErc20(type: string | undefined): boolean {
  try {
    return parseTokenType(type) === "ERC20";
  } catch {
    return false; // the core names the bad --type
  }
}

/** An ERC20 mint's --amount is in whole tokens: the contract's decimals say how many smallest units that is. */
async function erc20Token(service: TokenService, request: { chain: string; network: string; tokenAddress: string; address: string }) {
  try {
    return await service.getTokenBalance({ ...request, type: "erc20" });
  } catch (error) {
    // The balance read names its own field; here the contract came from --contract.
    if (isTokenServiceError(error) && error.field === "tokenAddress")
      throw new TokenServiceError(error.code, error.message, { field: "contractAddress" });
    throw error;
  }
}

export default async function tokenMint(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    const { sender, privateKey } = await resolveSigner(hre, {
      ...(args.privateKeyEnv ? { privateKeyEnv: args.privateKeyEnv } : {}),
      ...(args.sender ? { sender: args.sender } : {}),
    });
    const token =
      args.amount !== undefined && isErc20(args.type)
        ? await erc20Token(service, { ...pair, tokenAddress: args.contract ?? "", address: sender })
        : undefined;
    const minted = await service.operations.mint({
      ...pair,
      type: args.type ?? "",
      contractAddress: args.contract ?? "",
      to: args.to ?? sender,
      ...(args.tokenId !== undefined ? { tokenId: args.tokenId } : {}),
      ...(args.uri !== undefined ? { uri: args.uri } : {}),
      // An ERC721 --amount goes to the core as typed, which refuses it with its own message.
      ...(args.amount !== undefined
        ? { amount: token ? parseDecimalUnits(args.amount, token.decimals ?? 18, "amount").toString() : args.amount }
        : {}),
      sender,
      privateKey,
    });
    const result = args.noWait
      ? minted
      : await withSpinner(`waiting for ${minted.transactionHash} to be mined`, () => service.operations.settle(minted, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    const what =
      result.type === "ERC721"
        ? `token #${result.tokenId ?? "?"}`
        : result.type === "ERC1155"
          ? `${args.amount} of token #${result.tokenId}`
          : `${args.amount} ${token?.symbol ?? ""}`;
    console.log(`Minted ${what} of ${result.contractAddress} to ${result.to} on ${chainLabel(result, service)}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}`);
  });
}
