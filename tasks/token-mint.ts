import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

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
  noWait?: boolean;
  json?: boolean;
}

export default async function tokenMint(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, args.json === true, async (service) => {
    const { sender, privateKey } = await resolveSigner(hre, { ...(args.privateKeyEnv ? { privateKeyEnv: args.privateKeyEnv } : {}), ...(args.sender ? { sender: args.sender } : {}) });
    const pair = { chain: args.chain ?? "", network: args.chainNetwork ?? "" };
    const minted = await service.operations.mint({
      ...pair,
      type: args.type ?? "",
      contractAddress: args.contract ?? "",
      to: args.to ?? sender,
      ...(args.tokenId !== undefined ? { tokenId: args.tokenId } : {}),
      ...(args.uri !== undefined ? { uri: args.uri } : {}),
      ...(args.amount !== undefined ? { amount: args.amount } : {}),
      sender,
      privateKey,
    });
    const result = args.noWait
      ? minted
      : await withSpinner(`waiting for ${minted.transactionHash} to be mined`, () => service.operations.settle(minted, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    const what = result.type === "ERC721" ? `token #${result.tokenId ?? "?"}` : `${result.amount} units`;
    console.log(`Minted ${what} of ${result.contractAddress} to ${result.to} on ${chainLabel(result)}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}`);
  });
}
