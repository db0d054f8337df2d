import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { runSignedWrite, type SignerOptions } from "./support/signed-write.js";

interface Args extends SignerOptions {
  contract?: string;
  unpause?: boolean;
}

export default async function tokenPause(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await runSignedWrite(
    hre,
    args,
    (service, pair, signer) => service.pause({ ...pair, contractAddress: args.contract ?? "", paused: !args.unpause, ...signer }),
    (result) => `${result.paused ? "Paused" : "Unpaused"} ${result.contractAddress}`,
  );
}
