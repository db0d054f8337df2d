import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { chainLabel, printJson, withService } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  address?: string;
  erc20?: string;
  erc721?: string;
  json?: boolean;
}

const splitList = (value: string | undefined) =>
  value
    ? value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean)
    : [];

export default async function balance(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, args, async (service, pair) => {
    const request = { ...pair, address: args.address ?? "" };
    const result = await service.getBalances({ ...request, erc20TokenContractAddresses: splitList(args.erc20) });
    const nfts = await Promise.all(
      splitList(args.erc721).map((tokenAddress) => service.getTokenBalance({ ...request, tokenAddress, type: "erc721" })),
    );
    if (args.json) return printJson(nfts.length > 0 ? { ...result, erc721: nfts } : result);
    console.log(`Balances of ${result.address} on ${chainLabel(result, service)}`);
    for (const [key, entry] of Object.entries(result.balances)) {
      const label = entry.symbol !== undefined && entry.symbol !== key ? `${entry.symbol} (${key})` : key;
      const contract = entry.contractAddress ? `  [${entry.contractAddress}]` : "";
      const split =
        entry.unconfirmed && entry.unconfirmed.balance !== "0"
          ? `  (confirmed ${entry.confirmed?.uiBalance}, unconfirmed ${entry.unconfirmed.uiBalance})`
          : "";
      console.log(`  ${label.padEnd(10)} ${entry.uiBalance}${contract}${split}`);
    }
    for (const nft of nfts) {
      console.log(
        `  ${(nft.symbol ?? "ERC721").padEnd(10)} ${nft.balance} token(s)${nft.tokenIds?.length ? `: #${nft.tokenIds.join(", #")}` : ""}  [${nft.tokenAddress}]`,
      );
    }
  });
}
