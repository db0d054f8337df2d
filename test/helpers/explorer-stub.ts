import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import path from "node:path";

import { expect } from "chai";

// A loopback stand-in for Etherscan (API v2), a Blockscout instance or Sourcify (API v2): it answers with the fixture
// answers of test/fixtures/explorers/<explorer>/ in the order a test scripts them, and keeps what it was sent, for
// `expectSubmission` to compare with the token's verification input (GET /tokens/{address}/verification).

export type StubExplorer = "etherscan" | "blockscout" | "sourcify";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/explorers");

export interface RecordedAnswer {
  status: number;
  body: unknown;
}

export function recordedAnswer(explorer: StubExplorer, name: string): RecordedAnswer {
  return JSON.parse(readFileSync(path.join(FIXTURES, explorer, `${name}.json`), "utf8")) as RecordedAnswer;
}

/** One submission as the stub received it: Etherscan's form fields and query, or Sourcify's path and JSON body. */
export interface Submission {
  query: Record<string, string>;
  /** Form fields (Etherscan, Blockscout) or the JSON body (Sourcify). */
  fields: Record<string, unknown>;
  path: string;
}

export interface ExplorerStub {
  explorer: StubExplorer;
  /** What the service is configured with: Etherscan's API URL, Blockscout's instance, Sourcify's server. */
  url: string;
  submissions: Submission[];
  /** The references (guid, verificationId) the service asked about, in order. */
  checks: string[];
  /** The fixture answers to give: to each submission, then to each check (the last of each repeats). */
  script(submit: string | string[], checks?: string[]): void;
  stop(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export async function startExplorerStub(explorer: StubExplorer): Promise<ExplorerStub> {
  let submitAnswers = ["submit-accepted"];
  let checkAnswers: string[] = [];
  const submissions: Submission[] = [];
  const checks: string[] = [];
  let address = "";
  const answer = (name: string): RecordedAnswer => {
    const recorded = recordedAnswer(explorer, name);
    return { status: recorded.status, body: JSON.parse(JSON.stringify(recorded.body).replaceAll("{address}", address)) };
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://stub");
      const query = Object.fromEntries(url.searchParams);
      const text = await readBody(request);
      let reply: RecordedAnswer;
      const etherscanLike = explorer !== "sourcify";
      const isSubmit = etherscanLike ? request.method === "POST" : request.method === "POST" && url.pathname.startsWith("/v2/verify/");
      if (isSubmit) {
        const fields = etherscanLike ? Object.fromEntries(new URLSearchParams(text)) : (JSON.parse(text) as Record<string, unknown>);
        submissions.push({ query, fields, path: url.pathname });
        address = etherscanLike ? String(fields.contractaddress) : (url.pathname.split("/").pop() ?? "");
        reply = answer(submitAnswers[Math.min(submissions.length - 1, submitAnswers.length - 1)]!);
      } else {
        const reference = etherscanLike ? (query.guid ?? "") : decodeURIComponent(url.pathname.split("/").pop() ?? "");
        checks.push(reference);
        reply = answer(checkAnswers[Math.min(checks.length - 1, checkAnswers.length - 1)] ?? "check-pending");
      }
      response.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    explorer,
    url: explorer === "etherscan" ? `${base}/v2/api` : base,
    submissions,
    checks,
    script(submit, scriptedChecks = []) {
      submitAnswers = typeof submit === "string" ? [submit] : submit;
      checkAnswers = scriptedChecks;
      submissions.length = 0;
      checks.length = 0;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The environment that points the service at the stubs, for the pair `ethereum/sepolia`. */
export function explorerEnvironment(stubs: Partial<Record<StubExplorer, ExplorerStub>>): Record<string, string> {
  return {
    ...(stubs.etherscan ? { TOKEN_SERVICE_ETHERSCAN_API_KEY: "STUBKEY", TOKEN_SERVICE_ETHERSCAN_API_URL: stubs.etherscan.url } : {}),
    ...(stubs.sourcify ? { TOKEN_SERVICE_SOURCIFY_API_URL: stubs.sourcify.url } : {}),
    ...(stubs.blockscout ? { TOKEN_SERVICE_BLOCKSCOUT_ETHEREUM_SEPOLIA: stubs.blockscout.url } : {}),
  };
}

/** What GET /tokens/{address}/verification answers. */
export interface ExpectedVerification {
  address: string;
  fullyQualifiedName: string;
  compilerVersion: string;
  constructorArguments: string;
  standardJsonInput: unknown;
  launch: { transactionHash: string | null };
}

/** The submission carried the token's verification input, for chain `chainId`, as the explorer's API takes it. */
export function expectSubmission(
  stub: ExplorerStub,
  submission: Submission | undefined,
  expected: ExpectedVerification,
  chainId: number,
): void {
  expect(submission, "a submission").to.not.equal(undefined);
  const { fields, query } = submission!;
  if (stub.explorer === "sourcify") {
    expect(submission!.path).to.equal(`/v2/verify/${chainId}/${expected.address}`);
    expect(fields.stdJsonInput).to.deep.equal(expected.standardJsonInput);
    expect(fields).to.deep.include({
      compilerVersion: expected.compilerVersion.replace(/^v/, ""),
      contractIdentifier: expected.fullyQualifiedName,
      creationTransactionHash: expected.launch.transactionHash,
    });
    return;
  }
  if (stub.explorer === "etherscan") expect(query).to.deep.include({ chainid: String(chainId) });
  else expect(query.chainid).to.equal(undefined);
  expect(submission!.path).to.equal(stub.explorer === "etherscan" ? "/v2/api" : "/api");
  expect(fields).to.deep.include({
    module: "contract",
    action: "verifysourcecode",
    codeformat: "solidity-standard-json-input",
    contractaddress: expected.address,
    contractname: expected.fullyQualifiedName,
    compilerversion: expected.compilerVersion,
    constructorArguements: expected.constructorArguments.replace(/^0x/, ""),
  });
  if (stub.explorer === "etherscan") expect(fields.apikey).to.equal("STUBKEY");
  expect(JSON.parse(String(fields.sourceCode))).to.deep.equal(expected.standardJsonInput);
}
