import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { runSignedWrite, type SignerOptions } from "./support/signed-write.js";

interface Args extends SignerOptions {
  contract?: string;
  newOwner?: string;
}

export default async function tokenTransferOwnership(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await runSignedWrite(
    hre,
    args,
    (service, pair, signer) =>
      service.transferOwnership({ ...pair, contractAddress: args.contract ?? "", newOwner: args.newOwner ?? "", ...signer }),
    (result) => `Handed ${result.contractAddress} from ${result.sender} to ${result.newOwner}`,
  );
}
