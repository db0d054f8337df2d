import { JsonRpcApiProvider, toQuantity } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { isUnansweredCall, translateProviderError } from "../provider-errors.js";
import { decodeRevert, describeRevert, revertDataOf } from "../revert-reasons.js";
import { knownGas, learnGas } from "./gas-shapes.js";
import type { TransactionIntent } from "./send-types.js";

// What a send's gas is, asked of the node (once per shape where sends share one), and why the node would not say.

export function nodeName(chain: EvmChain): string {
  return `the ${chain.info.chain}/${chain.info.network} node`;
}

/**
 * The node's gas estimate. A JSON-RPC provider is asked directly with the request as it already stands (hex data):
 * ethers' own estimateGas copies and re-encodes a deployment's 5 KB on every call. Errors keep ethers' typing.
 */
async function estimateGas(chain: EvmChain, request: TransactionIntent): Promise<bigint> {
  const call = callOf(request);
  if (!(chain.provider instanceof JsonRpcApiProvider)) return chain.provider.estimateGas(call);
  return BigInt((await chain.provider.send("eth_estimateGas", [call])) as string);
}

/**
 * The request as a JSON-RPC call object: the sender, the target (none for a deployment), the data, and the native
 * currency it sends (a NATIVE transfer's amount) as a quantity, left out when none.
 */
function callOf(request: TransactionIntent): { from: string; to?: string; data: string; value?: string } {
  const value = request.value ?? 0n;
  return {
    from: request.sender,
    ...(request.to ? { to: request.to } : {}),
    data: request.data,
    ...(value > 0n ? { value: toQuantity(value) } : {}),
  };
}

/** The node's estimates of `requests`: one JSON-RPC batch on a node over the network (serialized once), else each at once. */
async function nodeEstimates(chain: EvmChain, requests: TransactionIntent[]): Promise<Array<PromiseSettledResult<bigint>>> {
  if (requests.length === 0) return [];
  if (chain.requestAll === undefined) return Promise.allSettled(requests.map((request) => estimateGas(chain, request)));
  const answers = await chain.requestAll(requests.map((request) => ({ method: "eth_estimateGas", params: [callOf(request)] })));
  return answers.map((answer) => (answer.status === "fulfilled" ? { status: "fulfilled", value: BigInt(answer.value as string) } : answer));
}

/**
 * Each request's gas: from what its shape is known to need on this chain (gas-shapes.ts), or from the node, asked for
 * every request without a shape and for the first request of each shape not known yet; the others of that shape follow
 * it, or are estimated on their own if it failed. A request the node refuses to estimate is never sent (its refusal
 * is the caller's answer, WOULD_REVERT when it would revert), and nothing is learnt from it.
 */
export async function estimateAll(chain: EvmChain, requests: TransactionIntent[]): Promise<Array<PromiseSettledResult<bigint>>> {
  const settled: Array<PromiseSettledResult<bigint> | undefined> = requests.map((request) => {
    const gas = request.gasShape === undefined ? undefined : knownGas(chain, request.gasShape, request.data);
    return gas === undefined ? undefined : { status: "fulfilled", value: gas };
  });
  const asked: number[] = [];
  const followers: number[] = [];
  const shapesAsked = new Set<string>();
  for (const [index, request] of requests.entries()) {
    if (settled[index] !== undefined) continue;
    const shape = request.gasShape;
    if (shape !== undefined && shapesAsked.has(shape)) followers.push(index);
    else {
      if (shape !== undefined) shapesAsked.add(shape);
      asked.push(index);
    }
  }
  const ask = async (indices: number[]) => {
    const answers = await nodeEstimates(
      chain,
      indices.map((index) => requests[index]!),
    );
    for (const [position, index] of indices.entries()) {
      const answer = answers[position]!;
      const { gasShape, data } = requests[index]!;
      if (answer.status === "fulfilled" && gasShape !== undefined) learnGas(chain, gasShape, data, answer.value);
      settled[index] = answer;
    }
  };
  await ask(asked);
  const unknown = followers.filter((index) => {
    const gas = knownGas(chain, requests[index]!.gasShape!, requests[index]!.data);
    if (gas !== undefined) settled[index] = { status: "fulfilled", value: gas };
    return gas === undefined;
  });
  await ask(unknown);
  return settled as Array<PromiseSettledResult<bigint>>;
}

/** Estimates leave headroom: a block may move the base fee or the gas a call needs between estimate and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * The most gas one transaction may use where EIP-7825 holds (Osaka; Ethereum since Fusaka, and the simulated chains): a
 * node refuses a larger limit, or keeps it unmined. A large batch mint's estimate comes near it.
 */
