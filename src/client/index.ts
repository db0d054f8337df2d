import type { Signer, TransactionRequest } from "ethers";
import createClient, { type Client } from "openapi-fetch";

import type { operations, paths } from "./openapi.js";

export type { operations, paths } from "./openapi.js";

/** A typed client of the HTTP service: `client.GET("/api/v1/networks")`, `client.POST("/api/v1/tokens", { body })`… */
export type TokenServiceClient = Client<paths>;

type JsonBody<Operation> = Operation extends { requestBody: { content: { "application/json": infer Body } } } ? Body : never;
type Answer<Operation, Status extends number> = Operation extends {
  responses: { [S in Status]: { content: { "application/json": infer Body } } };
}
  ? Body
  : never;
type WithoutSigning<Body> = Exclude<Body, { privateKey: string } | { signedTransaction: string }>;
type Prepared = { unsignedTransaction: unknown };

/** A launch body as prepared: no key, no signature; `sender` defaults to the signer's address. */
export type LaunchTokenBody = Omit<WithoutSigning<JsonBody<operations["launchToken"]>>, "sender"> & { sender?: string };
export type MintTokenBody = Omit<WithoutSigning<JsonBody<operations["mintToken"]>>, "sender"> & { sender?: string };
export type TransferBody = Omit<WithoutSigning<JsonBody<operations["transfer"]>>, "sender"> & { sender?: string };
export type ApproveBody = Omit<WithoutSigning<JsonBody<operations["approve"]>>, "sender"> & { sender?: string };
export type PreparedLaunch = Extract<Answer<operations["launchToken"], 200>, Prepared>;
export type PreparedMint = Extract<Answer<operations["mintToken"], 200>, Prepared>;
export type UnsignedTransaction = PreparedLaunch["unsignedTransaction"];
export type Launch = Exclude<Answer<operations["launchToken"], 200>, Prepared>;
export type Mint = Exclude<Answer<operations["mintToken"], 200>, Prepared>;
export type PreparedTransfer = Extract<Answer<operations["transfer"], 200>, Prepared>;
export type PreparedApproval = Extract<Answer<operations["approve"], 200>, Prepared>;
export type Transfer = Exclude<Answer<operations["transfer"], 200>, Prepared>;
export type Approval = Exclude<Answer<operations["approve"], 200>, Prepared>;
export type BurnTokenBody = Omit<WithoutSigning<JsonBody<operations["burnToken"]>>, "sender"> & { sender?: string };
export type PauseTokenBody = Omit<WithoutSigning<JsonBody<operations["pauseToken"]>>, "sender"> & { sender?: string };
export type RoleBody = Omit<WithoutSigning<JsonBody<operations["grantRole"]>>, "sender"> & { sender?: string };
export type OwnershipBody = Omit<WithoutSigning<JsonBody<operations["transferOwnership"]>>, "sender"> & { sender?: string };
export type Burn = Exclude<Answer<operations["burnToken"], 200>, Prepared>;
export type Pause = Exclude<Answer<operations["pauseToken"], 200>, Prepared>;
export type RoleChange = Exclude<Answer<operations["grantRole"], 200>, Prepared>;
export type OwnershipTransfer = Exclude<Answer<operations["transferOwnership"], 200>, Prepared>;
export type DelegateVotesBody = Omit<WithoutSigning<JsonBody<operations["delegateVotes"]>>, "sender"> & { sender?: string };
export type Delegation = Exclude<Answer<operations["delegateVotes"], 200>, Prepared>;
/**
 * An upgrade (docs/tokens.md#upgrading-a-token): `client.POST("/api/v1/tokens/upgrade", …)` with `privateKey` or a held
 * wallet's sender. It has no prepare (it may be two transactions, signed in turn), so no local-signing function here.
 */
