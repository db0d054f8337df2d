import { z } from "zod/v4";

import { EXAMPLE_MANAGED_CONTRACT } from "./examples.js";
import { address, amountEcho, chain, integerString, network, preparedTransaction, shownAddress, signedWrite, warnings } from "./schemas.js";
import { TokenStandard, settled, shownStandard, tokenContract } from "./transfer-schemas.js";

// The shapes of burns and pauses (routes/admin.ts; a kind of domain/kinds/ has its own made in routes/token-calls.ts). As in schemas.ts they check shape only; the core checks meaning (an address of that network,
// a token that has the function).

const managedToken = tokenContract.meta({ examples: [EXAMPLE_MANAGED_CONTRACT] });

/** What each of these answers besides the operation itself (and the token calls of routes/token-calls.ts). */
export const written = {
  ...settled,
  contractAddress: z.string(),
  sender: shownAddress,
  nonce: z.number().int().nonnegative().describe("The sender's nonce this write used"),
  simulated: z.boolean(),
  blockNumber: z.number().int().nonnegative().nullable().optional(),
};

export const BurnWrite = signedWrite({
  chain,
  network,
  type: TokenStandard,
  contractAddress: managedToken.describe("The token; launched with token.options.burnable (or any token with OpenZeppelin's burn)"),
  amount: integerString("ERC20 and ERC1155: how much, in smallest units; greater than 0").optional(),
  tokenId: integerString("ERC721 and ERC1155: which token", "1").optional(),
  sender: address.describe("Burns its own tokens (an ERC721 token also as its approved address or operator), and pays the fee"),
});

export const Burn = z.lazy(() =>
  z.object({
    ...written,
    type: shownStandard,
    amount: z.string().optional().describe("Smallest units"),
    ...amountEcho,
    tokenId: z.string().optional(),
    warnings,
  }),
);

export const PauseWrite = signedWrite({
  chain,
  network,
  contractAddress: managedToken.describe("The token; launched with token.options.pausable (or any with pause(), unpause() and paused())"),
  paused: z.boolean().describe("true calls pause(): every transfer, mint and burn stops; false calls unpause()"),
  sender: address.describe(
    "The pauser: PAUSER_ROLE (access roles), the owner (access ownable), or a caller the AccessManager allows (access managed)",
  ),
});

export const Pause = z.lazy(() => z.object({ ...written, paused: z.boolean().describe("The state the write puts the token in") }));

export const PreparedBurn = z.lazy(() => preparedTransaction(shownStandard));
/** A pause, role or ownership write names no standard: it calls any token that has the function. */
export const PreparedTokenCall = z.lazy(() => preparedTransaction());
