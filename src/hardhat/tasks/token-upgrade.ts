import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { invalidArgument } from "../../domain/errors.js";
import { pluginError } from "./support/plugin-error.js";
import { resolveSigner, signerSource } from "./support/private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, withService } from "./support/run.js";
import type { SignerOptions } from "./support/signed-write.js";
import { withSpinner } from "./support/spinner.js";
import { parseOptionsArgument } from "./token-launch.js";

interface Args extends SignerOptions {
  contract?: string;
  options?: string;
}

/**
 * `token:upgrade`: the core's upgrade (the one POST /tokens/upgrade takes, docs/decisions/0066-upgrade-write.md) for a
 * launch the tasks recorded (in DATABASE_URL or the data directory's store): checked, the implementation deployed if
 * needed and waited for, then the upgrade sent and, unless --no-wait, waited for.
 */
export default async function tokenUpgrade(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair, store) => {
    if (args.options === undefined) throw invalidArgument("options", "--options is required: the new implementation's options");
    if (store === undefined) throw new Error("token:upgrade opens the store");
    const signer = await resolveSigner(hre, signerSource(args));
    const request = { ...pair, contractAddress: args.contract ?? "", options: parseOptionsArgument(args.options), ...signer };
    const outcome = await withSpinner("checking the upgrade (upgrades-core) and deploying the implementation", () =>
      service.upgrades.upgrade(request, store, { apiKeyId: null }, TASK_WAIT_MS),
    );
    if ("awaiting" in outcome) {
      if (args.json) return printJson(outcome.awaiting);
      const { implementation } = outcome.awaiting;
      throw pluginError(
        `the implementation ${implementation.address} (operation ${implementation.operationId}) is ${implementation.status}, not mined: no upgrade was sent; run the same task again to go on`,
      );
    }
    const sent = outcome.upgraded;
    const result = args.noWait
      ? sent
      : await withSpinner(`waiting for ${sent.transactionHash} to be mined`, () => service.operations.settle(sent, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    console.log(`Upgraded ${result.contractAddress} to ${result.variant} on ${chainLabel(result, service)}`);
    console.log(
      `  implementation   ${result.implementation.address}${result.implementation.operationId === null ? " (already deployed)" : ""}`,
    );
    console.log(`  previous         ${result.previousImplementation}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}${result.blockNumber !== null ? ` (block ${result.blockNumber})` : ""}`);
  });
}
