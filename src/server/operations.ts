import { randomUUID } from "node:crypto";

import { resolveNetwork } from "../chains.js";
import { TokenServiceError } from "../errors.js";
import type { LaunchResult } from "../evm/launch.js";
import type { MintResult } from "../evm/mint.js";
import type { FaucetRequest, FaucetResult, LaunchRequest, MintRequest } from "../service.js";
import { parseTokenType } from "../token-params.js";
import type { ServerContext } from "./context.js";
import type { OperationKind, OperationRecord, OperationStatus } from "./store/types.js";

interface Recorder {
  id: string;
  /** Writes the record; called after signing, before broadcasting. */
  begin(fields: { transactionHash: string; contractAddress?: string; sender: string }): Promise<void>;
  /** Marks a broadcast accepted and starts watching it. */
  accepted(transactionHash: string): Promise<void>;
  /** Marks a recorded operation failed; a failure before `begin` left nothing to mark. */
  failed(error: unknown): Promise<void>;
}

function recorder(context: ServerContext, apiKeyId: string | null, kind: OperationKind, pair: { chain: string; network: string }, tokenType: string | null, params: Record<string, unknown>): Recorder {
  const id = randomUUID();
  let written = false;
  return {
    id,
    async begin(fields) {
      await context.store.insertOperation({
        id,
        apiKeyId,
        kind,
        chain: pair.chain,
        network: pair.network,
        tokenType,
        params,
        sender: fields.sender,
        transactionHash: fields.transactionHash,
        contractAddress: fields.contractAddress ?? null,
        status: "signed",
        error: null,
      });
      written = true;
    },
    async accepted(transactionHash) {
      await context.store.updateOperation(id, { status: "pending" });
      context.trackOperation(id, pair.chain, pair.network, transactionHash);
    },
    async failed(error) {
      if (!written) return;
      const { code, message } = error instanceof TokenServiceError ? error : { code: "INTERNAL", message: "unexpected failure" };
      await context.store.updateOperation(id, { status: "failed", error: { code, message } });
    },
  };
}

/** Runs a send with its record written after signing and before broadcasting, then updated; the key is never part of it. */
async function withRecord<R extends { transactionHash: string }>(
  record: Recorder,
  sender: string,
  send: (beforeBroadcast: (info: { transactionHash: string; contractAddress?: string }) => Promise<void>) => Promise<R>,
): Promise<R & { id: string }> {
  try {
    const result = await send((info) => record.begin({ ...info, sender }));
    await record.accepted(result.transactionHash);
    return { id: record.id, ...result };
  } catch (error) {
    await record.failed(error);
    throw error;
  }
}

export async function recordedLaunch(context: ServerContext, apiKeyId: string | null, request: LaunchRequest): Promise<LaunchResult & { id: string }> {
  const pair = resolveNetwork(request.chain, request.network);
  const record = recorder(context, apiKeyId, "launch", pair, parseTokenType(request.type), request.token as Record<string, unknown>);
  return withRecord(record, request.sender, (beforeBroadcast) => context.service.launchToken(request, { beforeBroadcast }));
}

export async function recordedMint(context: ServerContext, apiKeyId: string | null, request: MintRequest): Promise<MintResult & { id: string }> {
  const pair = resolveNetwork(request.chain, request.network);
  const { privateKey: _secret, chain: _chain, network: _network, type: _type, sender: _sender, ...params } = request;
  const record = recorder(context, apiKeyId, "mint", pair, parseTokenType(request.type), params);
  return withRecord(record, request.sender, (beforeBroadcast) =>
    context.service.mintToken(request, { beforeBroadcast: (info) => beforeBroadcast({ ...info, contractAddress: request.contractAddress }) }),
  );
}

export async function recordedFaucet(context: ServerContext, apiKeyId: string | null, request: FaucetRequest): Promise<FaucetResult & { id: string }> {
  const result = await context.service.faucet(request);
  const id = randomUUID();
  const status: OperationStatus = "mined";
  await context.store.insertOperation({
    id,
    apiKeyId,
    kind: "faucet",
    chain: result.chain,
    network: result.network,
    tokenType: null,
    params: { address: result.address, amount: result.amount.balance },
    sender: null,
    transactionHash: result.transactionHash ?? null,
    contractAddress: null,
    status,
    error: null,
  });
  return { id, ...result };
}

/** The public shape of a stored operation. */
export function presentOperation(record: OperationRecord) {
  const { apiKeyId: _apiKeyId, tokenType, ...rest } = record;
  return { ...rest, type: tokenType };
}
