import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { OperationStatus } from "../../../core/operations/types.js";
import type { TokenService } from "../../../core/token-service.js";
import { resolveSigner, signerSource } from "./private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, printWarnings, withService, type TaskOptions, type TaskPair } from "./run.js";
import { withSpinner } from "./spinner.js";

/** The options of every task that signs a write. */
export interface SignerOptions extends TaskOptions {
  sender?: string;
  privateKeyEnv?: string;
  /** A held wallet the service signs for. */
  from?: string;
  noWait?: boolean;
}

type Written = {
  id: string;
  transactionHash: string;
  status: OperationStatus;
  blockNumber: number | null;
  chain: string;
  network: string;
  simulated: boolean;
  /** An amount that looks like a unit mix-up (domain/amount-echo.ts). */
  warnings?: ReadonlyArray<{ code: string; field: string; message: string }>;
};

/**
 * One recorded write from a task: the signer from --private-key-env or the network's accounts, the write sent, its
 * mining waited for (unless --no-wait), and the result printed: one JSON object, or `headline` on the pair and the
 * transaction's hash and status.
 */
export async function runSignedWrite<T extends Written>(
  hre: HardhatRuntimeEnvironment,
  args: SignerOptions,
  write: (service: TokenService, pair: TaskPair, signer: { sender: string; privateKey?: string }) => Promise<T>,
  headline: (result: T) => string,
): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    const signer = await resolveSigner(hre, signerSource(args));
    const sent = await write(service, pair, signer);
    const result: T = args.noWait
      ? sent
      : await withSpinner(`waiting for ${sent.transactionHash} to be mined`, () => service.operations.settle(sent, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    printWarnings(result);
    console.log(`${headline(result)} on ${chainLabel(result, service)}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}${result.blockNumber !== null ? ` (block ${result.blockNumber})` : ""}`);
  });
}
