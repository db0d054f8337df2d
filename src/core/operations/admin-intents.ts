import type { EvmChain } from "../../chains/evm/chain.js";
import { burnData, pauseData, preflightBurn, preflightPause } from "../../chains/evm/write/admin.js";
import type { AdminCommand, BurnCommand, PauseCommand } from "../../domain/admin-commands.js";
import type { BurnResult, PauseResult } from "../../domain/admin-requests.js";
import { readErc20Decimals } from "../../chains/evm/read/balances.js";
import { sentAnswer, type WriteIntent } from "./intents.js";

// Burns and pauses (and, through tokenCall, the kinds of domain/kinds/) as write intents: one call on the token each, recorded,
// signed and tracked by the one pipeline as transfers are. Each record's params are the answer's own fields.

/** A call on `command`'s token: its record holds `fields` (with the contract) and its answer repeats them. */
export function tokenCall<Fields extends object>(
  kind: WriteIntent<unknown>["kind"],
  command: AdminCommand<{ contractAddress: string }>,
  call: { data: string; tokenType: string | null; fields: Fields; preflight(chain: EvmChain): Promise<void> },
) {
  const { pair, sender, params } = command;
  const { contractAddress } = params;
  const type = call.tokenType !== null ? { type: call.tokenType } : {};
  return {
    kind,
    command,
    transaction: { to: contractAddress, data: call.data },
    record: () => ({ tokenType: call.tokenType, params: { contractAddress, ...call.fields }, contractAddress }),
    preflight: call.preflight,
    // An amount with decimals (an ERC20 burn's) is echoed in whole units too, with its warnings.
    answer: (sent: { transactionHash: string; nonce: number }, chain: EvmChain) =>
      sentAnswer(pair, sent, chain, { ...type, contractAddress, sender, ...call.fields }),
  };
}

/** ERC20 and ERC721 `burn(uint256)`, ERC1155 `burn(sender, id, amount)`: the sender's own tokens. */
export function burnIntent(command: BurnCommand): WriteIntent<BurnResult> {
  const { sender, params } = command;
  // An ERC20's decimals, read in the preflight, join the fields (the record keeps them for the answer's echo).
  const fields: { tokenId?: string; amount?: string; decimals?: number } = {
    ...(params.type !== "ERC20" ? { tokenId: params.tokenId.toString() } : {}),
    ...(params.type !== "ERC721" ? { amount: params.amount.toString() } : {}),
  };
  return tokenCall("burn", command, {
    data: burnData(sender, params),
    tokenType: params.type,
    fields,
    preflight: async (chain) => {
      await preflightBurn(chain, sender, params);
      if (params.type !== "ERC20") return;
      const decimals = await readErc20Decimals(chain, params.contractAddress);
      if (decimals !== undefined) fields.decimals = decimals;
    },
  }) as WriteIntent<BurnResult>;
}

/** `pause()` or `unpause()`. */
export function pauseIntent(command: PauseCommand): WriteIntent<PauseResult> {
  const { params } = command;
  return tokenCall("pause", command, {
    data: pauseData(params),
    tokenType: null,
    fields: { paused: params.paused },
    preflight: (chain) => preflightPause(chain, params),
  });
}
