import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { chainLabel, printJson, withService } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  address?: string;
  amount?: string;
  json?: boolean;
}

export default async function faucet(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, args.json === true, async (service) => {
    const result = await service.faucet({
      chain: args.chain ?? "",
      network: args.chainNetwork ?? "",
      address: args.address ?? "",
      ...(args.amount ? { amount: args.amount } : {}),
    });
    if (args.json) return printJson(result);
    const symbol = service.networks().find((pair) => pair.chain === result.chain && pair.network === result.network)?.nativeSymbol ?? "";
    console.log(`Funded ${result.address} with ${result.amount.uiBalance} ${symbol} on ${chainLabel(result)}`);
    console.log(`  balance now ${result.balance.uiBalance} ${symbol}`);
  });
}
