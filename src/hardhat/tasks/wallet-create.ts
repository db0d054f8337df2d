import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { printJson, withService } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  addressType?: string;
  json?: boolean;
}

export default async function walletCreate(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, args, async (service, pair) => {
    const wallet = service.createWallet({
      ...pair,
      ...(args.addressType ? { addressType: args.addressType } : {}),
    });
    if (args.json) return printJson(wallet);
    console.log(`New ${wallet.chain}/${wallet.network} wallet${wallet.addressType ? ` (${wallet.addressType})` : ""}`);
    console.log(`  address     ${wallet.address}`);
    console.log(`  privateKey  ${wallet.privateKey}`);
    console.log("The private key is shown once and stored nowhere: keep it safe.");
  });
}
