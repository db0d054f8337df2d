import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { VerificationRecord } from "../../core/verifications/types.js";
import { parseEvmAddress } from "../../domain/addresses.js";
import { invalidArgument } from "../../domain/errors.js";
import { pluginError } from "./support/plugin-error.js";
import { chainLabel, printJson, withService } from "./support/run.js";
import { withSpinner } from "./support/spinner.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  address?: string;
  explorer?: string;
  json?: boolean;
}

/** As GET /verifications/{id} answers it. */
function present({ apiKeyId: _apiKeyId, operationId: _operationId, ...record }: VerificationRecord) {
  return record;
}

/**
 * `token:verify`: the core's verification path (the one POST /tokens/{address}/verify takes), for a launch the tasks
 * recorded (in DATABASE_URL or the data directory's store): a record is written, submitted to the explorer and asked
 * about until it is final (TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS at most), then printed. A `serve` on the same store may
 * carry it on: the record is leased, never submitted twice.
 */
export default async function tokenVerify(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true, verifies: true }, async (service, pair, store) => {
    if (args.address === undefined) throw invalidArgument("address", "--address is required: the token's contract address");
    if (args.explorer === undefined) throw invalidArgument("explorer", "--explorer is required: etherscan, blockscout or sourcify");
    const address = parseEvmAddress(args.address, "address");
    const verifications = service.verifications;
    if (verifications === undefined || store === undefined) throw new Error("token:verify opens the store");
    const requested = await verifications.request(
      null,
      { chain: pair.chain, network: pair.network, address, explorer: args.explorer },
      (chain, network, contractAddress) => store.findOwnLaunch(null, chain, network, contractAddress),
    );
    verifications.start();
    const record = await withSpinner(`waiting for ${args.explorer} to verify ${requested.address}`, () =>
      verifications.wait(null, requested.id, verifications.timeoutMs + 60_000),
    );
    if (args.json) printJson(present(record));
    else {
      console.log(
        `Verification ${record.id} of ${record.address} on ${record.explorer}, ${chainLabel({ ...record, simulated: false }, service)}`,
      );
      console.log(`  status           ${record.status}`);
      console.log(`  explorerMessage  ${record.explorerMessage ?? "(none yet)"}`);
      if (record.url !== null) console.log(`  url              ${record.url}`);
    }
    if (record.status === "failed") throw pluginError(`the verification failed: ${record.explorerMessage ?? "no answer"}`);
  });
}
