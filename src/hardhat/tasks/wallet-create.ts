import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { invalidArgument } from "../../domain/errors.js";
import { printJson, withService } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  addressType?: string;
  custody?: string;
  json?: boolean;
}

export default async function walletCreate(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  const custody = args.custody ?? "caller";
  if (custody !== "caller" && custody !== "service") throw invalidArgument("custody", "--custody is caller (default) or service");
  // A held wallet lives in the service's store (DATABASE_URL, else the data directory's), as its records do.
  await withService(hre, { ...args, recordsOperations: custody === "service" }, async (service, pair) => {
    if (custody === "service") {
      if (args.addressType !== undefined && args.addressType !== "p2wpkh") {
        throw invalidArgument("addressType", "a held bitcoin wallet is native SegWit (p2wpkh, BIP-84)");
      }
      const held = await service.custody.create("operator", pair.chain, pair.network);
      if (args.json) return printJson(held);
      console.log(`New held ${held.chain}/${held.network} wallet (source: ${held.source})`);
      console.log(`  address     ${held.address}`);
      console.log("The service keeps its key (docs/custody.md): sign with --from on the write tasks; no key is shown.");
      return;
    }
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
