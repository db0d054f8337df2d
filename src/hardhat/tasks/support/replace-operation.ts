import { Wallet, isHexString } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { ReplacementKind, ReplacementOutcome } from "../../../core/operations/replacements.js";
import type { OperationRecord } from "../../../core/operations/types.js";
import type { TokenService } from "../../../core/token-service.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../../domain/errors.js";
import { isFinal } from "../../../domain/lifecycle.js";
import { resolveSigner } from "./private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, withService, type TaskPair } from "./run.js";
import { withSpinner } from "./spinner.js";

interface Args {
  id?: string;
  chain?: string;
  chainNetwork?: string;
  privateKeyEnv?: string;
  /** Refused: see refusePrivateKeyOption. */
  privateKey?: string;
  noWait?: boolean;
  json?: boolean;
}

/** The operation `--id` names: its record id, or a hash it was sent as on the task's pair. */
async function operationId(service: TokenService, pair: TaskPair, id: string | undefined): Promise<string> {
  if (id === undefined || id === "")
    throw invalidArgument("id", "--id is required: the operation's id, or a transaction hash it was sent as");
  if (!isHexString(id, 32)) return id;
  if (pair.chain === "" || pair.network === "") {
    throw invalidArgument(
      "id",
      "a transaction hash names an operation on one pair: give --chain and --chain-network (or an HTTP --network)",
    );
  }
  const found = await service.operations.store.findByTransactionHash(pair.chain, pair.network, id);
  if (found === undefined)
    throw new TokenServiceError(ErrorCode.OPERATION_NOT_FOUND, `no operation was sent as ${id} on ${pair.chain}/${pair.network}`, {
      field: "id",
    });
  return found.id;
}

/**
 * `token:speed-up` and `token:cancel`: the step signed ahead is sent; where none is (a caller-signed operation, or its
 * steps used up), the replacement is prepared, signed here with the sender's key (from `--private-key-env` or the
 * network's accounts, never the command line), and sent. Then waits for the operation to be final, unless --no-wait.
 */
export async function replaceOperation(kind: ReplacementKind, args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    const id = await operationId(service, pair, args.id);
    const replace = (request = {}): Promise<ReplacementOutcome> =>
      kind === "cancel" ? service.cancelOperation(id, request) : service.speedUp(id, request);
    let outcome = await replace();
    if ("prepared" in outcome) {
      const { prepared } = outcome;
      const { privateKey } = await resolveSigner(hre, {
        ...(args.privateKeyEnv ? { privateKeyEnv: args.privateKeyEnv } : {}),
        sender: prepared.sender,
      });
      // Prepared only where the service holds no key for the sender: the key comes from the task's options.
      if (privateKey === undefined) throw new Error("a prepared replacement is signed with the sender's own key");
      const signedTransaction = await new Wallet(privateKey).signTransaction(prepared.unsignedTransaction);
      outcome = await replace({ signedTransaction });
    }
    if (!("sent" in outcome)) throw new Error("a signed replacement is sent");
    const sent = outcome.sent;
    const record: OperationRecord = args.noWait
      ? sent
      : await withSpinner(`waiting for operation ${id} to be final`, () => service.operations.wait(id, TASK_WAIT_MS));
    if (args.json) return printJson(record);
    const simulated = service.networks().find((each) => each.chain === record.chain && each.network === record.network)?.simulated ?? false;
    const what = kind === "cancel" ? "Cancel sent for" : "Sped up";
    console.log(`${what} operation ${record.id} (${record.kind}) on ${chainLabel({ ...record, simulated }, service)}`);
    console.log(
      `  transactionHash  ${record.transactionHash}${sent.transactionHash !== record.transactionHash ? ` (sent ${sent.transactionHash})` : ""}`,
    );
    console.log(`  status           ${record.status}${record.blockNumber !== null ? ` (block ${record.blockNumber})` : ""}`);
    if (!isFinal(record.status) && record.stuck !== null) console.log(`  stuck            ${record.stuck.reason}`);
  });
}
