import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { parseDecimalUnits } from "../../domain/units.js";
import { chainLabel, printJson, printWarnings, withService } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  address?: string;
  amount?: string;
  json?: boolean;
}

export default async function faucet(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    // In whole units of the native currency, as the default (10) is.
    const amount =
      args.amount === undefined
        ? undefined
        : parseDecimalUnits(args.amount, service.chains.resolve(pair.chain, pair.network).nativeDecimals, "amount");
    const result = await service.operations.faucet({
      ...pair,
      address: args.address ?? "",
      ...(amount !== undefined ? { amount: amount.toString() } : {}),
    });
    if (args.json) return printJson(result);
    printWarnings(result);
    const symbol = service.networks().find((pair) => pair.chain === result.chain && pair.network === result.network)?.nativeSymbol ?? "";
    console.log(`Funded ${result.address} with ${result.amount.uiBalance} ${symbol} on ${chainLabel(result, service)}`);
    console.log(`  balance now ${result.balance.uiBalance} ${symbol}`);
  });
}