export type UpgradeTokenBody = JsonBody<operations["upgradeToken"]>;
export type TokenUpgrade = Answer<operations["upgradeToken"], 200>;
export type Operation = Answer<operations["getOperation"], 200>;
export type PreparedReplacement = Extract<Answer<operations["speedUpOperation"], 200>, Prepared>;
export type ErrorBody = Answer<operations["getOperation"], 404>["error"];
/** A wallet the service holds (docs/custody.md): `POST /api/v1/wallets` with `custody: "service"`, or an import. */
export type HeldWallet = Answer<operations["importWallet"], 201>;
export type HeldWalletPage = Answer<operations["listHeldWallets"], 200>;
export type WalletPolicy = JsonBody<operations["putWalletPolicy"]>;
/** Chain notifications (docs/notifications.md): `client.POST("/api/v1/subscriptions", …)` and its pages of events. */
export type SubscriptionBody = JsonBody<operations["createSubscription"]>;
export type Subscription = Answer<operations["createSubscription"], 201>;
export type ChainEventPage = Answer<operations["listSubscriptionEvents"], 200>;
export type ChainEvent = ChainEventPage["items"][number];
export type TokenVerification = Answer<operations["getTokenVerification"], 200>;
/** Explorer verification (docs/tokens.md#verifying-a-token): `client.POST("/api/v1/tokens/{address}/verify", …)`, then its record. */
export type VerifyTokenBody = JsonBody<operations["verifyToken"]>;
export type VerificationRecord = Answer<operations["getVerification"], 200>;

/**
 * What signs locally: an ethers v6 Signer (a `Wallet`, or any external signer — a hardware wallet, a KMS — that
 * implements `signTransaction`). The key stays with it; the service only ever sees the signed transaction.
 */
export type TransactionSigner = Pick<Signer, "getAddress" | "signTransaction">;

/** The service refused a request: its HTTP status and the error body's code, message and field. */
export class TokenServiceClientError extends Error {
  override name = "TokenServiceClientError";
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, error: Partial<ErrorBody> | undefined) {
    super(`${status} ${error?.code ?? "ERROR"}: ${error?.message ?? "the service answered without an error body"}`);
    this.status = status;
    this.code = error?.code ?? "ERROR";
    this.field = error?.field;
    this.details = error?.details;
  }
}

export interface TokenServiceClientOptions {
  /** Where `hardhat serve` answers, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** Sent as the x-api-key header. */
  apiKey?: string;
  /** A fetch of your own (a proxy agent, a test double); default the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export function createTokenServiceClient(options: TokenServiceClientOptions): TokenServiceClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.apiKey !== undefined ? { headers: { "x-api-key": options.apiKey } } : {}),
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  });
}

export interface SubmitOptions {
  /** "mined": the submit answers once the operation is final (or 202 after the service's wait timeout). */
  wait?: "mined";
  /** Sent with the submit, so that a retry never broadcasts twice; default a random one per call. */
  idempotencyKey?: string;
}

/** Answers the data, or throws the service's error with its status. */
function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data;
  throw new TokenServiceClientError(result.response.status, (result.error as { error?: ErrorBody } | undefined)?.error);
}

const NETWORK_ATTEMPTS = 3;

/** A submit sent again when the connection failed: the Idempotency-Key makes the retry return the first answer. */
async function withNetworkRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (error instanceof TokenServiceClientError || attempt >= NETWORK_ATTEMPTS) throw error;
    }
  }
}

async function signerAddress(signer: TransactionSigner, sender: string | undefined): Promise<string> {
  const address = await signer.getAddress();
  if (sender !== undefined && sender.toLowerCase() !== address.toLowerCase()) {
    throw new Error(`the body's sender ${sender} is not the signer's address ${address}`);
  }
  return address;
}

/** The prepared transaction as ethers signs it: quantities as decimal strings, `to` null for a contract creation. */
function toTransactionRequest(unsigned: UnsignedTransaction, from: string): TransactionRequest {
  return { ...unsigned, from };
}

/** The write paths: each takes a body without a key to prepare, and the same body with `signedTransaction` to submit. */
type WritePath =
  | "/api/v1/tokens"
  | "/api/v1/tokens/mint"
  | "/api/v1/transfers"
  | "/api/v1/tokens/approve"
  | "/api/v1/tokens/burn"
  | "/api/v1/tokens/pause"
  | "/api/v1/tokens/roles/grant"
  | "/api/v1/tokens/roles/revoke"
  | "/api/v1/tokens/ownership/transfer"
  | "/api/v1/tokens/delegate";

