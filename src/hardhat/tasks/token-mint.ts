import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { TokenServiceError, isTokenServiceError } from "../../domain/errors.js";
import type { MintOutcome } from "../../core/operations/operations.js";
import type { TokenService } from "../../core/token-service.js";
import type { MintRecipientRequest, MintRecipientResult } from "../../domain/requests.js";
import { parseTokenType } from "../../domain/token-params.js";
import { formatUnits, parseDecimalUnits } from "../../domain/units.js";
import { resolveSigner, signerSource } from "./support/private-key.js";
import { readRecipientsOption } from "./support/recipients-option.js";
import { TASK_WAIT_MS, chainLabel, printJson, printWarnings, withService } from "./support/run.js";
import { withSpinner } from "./support/spinner.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  type?: string;
  contract?: string;
  to?: string;
  tokenId?: string;
  uri?: string;
  amount?: string;
  /** A batch: a JSON array inline, or a JSON file's path (see readRecipientsOption). */
  recipients?: string;
  sender?: string;
  privateKeyEnv?: string;
  from?: string;
  /** Refused: see refusePrivateKeyOption. */
  privateKey?: string;
  noWait?: boolean;
  json?: boolean;
}

type Token = { decimals?: number; symbol?: string };

function isErc20(type: string | undefined): boolean {
  try {
    return parseTokenType(type) === "ERC20";
  } catch {
    return false; // the core names the bad --type
  }
}

/** An ERC20 mint's --amount is in whole tokens: the contract's decimals say how many smallest units that is. */
async function erc20Token(service: TokenService, request: { chain: string; network: string; tokenAddress: string; address: string }) {
  try {
    return await service.getTokenBalance({ ...request, type: "erc20" });
  } catch (error) {
    // The balance read names its own field; here the contract came from --contract.
    if (isTokenServiceError(error) && error.field === "tokenAddress")
      throw new TokenServiceError(error.code, error.message, { field: "contractAddress" });
    throw error;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A batch's ERC20 amounts are whole tokens too, as --amount is: each becomes smallest units at the token's decimals.
 * Anything that is not a list of objects with a string or number amount goes to the core as typed, which refuses it
 * with its own message.
 */
function inSmallestUnits(recipients: unknown, token: Token): unknown {
  if (!Array.isArray(recipients)) return recipients;
  return recipients.map((item: unknown, index) => {
    if (!isObject(item) || (typeof item.amount !== "string" && typeof item.amount !== "number")) return item;
    const amount = parseDecimalUnits(String(item.amount), token.decimals ?? 18, `recipients[${index}].amount`);
    return { ...item, amount: amount.toString() };
  });
}

const hasAmount = (recipients: unknown) => Array.isArray(recipients) && recipients.some((item) => isObject(item) && "amount" in item);

/** Smallest units of an ERC20 as whole tokens with the symbol: "250.5 GLD". */
const wholeTokens = (amount: bigint, token: Token | undefined) =>
  `${formatUnits(amount, token?.decimals ?? 18)} ${token?.symbol ?? ""}`.trim();

const total = (recipients: MintRecipientResult[]) => recipients.reduce((sum, item) => sum + BigInt(item.amount ?? 0), 0n);

/** What one recipient of a batch received, as a person reads it; `mintedId` is an ERC721's id once mined. */
function received(type: string, recipient: MintRecipientResult, token: Token | undefined, mintedId: string | undefined): string {
  if (type === "ERC20") return wholeTokens(BigInt(recipient.amount ?? 0), token);
  if (type === "ERC1155") return `${recipient.amount} of token #${recipient.tokenId}`;
  const id = mintedId ?? recipient.tokenId;
  return id === undefined ? "a token (its id is known once mined)" : `token #${id}`;
}

/** What a batch minted in all, as a person reads it: "350.5 GLD", "2 tokens". */
function batchTotal(type: string, recipients: MintRecipientResult[], token: Token | undefined): string {
  if (type === "ERC20") return wholeTokens(total(recipients), token);
  const count = type === "ERC1155" ? total(recipients) : BigInt(recipients.length);
  return `${count} token${count === 1n ? "" : "s"}`;
}

/** A batch as a person reads it: the total, each recipient's share (an ERC721's id once mined), and the operation. */
function printBatch(result: MintOutcome & { recipients: MintRecipientResult[] }, token: Token | undefined, service: TokenService): void {
  const { recipients } = result;
  const ids = result.type === "ERC721" ? result.tokenIds : undefined;
  console.log(
    `Minted ${batchTotal(result.type, recipients, token)} of ${result.contractAddress} to ${recipients.length} ` +
      `recipient${recipients.length === 1 ? "" : "s"} in one transaction on ${chainLabel(result, service)}`,
  );
  const width = Math.max(...recipients.map((item) => item.to.length));
  recipients.forEach((item, index) => console.log(`  ${item.to.padEnd(width)}  ${received(result.type, item, token, ids?.[index])}`));
  console.log(`  operation        ${result.id}`);
  console.log(`  transactionHash  ${result.transactionHash}`);
  console.log(`  status           ${result.status}${result.blockNumber !== null ? ` (block ${result.blockNumber})` : ""}`);
}

export default async function tokenMint(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    // Read before the signer is looked for: a batch that is not JSON is refused without touching a key.
    const recipients = args.recipients === undefined ? undefined : await readRecipientsOption(args.recipients);
    const batch = recipients !== undefined;
    const { sender, privateKey } = await resolveSigner(hre, signerSource(args));
    const token =
      isErc20(args.type) && (args.amount !== undefined || hasAmount(recipients))
        ? await erc20Token(service, { ...pair, tokenAddress: args.contract ?? "", address: sender })
        : undefined;
    const minted = await service.operations.mint({
      ...pair,
      type: args.type ?? "",
      contractAddress: args.contract ?? "",
      // The core checks the list (its length, each recipient's fields) as it checks an HTTP body's. A batch names each
      // recipient's own `to`; --to, --amount, --token-id or --uri beside it go to the core too, which refuses them.
      ...(batch ? { recipients: (token ? inSmallestUnits(recipients, token) : recipients) as MintRecipientRequest[] } : {}),
      ...(args.to !== undefined || !batch ? { to: args.to ?? sender } : {}),
      ...(args.tokenId !== undefined ? { tokenId: args.tokenId } : {}),
      ...(args.uri !== undefined ? { uri: args.uri } : {}),
      // An ERC721 --amount goes to the core as typed, which refuses it with its own message.
      ...(args.amount !== undefined
        ? { amount: token ? parseDecimalUnits(args.amount, token.decimals ?? 18, "amount").toString() : args.amount }
        : {}),
      sender,
      ...(privateKey !== undefined ? { privateKey } : {}),
    });
    const result = args.noWait
      ? minted
      : await withSpinner(`waiting for ${minted.transactionHash} to be mined`, () => service.operations.settle(minted, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    printWarnings(result);
    if (result.recipients !== undefined) return printBatch({ ...result, recipients: result.recipients }, token, service);
    const what =
      result.type === "ERC721"
        ? `token #${result.tokenId ?? "?"}`
        : result.type === "ERC1155"
          ? `${args.amount} of token #${result.tokenId}`
          : `${args.amount} ${token?.symbol ?? ""}`;
    console.log(`Minted ${what} of ${result.contractAddress} to ${result.to} on ${chainLabel(result, service)}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}`);
  });
}
