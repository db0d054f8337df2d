import { Burn, BurnWrite, Pause, PauseWrite, PreparedBurn, PreparedTokenCall, RoleChange, RoleWrite } from "../admin-schemas.js";
import {
  EXAMPLE_ACCOUNT,
  EXAMPLE_MANAGED_CONTRACT,
  EXAMPLE_PAIR,
  EXAMPLE_RECIPIENT,
  EXAMPLE_TOKEN_CONTRACT,
  ONE_TOKEN,
} from "../examples.js";
import { defineWriteRoute } from "./write-route.js";

// The writes that change a token itself: burn, pause, roles (ownership: domain/kinds/, routes/token-calls.ts). The
// "managed" launch example deploys the token the burn, pause and ownership examples name; the role examples name the example account's first launch (roles).

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
  description: `\`paused: true\` calls \`pause()\`, \`false\` \`unpause()\` (OpenZeppelin's Pausable, as the service's pausable tokens expose it: PAUSER_ROLE, or the owner). ${NOT_SUPPORTED} (\`pausable\`); a token already in that state with \`WOULD_REVERT\` (\`EnforcedPause\`, \`ExpectedPause\`; field \`paused\`), a sender without the role with \`WOULD_REVERT\` (\`AccessControlUnauthorizedAccount\`, \`OwnableUnauthorizedAccount\`). While paused, transfers and burns are refused with \`WOULD_REVERT\` (\`EnforcedPause\`); GET /tokens/{contract} shows \`paused\`. ${RECORDED}`,
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

const roleDescription = (call: string) =>
  `Calls AccessControl's \`${call}(role, account)\` on a token launched with access \`roles\`. \`role\` is a name the token defines (its view of that name gives the id: \`MINTER_ROLE\`, \`PAUSER_ROLE\`, \`DEFAULT_ADMIN_ROLE\`), or the id itself. ${NOT_SUPPORTED}: an Ownable token (\`access\`: \`details.needed\` \`roles\`, \`details.found\` \`ownable\`), a role it does not define (field \`role\`; \`PAUSER_ROLE\` without \`pausable\`). A sender without the role's admin role is refused with \`WOULD_REVERT\` (\`AccessControlUnauthorizedAccount\`). ${RECORDED}`;
const roleExample = { ...EXAMPLE_PAIR, contractAddress: EXAMPLE_TOKEN_CONTRACT, role: "MINTER_ROLE", account: EXAMPLE_RECIPIENT };

export const grantRoleRoute = defineWriteRoute({
  path: "/tokens/roles/grant",
  operationId: "grantRole",
  tag: "tokens",
  summary: "Grant a role of a token (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE, …) to an account",
  description: roleDescription("grantRole"),
  write: RoleWrite,
  bodyExamples: {
    minter: {
      summary: "Hardhat's second account may mint the example account's first launch",
      value: { ...roleExample, ...signedByService },
    },
    prepare: prepare(roleExample),
  },
  answer: RoleChange,
  prepared: PreparedTokenCall,
  command: "grantRole",
});

export const revokeRoleRoute = defineWriteRoute({
  path: "/tokens/roles/revoke",
  operationId: "revokeRole",
  tag: "tokens",
  summary: "Revoke a role of a token from an account",
  description: roleDescription("revokeRole"),
  write: RoleWrite,
  bodyExamples: {
    minter: { summary: "Hardhat's second account may mint no more", value: { ...roleExample, ...signedByService } },
    prepare: prepare(roleExample),
  },
  answer: RoleChange,
  prepared: PreparedTokenCall,
  command: "revokeRole",
});
