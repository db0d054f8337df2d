import {
  explorerRequest,
  transient,
  wordsOf,
  type ExplorerAnswer,
  type ExplorerClient,
  type ExplorerName,
  type ExplorerSubmission,
} from "./explorer-client.js";

// Etherscan's contract API (API v2: one URL for every chain, `chainid=` names it, one key) and Blockscout's
// Etherscan-compatible one (an instance per chain, no key): `verifysourcecode` with the standard JSON input, answered
// with a guid, then `checkverifystatus` with it. The fields and answers are those @nomicfoundation/hardhat-verify reads
// (docs/decisions/0061-explorer-verification.md).

export const ETHERSCAN_API_URL = "https://api.etherscan.io/v2/api";

/** Etherscan's sites, by chain id, for a contract's page (the API is one; the pages are per chain). */
const ETHERSCAN_SITES: Readonly<Record<number, string>> = {
  1: "https://etherscan.io",
  11155111: "https://sepolia.etherscan.io",
  17000: "https://holesky.etherscan.io",
  560048: "https://hoodi.etherscan.io",
  56: "https://bscscan.com",
  97: "https://testnet.bscscan.com",
  8453: "https://basescan.org",
  84532: "https://sepolia.basescan.org",
  42161: "https://arbiscan.io",
  421614: "https://sepolia.arbiscan.io",
  10: "https://optimistic.etherscan.io",
  11155420: "https://sepolia-optimism.etherscan.io",
  137: "https://polygonscan.com",
  80002: "https://amoy.polygonscan.com",
  43114: "https://snowscan.xyz",
  43113: "https://testnet.snowscan.xyz",
};

const ALREADY_VERIFIED = [/^Contract source code already verified/i, /^Already Verified/i, /^Smart-contract already verified/i];
/** The explorer does not see the contract yet (it indexes new blocks with a delay): submitted again later. */
const NOT_INDEXED_YET = [/^Unable to locate ContractCode at/i, /not (yet )?(been )?indexed/i];
const RATE_LIMITED = /rate limit/i;

export interface EtherscanCompatibleSettings {
  name: Extract<ExplorerName, "etherscan" | "blockscout">;
  /** The API's URL: Etherscan's v2 URL, or a Blockscout instance's `/api`. */
  apiUrl: string;
  /** Etherscan's key; Blockscout takes none. */
  apiKey?: string;
  /** Where a contract's page is: Blockscout's instance; undefined for Etherscan (its sites by chain id). */
  siteUrl?: string;
  timeoutMs: number;
}

export class EtherscanCompatibleClient implements ExplorerClient {
  readonly name: EtherscanCompatibleSettings["name"];
  readonly label: string;

  constructor(private readonly settings: EtherscanCompatibleSettings) {
    this.name = settings.name;
    this.label = settings.name === "etherscan" ? "Etherscan" : `Blockscout (${settings.siteUrl ?? settings.apiUrl})`;
  }

  /** Etherscan v2 names the chain in every call; Blockscout's instance is the chain's. */
  private query(chainId: number, params: Record<string, string>): string {
    const query = new URLSearchParams({ ...(this.name === "etherscan" ? { chainid: String(chainId) } : {}), ...params });
    return `${this.settings.apiUrl}${this.settings.apiUrl.includes("?") ? "&" : "?"}${query}`;
  }

  async submit({ chainId, address, verification }: ExplorerSubmission): Promise<ExplorerAnswer> {
    const arguments_ = verification.constructorArguments.replace(/^0x/, "");
    const form = new URLSearchParams({
      ...(this.settings.apiKey !== undefined ? { apikey: this.settings.apiKey } : {}),
      module: "contract",
      action: "verifysourcecode",
      contractaddress: address,
      sourceCode: JSON.stringify(verification.standardJsonInput),
      codeformat: "solidity-standard-json-input",
      contractname: verification.fullyQualifiedName,
      compilerversion: verification.compilerVersion,
      // Etherscan's documented spelling, and the one hardhat-verify 3 sends: each reads its own, ignores the other.
      constructorArguements: arguments_,
      constructorArguments: arguments_,
    });
    const answer = await explorerRequest(
      this.label,
      this.query(chainId, { module: "contract", action: "verifysourcecode" }),
      { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form },
      this.settings.timeoutMs,
    );
    if ("outcome" in answer) return answer;
    const { ok, words } = this.read(answer);
    if (ok === undefined) return { outcome: "pending", words };
    if (ALREADY_VERIFIED.some((pattern) => pattern.test(words))) return { outcome: "verified", words };
    if (NOT_INDEXED_YET.some((pattern) => pattern.test(words)) || RATE_LIMITED.test(words)) return { outcome: "pending", words };
    // Accepted: the result is the guid to ask with.
    if (ok && words !== "") return { outcome: "accepted", reference: words, words: "submitted" };
    return { outcome: "failed", words };
  }

  async check(reference: string, { chainId }: Pick<ExplorerSubmission, "chainId">): Promise<ExplorerAnswer> {
    const params: Record<string, string> = { module: "contract", action: "checkverifystatus", guid: reference };
    if (this.settings.apiKey !== undefined) params.apikey = this.settings.apiKey;
    const answer = await explorerRequest(this.label, this.query(chainId, params), { method: "GET" }, this.settings.timeoutMs);
    if ("outcome" in answer) return answer;
    const { ok, words } = this.read(answer);
    if (ok === undefined) return { outcome: "pending", words };
    if (/^Pending in queue/i.test(words) || /^In progress/i.test(words) || RATE_LIMITED.test(words)) return { outcome: "pending", words };
    if (/^Pass - Verified/i.test(words) || ALREADY_VERIFIED.some((pattern) => pattern.test(words))) return { outcome: "verified", words };
    return { outcome: "failed", words };
  }

  /** `{status, message, result}`: `ok` undefined when the explorer answered no such thing (busy, down, an HTML page). */
  private read(answer: { status: number; body: unknown }): { ok: boolean | undefined; words: string } {
    const body = answer.body as { status?: unknown; result?: unknown; message?: unknown } | null;
    if (transient(answer.status) || body === null || typeof body !== "object" || typeof body.result !== "string") {
      return { ok: undefined, words: `${this.label} answered HTTP ${answer.status}: ${wordsOf(answer.body)}` };
    }
    return { ok: String(body.status) === "1", words: body.result };
  }

  contractUrl(chainId: number, address: string): string | null {
    const site = this.settings.siteUrl ?? ETHERSCAN_SITES[chainId];
    return site === undefined ? null : `${site.replace(/\/+$/, "")}/address/${address}#code`;
  }
}

/** A Blockscout instance's client, from its URL (`https://eth-sepolia.blockscout.com`, with or without `/api`). */
export function blockscoutClient(instanceUrl: string, timeoutMs: number): EtherscanCompatibleClient {
  const site = instanceUrl.replace(/\/+$/, "").replace(/\/api$/, "");
  return new EtherscanCompatibleClient({ name: "blockscout", apiUrl: `${site}/api`, siteUrl: site, timeoutMs });
}
