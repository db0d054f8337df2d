import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { invalidArgument } from "../../domain/errors.js";
import { printJson, withService } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  addressType?: string;
  custody?: string;
  apiKeyId?: string;
  json?: boolean;
}

export default async function walletCreate(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  const custody = args.custody ?? "caller";
  if (custody !== "caller" && custody !== "service") throw invalidArgument("custody", "--custody is caller (default) or service");
  // A held wallet lives in the service's store (DATABASE_URL, else the data directory's), as its records do.
  if (args.apiKeyId !== undefined && custody !== "service") {
    throw invalidArgument("apiKeyId", "--api-key-id names the owner of a held wallet: use it with --custody service");
  }
  await withService(hre, { ...args, recordsOperations: custody === "service" }, async (service, pair, store) => {
    if (custody === "service") {
      if (args.addressType !== undefined && args.addressType !== "p2wpkh") {
        throw invalidArgument("addressType", "a held bitcoin wallet is native SegWit (p2wpkh, BIP-84)");
      }
      // Owned by an API key, the wallet is that key's over HTTP (listed, policed, signing its writes); else the operator's.
      if (args.apiKeyId !== undefined && !(await store!.listApiKeys()).some((key) => key.id === args.apiKeyId)) {
        throw invalidArgument("apiKeyId", `no API key ${args.apiKeyId} in the ${store!.kind} store: apikey:create prints the ids`);
      }
      const held = await service.custody.create(
        args.apiKeyId === undefined ? "operator" : { apiKeyId: args.apiKeyId },
        pair.chain,
        pair.network,
      );
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
