import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { parseTokenStandard } from "../../domain/asset-types.js";
import { parseDecimalUnits } from "../../domain/units.js";
import { resolveSigner, signerSource } from "./support/private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, printWarnings, withService } from "./support/run.js";
import { withSpinner } from "./support/spinner.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  type?: string;
  contract?: string;
  spender?: string;
  amount?: string;
  tokenId?: string;
  all?: string;
  sender?: string;
  privateKeyEnv?: string;
  from?: string;
  /** Refused: see refusePrivateKeyOption. */
  privateKey?: string;
  noWait?: boolean;
  json?: boolean;
}

function isErc20(type: string): boolean {
  try {
    return parseTokenStandard(type) === "ERC20";
  } catch {
    return false; // the core names the bad --type
  }
}

/** --all as typed: true or false; anything else goes to the core as typed, which names the rule. */
function allOf(text: string): boolean | string {
  const word = text.trim().toLowerCase();
  return word === "true" ? true : word === "false" ? false : text;
}

export default async function tokenApprove(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    const { sender, privateKey } = await resolveSigner(hre, signerSource(args));
    const type = args.type ?? "erc20";
    // An ERC20 allowance in whole tokens: the token's decimals say how many smallest units that is.
    const token =
      args.amount !== undefined && isErc20(type)
        ? await service.getTokenInfo({ ...pair, contractAddress: args.contract ?? "" })
        : undefined;
    const approved = await service.operations.approve({
      ...pair,
      type,
      contractAddress: args.contract ?? "",
      spender: args.spender ?? "",
      ...(args.amount !== undefined
        ? { amount: token ? parseDecimalUnits(args.amount, token.decimals ?? 18, "amount").toString() : args.amount }
        : {}),
      ...(args.tokenId !== undefined ? { tokenId: args.tokenId } : {}),
      // A value other than true or false reaches the core as typed, which refuses it naming --all.
      ...(args.all !== undefined ? { all: allOf(args.all) as boolean } : {}),
      sender,
      ...(privateKey !== undefined ? { privateKey } : {}),
    });
    const result = args.noWait
      ? approved
      : await withSpinner(`waiting for ${approved.transactionHash} to be mined`, () => service.operations.settle(approved, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    printWarnings(result);
    const on = `on ${chainLabel(result, service)}`;
    if (result.all !== undefined) {
      const verb = result.all ? "Approved" : "Revoked";
      console.log(`${verb} ${result.spender} as operator of every token of ${result.contractAddress} held by ${result.sender} ${on}`);
    } else if (result.tokenId !== undefined) {
      console.log(`Approved ${result.spender} for token #${result.tokenId} of ${result.contractAddress} ${on}`);
    } else {
      console.log(
        `Approved ${result.spender} to spend ${args.amount} ${token?.symbol ?? ""} of ${result.sender} (${result.contractAddress}) ${on}`,
      );
    }
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}${result.blockNumber !== null ? ` (block ${result.blockNumber})` : ""}`);
  });
}
