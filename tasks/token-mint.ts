import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { resolveSigner } from "./support/private-key.js";
import { chainLabel, printJson, withService } from "./support/run.js";
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
    const minted = await service.mintToken({
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
    let result: Omit<typeof minted, "status"> & { blockNumber?: number | null; status: string } = minted;
    if (!args.noWait) {
      const mined = await withSpinner(`waiting for ${minted.transactionHash} to be mined`, () =>
        service.waitForTransaction({ ...pair, transactionHash: minted.transactionHash }),
      );
      const tokenId =
        minted.type === "ERC721" && mined.status === "mined"
          ? await service.mintedTokenId({ ...pair, transactionHash: minted.transactionHash, contractAddress: minted.contractAddress })
          : minted.tokenId;
      result = { ...minted, status: mined.status, blockNumber: mined.blockNumber, ...(tokenId !== undefined ? { tokenId } : {}) };
    }
    if (args.json) return printJson(result);
    const what = result.type === "ERC721" ? `token #${result.tokenId ?? "?"}` : `${result.amount} units`;
    console.log(`Minted ${what} of ${result.contractAddress} to ${result.to} on ${chainLabel(result)}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}`);
  });
}