/**
 * One write with a key that never leaves the caller: prepare (the service answers the unsigned transaction and reserves
 * its nonce), sign it with `signer` here, and submit the signed transaction with the same body and an Idempotency-Key.
 */
async function signedWrite<Answer>(
  client: TokenServiceClient,
  path: WritePath,
  body: { sender?: string },
  signer: TransactionSigner,
  options: SubmitOptions,
): Promise<Answer> {
  // The paths' bodies differ; each public function below takes its own path's type, so one untyped client serves them.
  const post = client.POST as unknown as (
    path: WritePath,
    init: { body: object; params?: object },
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const sender = await signerAddress(signer, body.sender);
  const request = { ...body, sender };
  const prepared = unwrap(await post(path, { body: request })) as { unsignedTransaction: UnsignedTransaction };
  const signedTransaction = await signer.signTransaction(toTransactionRequest(prepared.unsignedTransaction, sender));
  const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const submitted = await withNetworkRetries(async () =>
    unwrap(
      await post(path, {
        params: { query: options.wait ? { wait: options.wait } : {}, header: { "Idempotency-Key": idempotencyKey } },
        body: { ...request, signedTransaction },
      }),
    ),
  );
  return submitted as Answer;
}

/**
 * Launches a token with a key that never leaves the caller: prepares it (the service answers the unsigned deployment
 * and reserves its nonce), signs it with `signer` here, and submits the signed transaction with the same body.
 */
export function launchToken(
  client: TokenServiceClient,
  body: LaunchTokenBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Launch> {
  return signedWrite<Launch>(client, "/api/v1/tokens", body, signer, options);
}

/** As `launchToken`, for a mint: prepare, sign locally, submit. */
export function mintToken(
  client: TokenServiceClient,
  body: MintTokenBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Mint> {
  return signedWrite<Mint>(client, "/api/v1/tokens/mint", body, signer, options);
}

/**
 * Sends native currency or a token with a key that never leaves the caller: prepare (the service answers the unsigned
 * transfer, its nonce reserved), sign with `signer` here, submit the signed transaction with the same body.
 */
export function transfer(
  client: TokenServiceClient,
  body: TransferBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Transfer> {
  return signedWrite<Transfer>(client, "/api/v1/transfers", body, signer, options);
}

/** As `transfer`, for an approval: prepare, sign locally, submit. */
export function approve(
  client: TokenServiceClient,
  body: ApproveBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Approval> {
  return signedWrite<Approval>(client, "/api/v1/tokens/approve", body, signer, options);
}

/** As `transfer`, for a burn of the signer's own tokens: prepare, sign locally, submit. */
export function burnToken(
  client: TokenServiceClient,
  body: BurnTokenBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Burn> {
  return signedWrite<Burn>(client, "/api/v1/tokens/burn", body, signer, options);
}

/** As `transfer`, for a pause (`paused: true`) or an unpause: prepare, sign locally, submit. */
export function pauseToken(
  client: TokenServiceClient,
  body: PauseTokenBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Pause> {
  return signedWrite<Pause>(client, "/api/v1/tokens/pause", body, signer, options);
}

/** As `transfer`, for a role grant: prepare, sign locally, submit. */
export function grantRole(
  client: TokenServiceClient,
  body: RoleBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<RoleChange> {
  return signedWrite<RoleChange>(client, "/api/v1/tokens/roles/grant", body, signer, options);
}

/** As `grantRole`, for a revoke. */
export function revokeRole(
  client: TokenServiceClient,
  body: RoleBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<RoleChange> {
  return signedWrite<RoleChange>(client, "/api/v1/tokens/roles/revoke", body, signer, options);
}

/** As `transfer`, for an ownership transfer: prepare, sign locally, submit. */
export function transferOwnership(
  client: TokenServiceClient,
  body: OwnershipBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<OwnershipTransfer> {
  return signedWrite<OwnershipTransfer>(client, "/api/v1/tokens/ownership/transfer", body, signer, options);
}

/** As `transfer`, for an ERC20Votes delegation (`delegate(delegatee)`): prepare, sign locally, submit. */
export function delegateVotes(
  client: TokenServiceClient,
  body: DelegateVotesBody,
  signer: TransactionSigner,
  options: SubmitOptions = {},
): Promise<Delegation> {
  return signedWrite<Delegation>(client, "/api/v1/tokens/delegate", body, signer, options);
}

/**
 * Replaces an unfinished operation's transaction with the same call at higher fees. An operation sent with its key in
 * the body has its replacements signed ahead: the service sends the next one and answers the operation. A caller-signed
 * one (or one whose signed-ahead steps are used up) is answered with the replacement to sign: `signer` (the operation's
 * sender) signs it here, and it is sent back signed. Answers the operation as it stands, its `transactionHash` the
 * replacement's.
 */
export function speedUp(
  client: TokenServiceClient,
  idOrHash: string,
  signer?: TransactionSigner,
  options: Pick<SubmitOptions, "idempotencyKey"> = {},
): Promise<Operation> {
  return replaced(client, "/api/v1/operations/{id}/speed-up", idOrHash, signer, options);
}

/**
 * Cancels an unfinished operation: a zero-value transfer from its sender to itself at its nonce, with higher fees, sent
 * (signed ahead) or prepared, signed by `signer` and sent as `speedUp` does. The operation ends `cancelled` when the
 * cancel is mined, or `mined` when its own transaction won the race (`waitForOperation` tells which).
 */
export function cancelOperation(
  client: TokenServiceClient,
  idOrHash: string,
  signer?: TransactionSigner,
  options: Pick<SubmitOptions, "idempotencyKey"> = {},
): Promise<Operation> {
  return replaced(client, "/api/v1/operations/{id}/cancel", idOrHash, signer, options);
}

async function replaced(
  client: TokenServiceClient,
  path: "/api/v1/operations/{id}/speed-up" | "/api/v1/operations/{id}/cancel",
  idOrHash: string,
  signer: TransactionSigner | undefined,
  options: Pick<SubmitOptions, "idempotencyKey">,
): Promise<Operation> {
  const asked = unwrap(await client.POST(path, { params: { path: { id: idOrHash } }, body: {} }));
  if (!("unsignedTransaction" in asked)) return asked;
  const prepared = asked as PreparedReplacement;
  if (signer === undefined) {
    throw new Error(`operation ${prepared.operationId} has no replacement signed ahead: give a signer for ${prepared.sender} to sign it`);
  }
  const sender = await signerAddress(signer, prepared.sender);
  const signedTransaction = await signer.signTransaction(toTransactionRequest(prepared.unsignedTransaction, sender));
  const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const sent = await withNetworkRetries(async () =>
    unwrap(
      await client.POST(path, {
        params: { path: { id: prepared.operationId }, header: { "Idempotency-Key": idempotencyKey } },
        body: { signedTransaction },
      }),
    ),
  );
  return sent as Operation;
}

const FINAL = new Set(["mined", "failed", "dropped", "cancelled"]);
/** The service holds a waiting request at most this long; the client asks again until its own timeout. */
const LONG_POLL_SECONDS = 30;

/**
 * The operation (any write made with this API key, by record id or transaction hash) once it is
 * final — mined, failed, dropped or cancelled — or as it stands when `timeoutMs` (default 120 s) runs out.
 */
export async function waitForOperation(
  client: TokenServiceClient,
  idOrHash: string,
  options: { timeoutMs?: number } = {},
): Promise<Operation> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const remainingSeconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    const operation = unwrap(
      await client.GET("/api/v1/operations/{id}", {
        params: { path: { id: idOrHash }, query: { waitSeconds: Math.min(remainingSeconds, LONG_POLL_SECONDS) } },
      }),
    );
    if (FINAL.has(operation.status) || Date.now() >= deadline) return operation;
  }
}

export { hardhatAccountSigner } from "./hardhat-account.js";
