import type { TokenCallKind } from "./token-call-kind.js";

// AccessControl's grantRole and revokeRole, on a token launched with access "roles" (the default): who may mint, pause
// and administer. Two kinds, one shape: the role by name or id (the check `role` makes sure the token defines a name),
// and the account given it or losing it.

const fields = {
  role: {
    type: "role",
    description:
      "A role the token defines, by name (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE, …: the token must have a view of that name), or its id as 32 bytes of 0x hex",
    option: "A role the token defines (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE), or its id as 32 bytes of 0x hex",
    example: "MINTER_ROLE",
  },
  account: {
    type: "account",
    description: "Who gains or loses the role",
    zeroRefusal: "no one could use the role",
    example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  },
} as const;

const common = {
  fields,
  contract: "The token; launched with access roles (AccessControl)",
  sender: "A holder of the role's admin role (DEFAULT_ADMIN_ROLE for the service's tokens)",
} as const;

const launchedWithout = "the token has no roles (it was launched with token.options.access ownable)";

const description = (call: string) =>
  `Calls AccessControl's \`${call}(role, account)\` on a token launched with access \`roles\`. \`role\` is a name the token defines (its view of that name gives the id: \`MINTER_ROLE\`, \`PAUSER_ROLE\`, \`DEFAULT_ADMIN_ROLE\`), or the id itself. {NOT_SUPPORTED}: an Ownable token (\`access\`: \`details.needed\` \`roles\`, \`details.found\` \`ownable\`), an AccessManaged one (\`details.found\` \`managed\`: its AccessManager, \`details.authority\`, holds the roles), a role it does not define (field \`role\`; \`PAUSER_ROLE\` without \`pausable\`). A sender without the role's admin role is refused with \`WOULD_REVERT\` (\`AccessControlUnauthorizedAccount\`). {RECORDED}`;

const taskContract = "The token contract address (launched with access roles)";

export const grantRoleKind = {
  ...common,
  name: "grantRole",
  what: "role grant",
  call: "function grantRole(bytes32 role, address account)",
  requires: { functions: ["grantRole(bytes32,address)"], option: "access", launchedWithout, check: "role" },
  http: {
    path: "/tokens/roles/grant",
    operationId: "grantRole",
    summary: "Grant a role of a token (MINTER_ROLE, PAUSER_ROLE, DEFAULT_ADMIN_ROLE, …) to an account",
    description: description("grantRole"),
    example: { name: "minter", summary: "Hardhat's second account may mint the example account's first launch" },
  },
  task: {
    name: "token:grant-role",
    description: "Grant a role of a token (MINTER_ROLE, PAUSER_ROLE, …) to an account",
    contract: taskContract,
    headline: (result) => `Granted ${String(result.role)} of ${String(result.contractAddress)} to ${String(result.account)}`,
  },
} as const satisfies TokenCallKind;

export const revokeRoleKind = {
  ...common,
  name: "revokeRole",
  what: "role revoke",
  call: "function revokeRole(bytes32 role, address account)",
  requires: { functions: ["revokeRole(bytes32,address)"], option: "access", launchedWithout, check: "role" },
  http: {
    path: "/tokens/roles/revoke",
    operationId: "revokeRole",
    summary: "Revoke a role of a token from an account",
    description: description("revokeRole"),
    example: { name: "minter", summary: "Hardhat's second account may mint no more" },
  },
  task: {
    name: "token:revoke-role",
    description: "Revoke a role of a token from an account",
    contract: taskContract,
    headline: (result) => `Revoked ${String(result.role)} of ${String(result.contractAddress)} from ${String(result.account)}`,
  },
} as const satisfies TokenCallKind;