export const TRANSACTION_GAS_CAP = 16_777_216n;

/** The estimate with its headroom, which stops at the cap for a transaction estimated within it. */
export function gasLimitFor(estimate: bigint): bigint {
  const limit = (estimate * GAS_HEADROOM_PERCENT) / 100n;
  return estimate <= TRANSACTION_GAS_CAP && limit > TRANSACTION_GAS_CAP ? TRANSACTION_GAS_CAP : limit;
}

/** A zero-value transfer to the sender costs this gas on a chain without extra rules (the in-process simulated ones). */
export const PLAIN_TRANSFER_GAS = 21_000n;

/**
 * The gas of a cancel (a zero-value transfer from the sender to itself): a plain transfer's 21,000, but on an Arbitrum
 * chain, whose gas counts the transaction's L1 part: asked of the node there, with the usual headroom, and undefined
 * when it will not estimate it (no cancel is signed then). Everywhere else a send's estimates stay the only ones asked.
 */
export async function cancelGas(chain: EvmChain, sender: string): Promise<bigint | undefined> {
  if (chain.simulated || chain.info.rollup !== "arbitrum") return PLAIN_TRANSFER_GAS;
  try {
    const gas = await estimateGas(chain, { sender, to: sender, data: "0x" });
    return gas === PLAIN_TRANSFER_GAS ? gas : (gas * GAS_HEADROOM_PERCENT) / 100n;
  } catch {
    return undefined;
  }
}

/**
 * A call the node judged and refused. Ethers names every failed eth_call and eth_estimateGas a CALL_EXCEPTION, a rate
 * limit or an outage included: those were never judged, so they are no revert (translated as the node's failure).
 */
const isCallException = (error: unknown) => (error as { code?: string })?.code === "CALL_EXCEPTION" && !isUnansweredCall(error);

/**
 * A node's refusal to estimate because the call needs more gas than it may give one transaction: EDR's "Transaction ran
 * out of gas", geth's and anvil's "gas required exceeds allowance", "out of gas". It carries no revert data.
 */
function ranOutOfGas(error: unknown): boolean {
  const nodeMessage = (error as { info?: { error?: { message?: unknown } } })?.info?.error?.message;
  return typeof nodeMessage === "string" && /out of gas|gas required exceeds/i.test(nodeMessage);
}

/** `eth_call` of the request as it would be sent, at the latest block: resolves if it would not revert. */
async function dryRun(chain: EvmChain, request: TransactionIntent): Promise<void> {
  const call = callOf(request);
  if (chain.provider instanceof JsonRpcApiProvider) await chain.provider.send("eth_call", [call, "latest"]);
  else await chain.provider.call(call);
}

/**
 * Why the node would not estimate a send. A revert is WOULD_REVERT, named: eth_estimateGas carries the revert data on
 * most nodes; where it does not, eth_call with the same sender, target and data does. Nothing has been signed yet.
 */
export async function estimateError(chain: EvmChain, request: TransactionIntent, error: unknown): Promise<TokenServiceError> {
  const node = nodeName(chain);
  if (!isCallException(error)) return translateProviderError(error, node);
  let data = revertDataOf(error);
  if (data === undefined) {
    try {
      await dryRun(chain, request);
      return new TokenServiceError(
        ErrorCode.TRANSACTION_REJECTED,
        `${node} could not estimate the transaction's gas, though a dry run does not revert`,
        {
          cause: error,
        },
      );
    } catch (callError) {
      if (!isCallException(callError)) return translateProviderError(callError, node);
      data = revertDataOf(callError) ?? "0x";
    }
  }
  if ((data === "0x" || data === undefined) && ranOutOfGas(error)) {
    return new TokenServiceError(
      ErrorCode.WOULD_REVERT,
      `${node} reports that the transaction would run out of gas: it needs more than one transaction may use (${TRANSACTION_GAS_CAP} gas where EIP-7825 holds, else the block's gas limit); nothing was signed or sent`,
      { details: { error: null, args: {}, data: "0x", outOfGas: true }, cause: error },
    );
  }
  const revert = decodeRevert(data);
  return new TokenServiceError(
    ErrorCode.WOULD_REVERT,
    `${node} reports that the transaction would revert with ${describeRevert(revert)}: nothing was signed or sent`,
    { details: { error: revert.error, args: revert.args, ...(revert.error === null ? { data: revert.data } : {}) }, cause: error },
  );
}
