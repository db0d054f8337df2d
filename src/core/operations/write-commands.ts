import { parseBurnCommand, parsePauseCommand } from "../../domain/admin-commands.js";
import type { BurnRequest, BurnResult, PauseRequest, PauseResult } from "../../domain/admin-requests.js";
import type { ChainRegistry } from "../../domain/chains.js";
import { parseLaunchCommand } from "../../domain/commands.js";
import { parseMintCommand } from "../../domain/mint-commands.js";
import type { LaunchRequest, LaunchResult, MintRequest, MintResult, SigningFields, Unsigned } from "../../domain/requests.js";
import { parseApproveCommand, parseTransferCommand } from "../../domain/transfer-commands.js";
import type { ApproveRequest, ApproveResult, TransferRequest, TransferResult } from "../../domain/transfer-requests.js";
import { burnIntent, pauseIntent } from "./admin-intents.js";
import type { FirstUseCompiler } from "../../chains/evm/variants/first-use-compiler.js";
import { approveIntent, launchIntent, mintIntent, transferIntent, type WriteIntent } from "./intents.js";
import { TOKEN_CALL_COMMANDS } from "./token-call-intents.js";
import { implementationIntent, upgradeIntent, type ImplementationResult } from "./upgrade-intents.js";
import type { ImplementationRequest, UpgradeCallRequest, UpgradeResult } from "../../domain/upgrades.js";

// Every write the service makes, by name: how its request becomes the one intent the pipeline records, signs, sends and
// tracks (Operations.write and Operations.prepare). A door names the command; it never builds an intent itself.

/** What a command may need besides the chains: the compiler of variants a launch needs first (variants/). */
export interface IntentTools {
  variants: FirstUseCompiler;
}

export interface WriteCommand<Request, Answer> {
  /** The request parsed once into its command, and the write that command is. */
  intent(request: Unsigned<Request>, chains: ChainRegistry, tools: IntentTools): WriteIntent<Answer> | Promise<WriteIntent<Answer>>;
}

const command = <Request, Answer>(intent: WriteCommand<Request, Answer>["intent"]): WriteCommand<Request, Answer> => ({ intent });

export const WRITE_COMMANDS = {
  launch: command<LaunchRequest, LaunchResult>((request, chains, tools) =>
    launchIntent(parseLaunchCommand(request, chains), request.token, tools.variants),
  ),
  mint: command<MintRequest, MintResult>((request, chains) => mintIntent(parseMintCommand(request, chains))),
  transfer: command<TransferRequest, TransferResult>((request, chains) => transferIntent(parseTransferCommand(request, chains))),
  approve: command<ApproveRequest, ApproveResult>((request, chains) => approveIntent(parseApproveCommand(request, chains))),
  burn: command<BurnRequest, BurnResult>((request, chains) => burnIntent(parseBurnCommand(request, chains))),
  pause: command<PauseRequest, PauseResult>((request, chains) => pauseIntent(parsePauseCommand(request, chains))),
  // An upgrade's two writes (core/upgrades.ts makes them, after its checks).
  deployImplementation: command<ImplementationRequest, ImplementationResult>((request, chains, tools) =>
    implementationIntent(request, chains, tools.variants),
  ),
  upgrade: command<UpgradeCallRequest, UpgradeResult>((request, chains, tools) => upgradeIntent(request, chains, tools.variants)),
  // The kinds of domain/kinds/, each described by one module there.
  ...TOKEN_CALL_COMMANDS,
};

export type WriteCommandName = keyof typeof WRITE_COMMANDS;
type Intent<N extends WriteCommandName> = (typeof WRITE_COMMANDS)[N]["intent"];
/** What a command takes to be prepared: its fields, the pair and the sender. */
export type UnsignedRequestOf<N extends WriteCommandName> = Parameters<Intent<N>>[0];
/** What a command takes to be sent: also who signs. */
export type RequestOf<N extends WriteCommandName> = UnsignedRequestOf<N> & SigningFields;
/** What the node's acceptance of a command's transaction answers. */
export type AnswerOf<N extends WriteCommandName> = Awaited<ReturnType<Intent<N>>> extends WriteIntent<infer A> ? A : never;
