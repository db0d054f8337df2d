import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { runSignedWrite, type SignerOptions } from "./support/signed-write.js";

export interface RoleArgs extends SignerOptions {
  contract?: string;
  role?: string;
  account?: string;
}

/** token:grant-role and token:revoke-role. */
export async function tokenRole(args: RoleArgs, hre: HardhatRuntimeEnvironment, grant: boolean): Promise<void> {
  await runSignedWrite(
    hre,
    args,
    (service, pair, signer) => {
      const request = { ...pair, contractAddress: args.contract ?? "", role: args.role ?? "", account: args.account ?? "", ...signer };
      return grant ? service.grantRole(request) : service.revokeRole(request);
    },
    (result) =>
      grant
        ? `Granted ${result.role} of ${result.contractAddress} to ${result.account}`
        : `Revoked ${result.role} of ${result.contractAddress} from ${result.account}`,
  );
}
