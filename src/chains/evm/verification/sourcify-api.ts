import {
  explorerRequest,
  transient,
  wordsOf,
  type ExplorerAnswer,
  type ExplorerClient,
  type ExplorerSubmission,
} from "./explorer-client.js";

// Sourcify's API v2: `POST /v2/verify/{chainId}/{address}` with the standard JSON input, the compiler and the contract,
// answered 202 with a verificationId; then `GET /v2/verify/{verificationId}` until the job is completed. An error is
// `{customCode, message, errorId}`; `already_verified` counts as verified. The shapes are those
// @nomicfoundation/hardhat-verify reads (docs/decisions/0061-explorer-verification.md).

export const SOURCIFY_API_URL = "https://sourcify.dev/server";
const SOURCIFY_REPOSITORY = "https://repo.sourcify.dev";

interface SourcifyError {
  customCode: string;
  message: string;
}

interface SourcifyJob {
  isJobCompleted: boolean;
  verificationId: string;
  contract?: { match: string | null; creationMatch: string | null; runtimeMatch: string | null };
  error?: SourcifyError;
}

const isError = (body: unknown): body is SourcifyError =>
  typeof body === "object" && body !== null && typeof (body as SourcifyError).customCode === "string";

export class SourcifyClient implements ExplorerClient {
  readonly name = "sourcify" as const;
  readonly label: string;

  constructor(
    private readonly apiUrl: string,
    private readonly timeoutMs: number,
  ) {
    const base = apiUrl.replace(/\/+$/, "");
    this.apiUrl = base;
    this.label = base === SOURCIFY_API_URL ? "Sourcify" : `Sourcify (${base})`;
  }

  async submit({ chainId, address, verification, creationTransactionHash }: ExplorerSubmission): Promise<ExplorerAnswer> {
    const body = {
      stdJsonInput: verification.standardJsonInput,
      // Sourcify writes solc's version without the "v" explorers of the Etherscan kind put before it.
      compilerVersion: verification.compilerVersion.replace(/^v/, ""),
      contractIdentifier: verification.fullyQualifiedName,
      ...(creationTransactionHash !== null ? { creationTransactionHash } : {}),
    };
    const answer = await explorerRequest(
      this.label,
      `${this.apiUrl}/v2/verify/${chainId}/${address}`,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      this.timeoutMs,
    );
    if ("outcome" in answer) return answer;
    if (isError(answer.body)) {
      const words = `${answer.body.customCode}: ${answer.body.message}`;
      if (answer.body.customCode === "already_verified") return { outcome: "verified", words };
      return transient(answer.status) ? { outcome: "pending", words } : { outcome: "failed", words };
    }
    const verificationId = (answer.body as { verificationId?: unknown } | null)?.verificationId;
    if (answer.status < 300 && typeof verificationId === "string" && verificationId !== "") {
      return { outcome: "accepted", reference: verificationId, words: "submitted" };
    }
    const words = `${this.label} answered HTTP ${answer.status}: ${wordsOf(answer.body)}`;
    return transient(answer.status) ? { outcome: "pending", words } : { outcome: "failed", words };
  }

  async check(reference: string): Promise<ExplorerAnswer> {
    const answer = await explorerRequest(
      this.label,
      `${this.apiUrl}/v2/verify/${encodeURIComponent(reference)}`,
      { method: "GET" },
      this.timeoutMs,
    );
    if ("outcome" in answer) return answer;
    const job = answer.body as SourcifyJob | SourcifyError | null;
    if (transient(answer.status) || job === null || typeof job !== "object") {
      return { outcome: "pending", words: `${this.label} answered HTTP ${answer.status}: ${wordsOf(answer.body)}` };
    }
    // An unknown verificationId (404), or another refusal of the question itself.
    if (isError(job)) return { outcome: "failed", words: `${job.customCode}: ${job.message}` };
    if (!job.isJobCompleted) return { outcome: "pending", words: "the verification job is not completed" };
    if (job.error !== undefined) {
      const words = `${job.error.customCode}: ${job.error.message}`;
      return job.error.customCode === "already_verified" ? { outcome: "verified", words } : { outcome: "failed", words };
    }
    const contract = job.contract;
    if (contract?.match === null || contract?.match === undefined) {
      return { outcome: "failed", words: `the job completed without a match: ${wordsOf(job)}` };
    }
    return {
      outcome: "verified",
      words: `${contract.match} (creation: ${contract.creationMatch ?? "none"}, runtime: ${contract.runtimeMatch ?? "none"})`,
    };
  }

  /** Sourcify's repository page; an instance of one's own (another URL) has none known. */
  contractUrl(chainId: number, address: string): string | null {
    return this.apiUrl === SOURCIFY_API_URL ? `${SOURCIFY_REPOSITORY}/${chainId}/${address}` : null;
  }
}
