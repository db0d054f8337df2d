import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { TOKEN_CALL_KINDS, type TokenCallKindName } from "../../domain/kinds/index.js";
import { runSignedWrite, type SignerOptions } from "./support/signed-write.js";

// The action of every task made from a write kind of domain/kinds/ (tasks/token-calls.ts declares them): the kind's
// fields from their options (left out: empty, so that the core names the field it refuses), written as every signed
// write is, and the kind's headline printed.

type Args = SignerOptions & { contract?: string } & Record<string, unknown>;

export function tokenCallAction(name: TokenCallKindName) {
  const kind = TOKEN_CALL_KINDS.find((candidate) => candidate.name === name)!;
  return async function tokenCall(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
    const fields = Object.fromEntries(Object.keys(kind.fields).map((field) => [field, typeof args[field] === "string" ? args[field] : ""]));
    await runSignedWrite(
      hre,
      args,
      // The kind is the task's, known at run time: its request is one of the registry's, so it is written untyped.
      (service, pair, signer) =>
        service.operations.write(kind.name, {
          ...pair,
          contractAddress: args.contract ?? "",
          ...fields,
          ...signer,
        } as never),
      (result) => kind.task.headline(result),
    );
  };
}
