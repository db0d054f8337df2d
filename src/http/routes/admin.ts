import { Burn, BurnWrite, Pause, PauseWrite, PreparedBurn, PreparedTokenCall } from "../admin-schemas.js";
import { EXAMPLE_ACCOUNT, EXAMPLE_MANAGED_CONTRACT, EXAMPLE_PAIR, ONE_TOKEN } from "../examples.js";
import { defineWriteRoute } from "./write-route.js";

// The writes that change a token itself: burn and pause here; roles, ownership and the other kinds of domain/kinds/ in
// routes/token-calls.ts, which shares the words below. The "managed" launch example deploys the token the burn and
// pause examples name.

export const signedByService = { sender: EXAMPLE_ACCOUNT.address, privateKey: EXAMPLE_ACCOUNT.privateKey };
const managed = { ...EXAMPLE_PAIR, contractAddress: EXAMPLE_MANAGED_CONTRACT };
export const RECORDED =
  "Recorded, signed locally or by the service, and tracked as transfers are: `wait=mined`, `Idempotency-Key`, webhooks, and without `privateKey` the `unsignedTransaction` to sign, taken back as `signedTransaction`.";
export const NOT_SUPPORTED =
  "A token without the function (launched without the option) is refused before signing with `NOT_SUPPORTED_BY_TOKEN`, naming the option in `details.option`";
export const prepare = (value: Record<string, unknown>) => ({
  summary: "Prepare: no key, answers the unsigned transaction to sign",
  value: { ...value, sender: EXAMPLE_ACCOUNT.address },
});

export const burnRoute = defineWriteRoute({
  path: "/tokens/burn",
  operationId: "burnToken",
  tag: "tokens",
  summary: "Burn the sender's tokens: an ERC20 amount, an ERC721 token, or an amount of one ERC1155 id",
  description: `ERC20 and ERC721 call \`burn(amount)\` or \`burn(tokenId)\` (ERC20Burnable, ERC721Burnable); ERC1155 \`burn(sender, tokenId, amount)\` (ERC1155Burnable). ${NOT_SUPPORTED} (\`burnable\`); a burn of more than the sender holds, or of an ERC721 token it may not move, with \`INSUFFICIENT_TOKEN_BALANCE\` or \`NOT_TOKEN_OWNER\`; a paused token with \`WOULD_REVERT\` (\`EnforcedPause\`). ${RECORDED}`,
  write: BurnWrite,
  bodyExamples: {
    erc20: {
      summary: "1 GLD of the token the launch example “managed” deploys",
      value: { ...managed, type: "ERC20", amount: ONE_TOKEN, ...signedByService },
    },
    prepare: prepare({ ...managed, type: "ERC20", amount: ONE_TOKEN }),
  },
  answer: Burn,
  prepared: PreparedBurn,
  command: "burn",
});

export const pauseRoute = defineWriteRoute({
  path: "/tokens/pause",
  operationId: "pauseToken",
  tag: "tokens",
  summary: "Pause a token (every transfer, mint and burn stops) or unpause it",
  description: `\`paused: true\` calls \`pause()\`, \`false\` \`unpause()\` (OpenZeppelin's Pausable, as the service's pausable tokens expose it: PAUSER_ROLE, or the owner). ${NOT_SUPPORTED} (\`pausable\`); a token already in that state with \`WOULD_REVERT\` (\`EnforcedPause\`, \`ExpectedPause\`; field \`paused\`), a sender without the role with \`WOULD_REVERT\` (\`AccessControlUnauthorizedAccount\`, \`OwnableUnauthorizedAccount\`, \`AccessManagedUnauthorized\` when the token's AccessManager does not allow it). While paused, transfers and burns are refused with \`WOULD_REVERT\` (\`EnforcedPause\`); GET /tokens/{contract} shows \`paused\`. ${RECORDED}`,
  write: PauseWrite,
  bodyExamples: {
    pause: {
      summary: "Pause the token the launch example “managed” deploys (its owner signs)",
      value: { ...managed, paused: true, ...signedByService },
    },
    unpause: { summary: "Unpause it", value: { ...managed, paused: false, ...signedByService } },
    prepare: prepare({ ...managed, paused: true }),
  },
  answer: Pause,
  prepared: PreparedTokenCall,
  command: "pause",
});
