import type { TokenVerification } from "./verification-input.js";

// What the verification worker (src/core/verifications/) asks of an explorer, whichever it is: submit a contract's
// verification input, then check on the submission by the reference the explorer gave. Each answer is sorted into what
// the worker does next, with the explorer's own words kept (docs/decisions/0061-explorer-verification.md).

export const EXPLORERS = ["etherscan", "blockscout", "sourcify"] as const;
export type ExplorerName = (typeof EXPLORERS)[number];

export interface ExplorerSubmission {
  chainId: number;
  /** Checksummed. */
  address: string;
  verification: TokenVerification;
  /** The launch's transaction: Sourcify checks the creation code against it. */
  creationTransactionHash: string | null;
}

/** What the explorer said, sorted: `words` are its own (a message, a status line). */
export type ExplorerAnswer =
  /** It took the submission: ask again with `reference` (Etherscan's guid, Sourcify's verificationId). */
  | { outcome: "accepted"; reference: string; words: string }
  /** Verified now, or already before ("already verified" counts). */
  | { outcome: "verified"; words: string }
  /** It refused or could not verify: final. */
  | { outcome: "failed"; words: string }
  /** Not decided yet (in its queue, or it does not see the contract yet, or it could not be reached): ask again later. */
  | { outcome: "pending"; words: string };

export interface ExplorerClient {
  readonly name: ExplorerName;
  /** Names the explorer in messages: "Etherscan", "Blockscout (https://eth-sepolia.blockscout.com)". */
  readonly label: string;
  submit(submission: ExplorerSubmission): Promise<ExplorerAnswer>;
  /** Asks about a submission it accepted. */
  check(reference: string, submission: Pick<ExplorerSubmission, "chainId" | "address">): Promise<ExplorerAnswer>;
  /** The contract's page, where the explorer has one people read. */
  contractUrl(chainId: number, address: string): string | null;
}

/** One request to an explorer: no answer (a connection error, a timeout) comes back as `pending` with what happened. */
export async function explorerRequest(
  label: string,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; body: unknown } | { outcome: "pending"; words: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return { outcome: "pending", words: `${label} could not be reached: ${cause}` };
  }
}

/** A 429 or 5xx: the explorer is busy or down, not refusing the contract. */
export function transient(status: number): boolean {
  return status === 429 || status >= 500;
}

/** An answer's text, at most `max` characters (an HTML error page would be long). */
export function wordsOf(body: unknown, max = 500): string {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
